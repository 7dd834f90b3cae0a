//! What a session's worker is handed next: the job at the head of its
//! queue, and the jobs that may wait in the worker behind the one in flight.

use super::{Dispatch, Job, Scheduler};
use crate::protocol::{HostMessage, RunId};

/// How many fresh runs may wait in the worker behind the one in flight:
/// enough that the worker goes on while the host is busy elsewhere for a
/// moment, few enough that a replaced worker sends back little.
const AHEAD: usize = 2;

/// How many replays may wait in the worker behind the one in flight: a
/// replay's message carries its run's input files, so not the whole ledger
/// at once, but enough that the worker never waits for the host between two.
const REPLAYS_AHEAD: usize = 16;

impl Scheduler {
    /// The next thing to do: [`Scheduler::dispatch_with`], fresh runs
    /// allowed to wait in the worker.
    pub fn dispatch(&mut self) -> Option<Dispatch> {
        self.dispatch_with(true)
    }

    /// The next thing to do, if the worker is free: post the job at the head
    /// of the queue (once the worker is ready), or end the worker for a
    /// clear (which needs no worker, so it goes even while one loads).
    /// While a job is in flight, a job that may wait in the worker behind it
    /// goes in: a replay behind a replay, and (when `fresh_ahead`) a fresh
    /// run behind a fresh run.
    pub fn dispatch_with(&mut self, fresh_ahead: bool) -> Option<Dispatch> {
        if let Some((_, running)) = &self.in_flight {
            let behind = match (running, self.waiting.front()) {
                (Job::Replay(_), Some((_, Job::Replay(_)))) => self.ahead.len() < REPLAYS_AHEAD,
                (Job::Run(running), Some((_, Job::Run(next)))) => {
                    fresh_ahead && running.fresh && next.fresh && self.ahead.len() < AHEAD
                }
                _ => false,
            };
            if !behind {
                return None;
            }
            let (id, job) = self.waiting.pop_front()?;
            let message = self.message(id, &job)?;
            self.ahead.push_back((id, job));
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
        let message = self.message(id, &job)?;
        self.in_flight = Some((id, job));
        Some(Dispatch::Post(message))
    }

    /// Whether [`Scheduler::dispatch`] would start a job in an empty worker:
    /// that takes a core, which the session gets in its turn.
    pub fn needs_core(&self) -> bool {
        let head = self.waiting.front();
        self.ready
            && self.in_flight.is_none()
            && head.is_some_and(|(_, job)| !matches!(job, Job::Clear { .. }))
    }

    /// The message that hands job `id` to the worker (none for a clear, which ends it).
    fn message(&self, id: RunId, job: &Job) -> Option<HostMessage> {
        match job {
            Job::Run(request) => Some(HostMessage::Run {
                id,
                request: request.clone(),
            }),
            Job::Query(query) => Some(HostMessage::Query {
                id,
                query: query.clone(),
            }),
            Job::Replay(entry) => Some(HostMessage::Run {
                id,
                request: entry.request(&self.session),
            }),
            Job::Clear { .. } => None,
        }
    }
}
