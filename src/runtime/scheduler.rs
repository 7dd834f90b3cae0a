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
//! replay into its next worker, in order, before anything else runs.

use std::collections::VecDeque;

use crate::protocol::{
    HostMessage, InputFile, LostRun, OutputLimits, Query, Restoration, RunId, RunRequest,
    DEFAULT_TIMEOUT_MS,
};

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

/// A run that succeeded (or files put back), kept so it can be replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerEntry {
    seq: u64,
    /// Only puts files back (kept across a reload): not counted as a replayed run.
    files_only: bool,
    code: String,
    packages: Vec<String>,
    files: Vec<InputFile>,
    /// Its tests ran in its namespace too, and may have changed it.
    tests: Option<String>,
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

/// A job the scheduler is done with.
#[derive(Debug, Clone, PartialEq)]
pub enum Completion {
    /// The caller's job finished normally: its result comes from the worker.
    Finished(RunId),
    /// The caller's job was stopped by a restart, and the session is back.
    Restored(RunId, Restoration),
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

/// How many fresh runs may wait in the worker behind the one in flight:
/// enough that the worker goes on while the host is busy elsewhere for a
/// moment, few enough that a replaced worker sends back little.
const AHEAD: usize = 2;

/// Runs that failed are not replayed: their partial effects are lost anyway.
/// Output of replays is not wanted, so it is kept tiny.
const REPLAY_LIMITS: OutputLimits = OutputLimits {
    output_bytes: 0,
    value_bytes: 0,
    display_bytes: 0,
    input_bytes: u32::MAX,
    artifact_bytes: 0,
};

/// One session's job queue, its ledger and any restore in progress.
#[derive(Debug)]
pub struct Scheduler {
    session: String,
    ready: bool,
    in_flight: Option<(RunId, Job)>,
    /// Fresh runs posted behind the fresh run in flight, oldest first.
    ahead: VecDeque<(RunId, Job)>,
    waiting: VecDeque<(RunId, Job)>,
    ledger: Vec<LedgerEntry>,
    next_seq: u64,
    recovery: Option<Recovery>,
    /// How the session came back when no caller's job was stopped (it was
    /// parked, say): told with its next run's result.
    note: Option<Restoration>,
}

/// A restore under way: who waits for it and how it is going.
#[derive(Debug, Default)]
struct Recovery {
    stopped: Vec<RunId>,
    restoration: Restoration,
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
            ledger: Vec::new(),
            next_seq: 0,
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
        let entry = LedgerEntry {
            seq: self.new_seq(),
            files_only: true,
            code: String::new(),
            packages: Vec::new(),
            files,
            tests: None,
        };
        self.ledger.push(entry.clone());
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
        self.waiting
            .iter()
            .filter(|(_, job)| !matches!(job, Job::Replay(_)))
            .count()
            + self.ahead.len()
    }

    /// Whether nothing is in the worker and no caller's job waits (replays
    /// waiting for a worker the session does not have yet do not count).
    pub fn is_idle(&self) -> bool {
        self.in_flight.is_none() && self.waiting() == 0
    }

