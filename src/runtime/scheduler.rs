//! What one session's worker does next, and how the session comes back
//! after its worker is replaced or parked: plain logic, tested natively.
//!
//! Jobs are held on the host rather than posted straight to the worker, so a
//! run submitted while Python is still loading waits here (never dropped),
//! and only one job is inside the worker at a time: its timer starts when it
//! really starts, and a worker that must be replaced loses nothing queued.
//! The one exception is a fresh run behind a fresh run (a batch's programs,
//! which share nothing): it waits in the worker, so the worker starts it the
//! moment the first ends instead of a round trip through the host later, and
//! it comes back to the head of the queue if the worker is replaced.
//!
//! Every run that succeeded is kept in a ledger. When the session's worker
//! has to be replaced (a timeout without interrupts, a crash, a cancel) or
//! is parked to make room for another session, the ledger is queued for
//! replay into its next worker, in order, before anything else runs. The
//! replays are posted several at a time, so the worker runs them back to
//! back instead of waiting for the host between them.

use std::collections::VecDeque;

mod dispatch;
mod ledger;
mod recovery;

use crate::protocol::{
    HostFunction, HostMessage, InputFile, Query, Restoration, RunId, RunRequest, DEFAULT_TIMEOUT_MS,
};
use ledger::Ledger;
pub use ledger::LedgerEntry;
pub use recovery::Completion;
use recovery::{Recovery, Told};

/// Something a session's worker does for the host.
#[derive(Debug, Clone, PartialEq)]
pub enum Job {
    /// A caller's run.
    Run(RunRequest),
    /// Empties the session: its worker is ended and its ledger dropped, so
    /// its next job starts in a fresh interpreter. Needs no worker itself.
    Clear {
        /// Also drop the session from the list of sessions.
        forget: bool,
    },
    /// Re-runs a ledger entry to rebuild state in a new worker.
    Replay(LedgerEntry),
    /// Asks Python something that changes no session.
    Query(Query),
}

/// What to do with the job at the head of the queue.
#[derive(Debug, Clone, PartialEq)]
pub enum Dispatch {
    /// Post this message to the session's worker.
    Post(HostMessage),
    /// End the session's worker: job `id`, a [`Job::Clear`], is then done.
    Reset {
        /// The clear's id.
        id: RunId,
        /// Whether the session is also forgotten.
        forget: bool,
    },
}

/// Hands out job ids, unique across every session's queue.
#[derive(Debug, Default)]
pub struct Ids(RunId);

impl Ids {
    /// A new id.
    pub fn new_id(&mut self) -> RunId {
        self.0 = self.0.wrapping_add(1);
        self.0
    }
}

/// One session's job queue, its ledger and any restore in progress.
#[derive(Debug)]
pub struct Scheduler {
    session: String,
    ready: bool,
    in_flight: Option<(RunId, Job)>,
    /// Fresh runs posted behind the fresh run in flight, oldest first.
    ahead: VecDeque<(RunId, Job)>,
    waiting: VecDeque<(RunId, Job)>,
    ledger: Ledger,
    recovery: Option<Recovery>,
    /// How the session came back when no caller's job was stopped (it was
    /// parked, say): told with its next run's result.
    note: Option<Restoration>,
}

impl Scheduler {
    /// An empty queue for `session`, whose worker is not ready yet.
    pub fn new(session: &str) -> Self {
        Self {
            session: session.to_owned(),
            ready: false,
            in_flight: None,
            ahead: VecDeque::new(),
            waiting: VecDeque::new(),
            ledger: Ledger::default(),
            recovery: None,
            note: None,
        }
    }

    /// Queues job `id`; [`Scheduler::dispatch`] says when it goes.
    ///
    /// A clear of a session that is doing nothing goes at once: the replays
    /// waiting for its next worker are dropped with the state they rebuild.
    pub fn submit(&mut self, id: RunId, job: Job) {
        if matches!(job, Job::Clear { .. }) && self.quiet() {
            self.waiting.clear();
            self.recovery = None;
        }
        self.waiting.push_back((id, job));
    }

    /// Puts files kept across a reload back into the session: an entry of
    /// the ledger, replayed (before the callers' jobs) into whichever worker
    /// the session has or gets next.
    pub fn restore_files(&mut self, files: Vec<InputFile>, ids: &mut Ids) {
        let entry = self.ledger.record_files(files);
        let at = self
            .waiting
            .iter()
            .take_while(|(_, job)| matches!(job, Job::Replay(_)))
            .count();
        self.waiting.insert(at, (ids.new_id(), Job::Replay(entry)));
        self.recovery.get_or_insert_with(Recovery::default);
    }

