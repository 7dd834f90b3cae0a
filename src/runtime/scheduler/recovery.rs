//! A restore under way: the callers' jobs it stopped, how the replay goes,
//! and what is told when it is done.

use super::ledger::LedgerEntry;
use crate::protocol::{LostRun, Restoration, RunId};

/// A job the scheduler is done with.
#[derive(Debug, Clone, PartialEq)]
pub enum Completion {
    /// The caller's job finished normally: its result comes from the worker.
    Finished(RunId),
    /// The caller's job was stopped by a restart, and the session is back.
    Restored(RunId, Restoration),
}

/// A restore under way: who waits for it and how it is going.
#[derive(Debug, Default)]
pub(super) struct Recovery {
    stopped: Vec<RunId>,
    restoration: Restoration,
    /// When the session got the worker it is restored into.
    began_ms: Option<f64>,
}

/// What a finished restore tells.
pub(super) enum Told {
    /// The callers whose jobs it stopped, each with how the session came back.
    Callers(Vec<Completion>),
    /// No job was stopped: how the session came back, for its next run's
    /// result, when that is worth telling.
    Note(Option<Restoration>),
}

impl Recovery {
    /// Whether a caller's job it stopped waits for it.
    pub(super) fn has_stopped(&self) -> bool {
        !self.stopped.is_empty()
    }

    /// The worker was replaced (again), stopping `stopped` if it ran a
    /// caller's job: the whole ledger is replayed from the start.
    pub(super) fn restart(&mut self, stopped: Option<RunId>) {
        self.stopped.extend(stopped);
        self.restoration.replayed = 0;
    }

    /// The session got a worker to be restored into at `now_ms` (the first
    /// one counts, should it be replaced again).
    pub(super) fn began(&mut self, now_ms: f64) {
        self.began_ms.get_or_insert(now_ms);
    }

    /// The callers' jobs it stopped, which no longer wait for it.
    pub(super) fn take_stopped(&mut self) -> Vec<RunId> {
        std::mem::take(&mut self.stopped)
    }

    /// `entry` was replayed.
    pub(super) fn replayed(&mut self, entry: &LedgerEntry) {
        self.restoration.replayed += u32::from(entry.is_run());
    }

    /// `entry` of `session` could not be replayed, for `reason`.
    pub(super) fn lost(&mut self, session: &str, entry: &LedgerEntry, reason: &str) {
        self.restoration.lost.push(LostRun {
            session: session.to_owned(),
            code_start: entry.code_start(),
            reason: reason.to_owned(),
        });
    }

    /// The replay is done at `now_ms`, the session having `skipped` runs
    /// that were never kept: what it tells.
    pub(super) fn finish(self, skipped: u32, now_ms: f64) -> Told {
        let mut restoration = self.restoration;
        restoration.skipped = skipped;
        let took = self.began_ms.map_or(0.0, |began| now_ms - began);
        restoration.ms = took.max(0.0).round() as u32;
        if self.stopped.is_empty() {
            let worth_telling = restoration.replayed > 0 || !restoration.lost.is_empty();
            restoration.before_run = Some(true);
            return Told::Note(worth_telling.then_some(restoration));
        }
        let stopped = self.stopped.into_iter();
        Told::Callers(
            stopped
                .map(|id| Completion::Restored(id, restoration.clone()))
                .collect(),
        )
    }
}