    /// Whether a caller waits for something only a worker can do: a job,
    /// or the restore that tells a stopped run how the session came back.
    pub fn needs_worker(&self) -> bool {
        self.waiting() > 0
            || self
                .recovery
                .as_ref()
                .is_some_and(|recovery| !recovery.stopped.is_empty())
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

    /// The next thing to do, if the worker is free: post the job at the head
    /// of the queue (once the worker is ready), or end the worker for a
    /// clear (which needs no worker, so it goes even while one loads).
    /// While a fresh run is in flight, a fresh run at the head goes in behind it.
    pub fn dispatch(&mut self) -> Option<Dispatch> {
        if let Some((_, running)) = &self.in_flight {
            let fresh = matches!(running, Job::Run(request) if request.fresh);
            let Some((id, Job::Run(request))) = self.waiting.front() else {
                return None;
            };
            if !(fresh && request.fresh && self.ahead.len() < AHEAD) {
                return None;
            }
            let message = HostMessage::Run {
                id: *id,
                request: request.clone(),
            };
            self.ahead.extend(self.waiting.pop_front());
            return Some(Dispatch::Post(message));
        }
        if let Some((id, Job::Clear { forget })) = self.waiting.front() {
            let (id, forget) = (*id, *forget);
            self.waiting.pop_front();
            self.ledger.clear();
            self.note = None;
            self.ready = false;
            return Some(Dispatch::Reset { id, forget });
        }
        if !self.ready {
            return None;
        }
        let (id, job) = self.waiting.pop_front()?;
        let message = match &job {
            Job::Run(request) => HostMessage::Run {
                id,
                request: request.clone(),
            },
            Job::Query(query) => HostMessage::Query {
                id,
                query: query.clone(),
            },
            Job::Replay(entry) => HostMessage::Run {
                id,
                request: self.replay_request(entry),
            },
            Job::Clear { .. } => return None,
        };
        self.in_flight = Some((id, job));
        Some(Dispatch::Post(message))
    }

    /// Job `id` finished in the worker; `succeeded` is false when the code raised.
    /// The run waiting in the worker behind it, if any, is in flight now.
    ///
    /// Returns what the callers can now be told. A finish for a job that is
    /// not in flight is ignored, so a stray or repeated message cannot start
    /// two jobs at once.
    pub fn complete(&mut self, id: RunId, succeeded: bool, reason: &str) -> Vec<Completion> {
        if self.in_flight() != Some(id) {
            return Vec::new();
        }
        let mut done = Vec::new();
        let finished = self.in_flight.take().map(|(_, job)| job);
        self.in_flight = self.ahead.pop_front();
        match finished {
            Some(Job::Run(request)) => {
                if succeeded && !request.fresh {
                    let seq = self.new_seq();
                    self.ledger.push(LedgerEntry {
                        seq,
                        files_only: false,
                        code: request.code,
                        packages: request.packages,
                        files: request.files,
                        tests: request.tests,
                    });
                }
                done.push(Completion::Finished(id));
            }
            Some(Job::Query(_) | Job::Clear { .. }) => done.push(Completion::Finished(id)),
            Some(Job::Replay(entry)) => {
                if succeeded {
                    if let Some(recovery) = self.recovery.as_mut() {
                        recovery.restoration.replayed += u32::from(!entry.files_only);
                    }
                } else {
                    self.lose(&entry, reason);
                }
                done.extend(self.replayed());
            }
            None => {}
        }
        done
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
        while let Some(behind) = self.ahead.pop_back() {
            self.waiting.push_front(behind);
        }
        for entry in self.ledger.clone().into_iter().rev() {
            self.waiting.push_front((ids.new_id(), Job::Replay(entry)));
        }
        let recovery = self.recovery.get_or_insert_with(Recovery::default);
        recovery.stopped.extend(stopped);
        recovery.restoration.replayed = 0;
        if self.ledger.is_empty() {
            self.finish_recovery()
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
            .map(|r| std::mem::take(&mut r.stopped))
            .unwrap_or_default();
        let mut failed: Vec<RunId> = self
            .in_flight
            .take()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        failed.extend(self.ahead.drain(..).map(|(id, _)| id));
        let (replays, callers): (VecDeque<_>, VecDeque<_>) = self
            .waiting
            .drain(..)
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

    /// A replay finished: when it was the last one queued, the restore is done.
    fn replayed(&mut self) -> Vec<Completion> {
        let more = self
            .waiting
            .iter()
            .any(|(_, job)| matches!(job, Job::Replay(_)));
        if more {
            Vec::new()
        } else {
            self.finish_recovery()
        }
    }

    fn finish_recovery(&mut self) -> Vec<Completion> {
        let Some(recovery) = self.recovery.take() else {
            return Vec::new();
        };
        let mut restoration = recovery.restoration;
        if recovery.stopped.is_empty() {
            let worth_telling = restoration.replayed > 0 || !restoration.lost.is_empty();
            restoration.before_run = Some(true);
            self.note = worth_telling.then_some(restoration);
            return Vec::new();
        }
        recovery
            .stopped
            .into_iter()
            .map(|id| Completion::Restored(id, restoration.clone()))
            .collect()
    }

    /// A ledger entry could not be replayed: drop it so later restores skip it, and report it.
    fn lose(&mut self, entry: &LedgerEntry, reason: &str) {
        self.ledger.retain(|kept| kept.seq != entry.seq);
        if let Some(recovery) = self.recovery.as_mut() {
            let code_start = if entry.files_only {
                "(files kept across a reload)".to_owned()
            } else {
                entry.code.lines().next().unwrap_or_default().to_owned()
            };
            recovery.restoration.lost.push(LostRun {
                session: self.session.clone(),
                code_start,
                reason: reason.to_owned(),
            });
        }
    }

    /// Whether nothing is in the worker, no caller's job waits and no
    /// stopped run waits for a restore: only replays, if anything.
    fn quiet(&self) -> bool {
        self.in_flight.is_none() && !self.needs_worker()
    }

    fn replay_request(&self, entry: &LedgerEntry) -> RunRequest {
        let mut request = RunRequest::new(entry.code.clone())
            .in_session(self.session.clone())
            .with_files(entry.files.clone())
            .with_packages(entry.packages.clone())
            .with_tests(entry.tests.clone());
        request.limits = REPLAY_LIMITS;
        request
    }

    fn new_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }
}
