//! What goes to the worker next, and how sessions come back after a restart:
//! plain logic, tested natively.
//!
//! Jobs are held on the host rather than posted straight to the worker, so a
//! run submitted while Python is still loading waits here (never dropped),
//! and only one job is ever inside the worker: its timer starts when it
//! really starts, and a worker that must be replaced loses nothing queued.
//!
//! Every run that succeeded is kept in a ledger. When the worker has to be
//! replaced (a timeout without interrupts, a crash, a cancel), the ledger is
//! replayed into the new worker, in order, before anything else runs.

use std::collections::{BTreeSet, VecDeque};

use crate::protocol::{
    FigureFormat, HostMessage, InputFile, LostRun, OutputLimits, Query, Restoration, RunId,
    RunRequest, DEFAULT_TIMEOUT_MS,
};

/// Something the worker does for the host.
#[derive(Debug, Clone, PartialEq)]
pub enum Job {
    /// A caller's run.
    Run(RunRequest),
    /// Empties a session; `forget` also drops it from the session list.
    Clear {
        /// The session.
        session: String,
        /// Delete rather than reset.
        forget: bool,
    },
    /// Re-runs a ledger entry to rebuild state in a new worker.
    Replay(LedgerEntry),
    /// Asks Python something that changes no session.
    Query(Query),
}

/// A run that succeeded, kept so it can be replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerEntry {
    seq: u64,
    session: String,
    code: String,
    packages: Vec<String>,
    files: Vec<InputFile>,
    /// Its tests ran in its namespace too, and may have changed it.
    tests: Option<String>,
}

/// A job the scheduler is done with.
#[derive(Debug, Clone, PartialEq)]
pub enum Completion {
    /// The caller's job finished normally: its result comes from the worker.
    Finished(RunId),
    /// The caller's job was stopped by a restart, and the sessions are back.
    Restored(RunId, Restoration),
}

/// Runs that failed are not replayed: their partial effects are lost anyway.
/// Output of replays is not wanted, so it is kept tiny.
const REPLAY_LIMITS: OutputLimits = OutputLimits {
    output_bytes: 0,
    value_bytes: 0,
    display_bytes: 0,
    input_bytes: u32::MAX,
    artifact_bytes: 0,
};

/// The job queue, the ledger and any restore in progress.
#[derive(Debug, Default)]
pub struct Scheduler {
    ready: bool,
    in_flight: Option<(RunId, Job)>,
    waiting: VecDeque<(RunId, Job)>,
    next_id: RunId,
    ledger: Vec<LedgerEntry>,
    next_seq: u64,
    sessions: BTreeSet<String>,
    recovery: Option<Recovery>,
}

/// A restore under way: who waits for it and how it is going.
#[derive(Debug, Default)]
struct Recovery {
    stopped: Vec<RunId>,
    remaining: usize,
    restoration: Restoration,
}

impl Scheduler {
    /// An empty scheduler whose worker is not ready yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues a job; returns its id and the message to post now, if the worker is free.
    pub fn submit(&mut self, job: Job) -> (RunId, Option<HostMessage>) {
        match &job {
            Job::Run(request) => {
                self.sessions.insert(request.session.clone());
            }
            Job::Clear {
                session,
                forget: true,
            } => {
                self.sessions.remove(session);
            }
            _ => {}
        }
        let id = self.new_id();
        self.waiting.push_back((id, job));
        (id, self.dispatch())
    }

    /// The worker said it is ready; returns the first job to post, if any.
    pub fn set_ready(&mut self) -> Option<HostMessage> {
        self.ready = true;
        self.dispatch()
    }

    /// Whether the worker is ready for jobs.
    pub fn is_ready(&self) -> bool {
        self.ready
    }

    /// The job inside the worker now, if any.
    pub fn in_flight(&self) -> Option<RunId> {
        self.in_flight.as_ref().map(|(id, _)| *id)
    }

    /// The timeout of the run inside the worker, if it is a run and has one.
    pub fn in_flight_timeout_ms(&self) -> Option<u32> {
        match &self.in_flight {
            Some((_, Job::Run(request))) => request.timeout_ms,
            Some((_, Job::Replay(_))) => Some(DEFAULT_TIMEOUT_MS),
            _ => None,
        }
    }

    /// Jobs waiting (not counting the one in flight).
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Sessions that have run and not been deleted, by name.
    pub fn sessions(&self) -> Vec<String> {
        self.sessions.iter().cloned().collect()
    }

    /// Takes a job out of the queue before it reaches the worker; false if it is not waiting.
    pub fn cancel_waiting(&mut self, id: RunId) -> bool {
        let before = self.waiting.len();
        self.waiting.retain(|(queued, _)| *queued != id);
        self.waiting.len() != before
    }