    /// The session's worker said it is ready.
    pub fn set_ready(&mut self) {
        self.ready = true;
    }

    /// Whether the session's worker is ready for jobs.
    pub fn is_ready(&self) -> bool {
        self.ready
    }

    /// The job inside the worker now, if any.
    pub fn in_flight(&self) -> Option<RunId> {
        self.in_flight.as_ref().map(|(id, _)| *id)
    }

    /// The fresh runs waiting in the worker behind the one in flight.
    pub fn ahead(&self) -> impl Iterator<Item = RunId> + '_ {
        self.ahead.iter().map(|(id, _)| *id)
    }

    /// Whether the job inside the worker is a replay.
    pub fn replaying(&self) -> bool {
        matches!(self.in_flight, Some((_, Job::Replay(_))))
    }

    /// The host functions the run inside the worker may call (none for
    /// anything but a caller's run).
    pub fn in_flight_functions(&self) -> &[HostFunction] {
        match &self.in_flight {
            Some((_, Job::Run(request))) => &request.host_functions,
            _ => &[],
        }
    }

    /// The timeout of the run inside the worker, if it is a run and has one.
    pub fn in_flight_timeout_ms(&self) -> Option<u32> {
        match &self.in_flight {
            Some((_, Job::Run(request))) => request.timeout_ms,
            Some((_, Job::Replay(_))) => Some(DEFAULT_TIMEOUT_MS),
            _ => None,
        }
    }

    /// Callers' jobs waiting (not counting the one in flight, nor replays;
    /// counting those waiting in the worker behind it).
    pub fn waiting(&self) -> usize {
        let caller = |(_, job): &&(RunId, Job)| !matches!(job, Job::Replay(_));
        self.waiting.iter().filter(caller).count() + self.ahead.iter().filter(caller).count()
    }

    /// Whether nothing is in the worker and no caller's job waits (replays
    /// waiting for a worker the session does not have yet do not count).
    pub fn is_idle(&self) -> bool {
        self.in_flight.is_none() && self.waiting() == 0
    }

    /// Whether a caller waits for something only a worker can do: a job,
    /// or the restore that tells a stopped run how the session came back.
    pub fn needs_worker(&self) -> bool {
        self.waiting() > 0 || self.recovery.as_ref().is_some_and(Recovery::has_stopped)
    }

    /// Whether the session has state that replay would rebuild.
    pub fn has_state(&self) -> bool {
        !self.ledger.is_empty()
    }

    /// Whether there is nothing at all here: no job, no ledger.
    pub fn is_empty(&self) -> bool {
        self.in_flight.is_none() && self.waiting.is_empty() && self.ledger.is_empty()
    }

    /// Takes a job out of the queue before it reaches the worker; false if it is not waiting.
    pub fn cancel_waiting(&mut self, id: RunId) -> bool {
        let before = self.waiting.len();
        self.waiting.retain(|(queued, _)| *queued != id);
        self.waiting.len() != before
    }

    /// How the session was restored before the run about to be reported,
    /// when no stopped run was told already.
    pub fn take_note(&mut self) -> Option<Restoration> {
        self.note.take()
    }

    /// Job `id` finished in the worker at `now_ms`; `succeeded` is false
    /// when the code raised. The job waiting in the worker behind it, if
    /// any, is in flight now.
    ///
    /// Returns what the callers can now be told. A finish for a job that is
    /// not in flight is ignored, so a stray or repeated message cannot start
    /// two jobs at once.
    pub fn complete(
        &mut self,
        id: RunId,
        succeeded: bool,
        reason: &str,
        now_ms: f64,
    ) -> Vec<Completion> {
        if self.in_flight() != Some(id) {
            return Vec::new();
        }
        let mut done = Vec::new();
        let finished = self.in_flight.take().map(|(_, job)| job);
        self.in_flight = self.ahead.pop_front();
        match finished {
            Some(Job::Run(request)) => {
                match (succeeded, request.fresh) {
                    (_, true) => {}
                    (true, false) => self.ledger.record_run(request),
                    (false, false) => self.ledger.skip_failed(),
                }
                done.push(Completion::Finished(id));
            }
            Some(Job::Query(_) | Job::Clear { .. }) => done.push(Completion::Finished(id)),
            Some(Job::Replay(entry)) => {
                if succeeded {
                    if let Some(recovery) = self.recovery.as_mut() {
                        recovery.replayed(&entry);
                    }
                } else {
                    self.lose(&entry, reason);
                }
                done.extend(self.replayed(now_ms));
            }
            None => {}
        }
        done
    }

    /// The session got a worker at `now_ms`: a restore waiting for one
    /// counts its cost from here (the worker's start, then the replays).
    pub fn worker_assigned(&mut self, now_ms: f64) {
        if let Some(recovery) = self.recovery.as_mut() {
            recovery.began(now_ms);
        }
    }

    /// Whether a restore waits for a worker or is under way.
    pub fn restoring(&self) -> bool {
        self.recovery.is_some()
    }

    /// The session's worker is gone (replaced, or parked to make room): the
    /// job in it will never finish there.
    ///
    /// Queues a replay of the whole ledger ahead of everything else and
    /// returns completions that are due at once (a restore with nothing to
    /// replay). The stopped caller's job completes as [`Completion::Restored`]
    /// when the replay is done; with no job stopped, the restore is told
    /// with the session's next run. Call [`Scheduler::set_ready`] when the
    /// session's next worker is.
    pub fn restart(&mut self, reason: &str, ids: &mut Ids) -> Vec<Completion> {
        self.recovery.get_or_insert_with(Recovery::default);
        let stopped = match self.in_flight.take() {
            Some((id, Job::Run(_) | Job::Query(_) | Job::Clear { .. })) => Some(id),
            Some((_, Job::Replay(entry))) => {
                self.lose(&entry, reason);
                None
            }
            None => None,
        };
        self.ready = false;
        self.waiting
            .retain(|(_, job)| !matches!(job, Job::Replay(_)));
        // Replays posted behind the one in flight are queued again with the rest.
        while let Some(behind) = self.ahead.pop_back() {
            if !matches!(behind.1, Job::Replay(_)) {
                self.waiting.push_front(behind);
            }
        }
        for entry in self.ledger.entries().iter().rev() {
            self.waiting
                .push_front((ids.new_id(), Job::Replay(entry.clone())));
        }
        let recovery = self.recovery.get_or_insert_with(Recovery::default);
        recovery.restart(stopped);
        if self.ledger.is_empty() {
            self.finish_recovery(0.0)
        } else {
            Vec::new()
        }
    }

    /// The session's next worker will not come (it failed to start): returns
    /// the ids of every caller's job that will never run. The ledger stays,
    /// for a later worker to replay.
    pub fn fail_callers(&mut self) -> Vec<RunId> {
        self.ready = false;
        let stopped = self
            .recovery
            .as_mut()
            .map(Recovery::take_stopped)
            .unwrap_or_default();
        let mut failed: Vec<RunId> = self
            .in_flight
            .take()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        let (replays, callers): (VecDeque<_>, VecDeque<_>) = self
            .ahead
            .drain(..)
            .chain(self.waiting.drain(..))
            .partition(|(_, job)| matches!(job, Job::Replay(_)));
        self.waiting = replays;
        failed.extend(callers.into_iter().map(|(id, _)| id));
        failed.extend(stopped);
        failed
    }

    /// Python is gone for good; returns the ids of every caller's job that will never run.
    pub fn drain(&mut self) -> Vec<RunId> {
        let failed = self.fail_callers();
        self.waiting.clear();
        self.recovery = None;
        failed
    }

    /// A replay finished at `now_ms`: when it was the last one, the restore is done.
    fn replayed(&mut self, now_ms: f64) -> Vec<Completion> {
        let replay = |(_, job): &(RunId, Job)| matches!(job, Job::Replay(_));
        let more =
            self.waiting.iter().any(replay) || self.ahead.iter().any(replay) || self.replaying();
        if more {
            Vec::new()
        } else {
            self.finish_recovery(now_ms)
        }
    }

    fn finish_recovery(&mut self, now_ms: f64) -> Vec<Completion> {
        let Some(recovery) = self.recovery.take() else {
            return Vec::new();
        };
        match recovery.finish(self.ledger.skipped(), now_ms) {
            Told::Callers(completions) => completions,
            Told::Note(note) => {
                self.note = note;
                Vec::new()
            }
        }
    }

    /// A ledger entry could not be replayed: drop it so later restores skip it, and report it.
    fn lose(&mut self, entry: &LedgerEntry, reason: &str) {
        self.ledger.forget(entry);
        if let Some(recovery) = self.recovery.as_mut() {
            recovery.lost(&self.session, entry, reason);
        }
    }

    /// Whether nothing is in the worker, no caller's job waits and no
    /// stopped run waits for a restore: only replays, if anything.
    fn quiet(&self) -> bool {
        self.in_flight.is_none() && !self.needs_worker()
    }
}
