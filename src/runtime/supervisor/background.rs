//! Background work (the snapshot maker, the warm spares): started only once
//! the runtime has been idle a while, and giving way to a job that arrives
//! while it still loads. Its timing is decided here; what a spare loads is
//! the worker's business.

use super::workers::{Role, Workers};
use crate::protocol::SnapshotUse;
use crate::runtime::events::{Effect, Start, Timer};

/// How long no job may have been queued or running before a background
/// worker (the snapshot maker, the warm spare) starts: loading Pyodide takes
/// a core for a second or more, and a chat UI's calls come in quick
/// succession, so a start in a gap between two of them would slow the next.
pub const BACKGROUND_IDLE_MS: u32 = 500;

/// Two new sessions this close together are sessions made back to back:
/// then a second spare is kept, so the one after them starts at once too.
pub const BACK_TO_BACK_MS: u32 = 10_000;

/// When background work is due, and whether its timer runs.
#[derive(Debug, Default)]
pub(super) struct Background {
    /// When the last two new sessions got their first worker, the latest last.
    new_sessions: [Option<f64>; 2],
    /// A maker was started once: a failed one is not retried on this page
    /// (one that gave way to a job is).
    snapshot_attempted: bool,
    /// How the first worker to be ready started: a maker is due when it did
    /// not use a snapshot.
    first_start: Option<SnapshotUse>,
    /// The [`Timer::Background`] is running.
    armed: bool,
    /// Since when no job has been queued or running, while that holds.
    idle_since: Option<f64>,
}

impl Background {
    /// The first worker to be ready started so.
    pub(super) fn first_ready(&mut self, snapshot: SnapshotUse) {
        self.first_start = Some(snapshot);
    }

    /// A session got its first worker at `now_ms`.
    pub(super) fn new_session(&mut self, now_ms: f64) {
        self.new_sessions = [self.new_sessions[1], Some(now_ms)];
    }

    /// How many warm spares to keep: one, and a second while sessions are
    /// made back to back.
    fn spares_wanted(&self) -> usize {
        match self.new_sessions {
            [Some(before), Some(last)] if last - before <= f64::from(BACK_TO_BACK_MS) => 2,
            _ => 1,
        }
    }

    /// The background worker due now, if any, among `workers` (`room`:
    /// whether the memory budget has room for another): a start-up snapshot
    /// is made first when the first worker started without one (once per
    /// page), else a warm spare while there is room for it (see
    /// [`Background::spares_wanted`]), so the next session (or restart)
    /// starts at once. A spare waits for the maker and for the spare before
    /// it, so they do not compete for the CPU (and the spares start from the
    /// new snapshot).
    pub(super) fn due(&self, workers: &Workers, room: bool) -> Option<Start> {
        if workers.find(&Role::Maker).is_some() || !workers.loading_in_background().is_empty() {
            return None;
        }
        let snapshot_used = self.first_start.as_ref() == Some(&SnapshotUse::Used);
        if !snapshot_used && !self.snapshot_attempted {
            Some(Start::SnapshotMaker)
        } else if workers.count(&Role::Spare) < self.spares_wanted() && room {
            Some(Start::Python)
        } else {
            None
        }
    }

    /// Notes since when the runtime has been `idle` at `now_ms` (a job that
    /// comes in starts the count again from its end), and arms the timer
    /// when a background worker is `due`. A timer already running is left
    /// to go off: it then looks at how long the runtime has been idle, so
    /// runs in quick succession cost no timer each.
    pub(super) fn settle(&mut self, idle: bool, due: bool, now_ms: f64, effects: &mut Vec<Effect>) {
        if !idle {
            self.idle_since = None;
            return;
        }
        self.idle_since.get_or_insert(now_ms);
        if !self.armed && due {
            self.armed = true;
            effects.push(Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS));
        }
    }

    /// The timer went off at `now_ms`: the worker to start now, if the
    /// runtime has been `idle` long enough and one is `due`; else the timer
    /// runs again for the rest of the wait.
    pub(super) fn tick(
        &mut self,
        idle: bool,
        due: Option<Start>,
        now_ms: f64,
        effects: &mut Vec<Effect>,
    ) -> Option<Start> {
        self.armed = false;
        let since = self.idle_since.filter(|_| idle)?;
        let left = f64::from(BACKGROUND_IDLE_MS) - (now_ms - since);
        if left > 0.0 {
            if due.is_some() {
                self.armed = true;
                effects.push(Effect::StartTimer(Timer::Background, left.ceil() as u32));
            }
            return None;
        }
        if due == Some(Start::SnapshotMaker) {
            self.snapshot_attempted = true;
        }
        due
    }

    /// The maker gave way to a job before it was done: it is due again.
    pub(super) fn maker_gave_way(&mut self) {
        self.snapshot_attempted = false;
    }
}