    /// Job `id` finished in the worker; `succeeded` is false when the code raised.
    ///
    /// Returns what the caller can now be told, and the next job to post.
    /// A finish for a job that is not in flight is ignored, so a stray or
    /// repeated message cannot start two jobs at once.
    pub fn complete(
        &mut self,
        id: RunId,
        succeeded: bool,
        reason: &str,
    ) -> (Vec<Completion>, Option<HostMessage>) {
        if self.in_flight() != Some(id) {
            return (Vec::new(), None);
        }
        let mut done = Vec::new();
        match self.in_flight.take().map(|(_, job)| job) {
            Some(Job::Run(request)) => {
                if succeeded {
                    let seq = self.new_seq();
                    self.ledger.push(LedgerEntry {
                        seq,
                        session: request.session,
                        code: request.code,
                        packages: request.packages,
                        files: request.files,
                        tests: request.tests,
                    });
                }
                done.push(Completion::Finished(id));
            }
            Some(Job::Clear { session, .. }) => {
                self.ledger.retain(|entry| entry.session != session);
                done.push(Completion::Finished(id));
            }
            Some(Job::Query(_)) => done.push(Completion::Finished(id)),
            Some(Job::Replay(entry)) => {
                if !succeeded {
                    self.lose(&entry, reason);
                }
                done.extend(self.replayed(succeeded));
            }
            None => {}
        }
        (done, self.dispatch())
    }

    /// The worker is being replaced: the job in it will never finish there.
    ///
    /// Queues a replay of the whole ledger ahead of everything else and
    /// returns completions that are due at once (a restore with nothing to
    /// replay). The stopped caller's job completes as [`Completion::Restored`]
    /// when the replay is done. Call [`Scheduler::set_ready`] when the new worker is.
    pub fn restart(&mut self, reason: &str) -> Vec<Completion> {
        self.recovery.get_or_insert_with(Recovery::default);
        let stopped = match self.in_flight.take() {
            Some((id, Job::Run(_))) => Some(id),
            Some((id, Job::Clear { session, .. })) => {
                // The new worker has no state for this session anyway.
                self.ledger.retain(|entry| entry.session != session);
                Some(id)
            }
            Some((_, Job::Replay(entry))) => {
                self.lose(&entry, reason);
                None
            }
            Some((id, Job::Query(_))) => Some(id),
            None => None,
        };
        self.ready = false;
        self.waiting
            .retain(|(_, job)| !matches!(job, Job::Replay(_)));
        let replays: Vec<LedgerEntry> = self.ledger.clone();
        for entry in replays.into_iter().rev() {
            let id = self.new_id();
            self.waiting.push_front((id, Job::Replay(entry)));
        }
        let recovery = self.recovery.get_or_insert_with(Recovery::default);
        recovery.stopped.extend(stopped);
        recovery.remaining = self.ledger.len();
        recovery.restoration.replayed = 0;
        if recovery.remaining == 0 {
            self.finish_recovery()
        } else {
            Vec::new()
        }
    }

    /// The worker is gone for good; returns the ids of every caller's job that will never run.
    pub fn drain(&mut self) -> Vec<RunId> {
        self.ready = false;
        let stopped = self.recovery.take().map(|r| r.stopped).unwrap_or_default();
        self.in_flight
            .take()
            .into_iter()
            .chain(self.waiting.drain(..))
            .filter(|(_, job)| !matches!(job, Job::Replay(_)))
            .map(|(id, _)| id)
            .chain(stopped)
            .collect()
    }

    fn replayed(&mut self, succeeded: bool) -> Vec<Completion> {
        let Some(recovery) = self.recovery.as_mut() else {
            return Vec::new();
        };
        if succeeded {
            recovery.restoration.replayed += 1;
        }
        recovery.remaining = recovery.remaining.saturating_sub(1);
        if recovery.remaining == 0 {
            self.finish_recovery()
        } else {
            Vec::new()
        }
    }

    fn finish_recovery(&mut self) -> Vec<Completion> {
        let Some(recovery) = self.recovery.take() else {
            return Vec::new();
        };
        recovery
            .stopped
            .into_iter()
            .map(|id| Completion::Restored(id, recovery.restoration.clone()))
            .collect()
    }

    /// A ledger entry could not be replayed: drop it so later restores skip it, and report it.
    fn lose(&mut self, entry: &LedgerEntry, reason: &str) {
        self.ledger.retain(|kept| kept.seq != entry.seq);
        if let Some(recovery) = self.recovery.as_mut() {
            recovery.restoration.lost.push(LostRun {
                session: entry.session.clone(),
                code_start: entry.code.lines().next().unwrap_or_default().to_owned(),
                reason: reason.to_owned(),
            });
        }
    }

    fn dispatch(&mut self) -> Option<HostMessage> {
        if !self.ready || self.in_flight.is_some() {
            return None;
        }
        let (id, job) = self.waiting.pop_front()?;
        let message = match &job {
            Job::Run(request) => HostMessage::Run {
                id,
                request: request.clone(),
            },
            Job::Clear { session, .. } => HostMessage::ClearSession {
                id,
                session: session.clone(),
            },
            Job::Query(query) => HostMessage::Query {
                id,
                query: query.clone(),
            },
            Job::Replay(entry) => HostMessage::Run {
                id,
                request: RunRequest {
                    code: entry.code.clone(),
                    session: entry.session.clone(),
                    timeout_ms: Some(DEFAULT_TIMEOUT_MS),
                    files: entry.files.clone(),
                    packages: entry.packages.clone(),
                    figure_format: FigureFormat::Png,
                    limits: REPLAY_LIMITS,
                    tests: entry.tests.clone(),
                },
            },
        };
        self.in_flight = Some((id, job));
        Some(message)
    }

    fn new_id(&mut self) -> RunId {
        self.next_id = self.next_id.wrapping_add(1);
        self.next_id
    }

    fn new_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }
}
