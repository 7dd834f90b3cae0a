//! Which run goes to the worker next: plain logic, tested natively.
//!
//! Runs are held on the host rather than posted straight to the worker, so a
//! run submitted while Python is still loading waits here (never dropped),
//! and only one run is ever inside the worker: its timer can start when it
//! really starts, and a worker that must be replaced loses nothing queued.

use std::collections::VecDeque;

use crate::protocol::{HostMessage, RunId, RunRequest};

/// Runs waiting for the worker, in submission order; at most one in flight.
#[derive(Debug, Default)]
pub struct RunQueue {
    ready: bool,
    in_flight: Option<RunId>,
    waiting: VecDeque<(RunId, RunRequest)>,
    next_id: RunId,
}

impl RunQueue {
    /// An empty queue whose worker is not ready yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues a request; returns its id and the message to post now, if the worker is free.
    pub fn submit(&mut self, request: RunRequest) -> (RunId, Option<HostMessage>) {
        self.next_id = self.next_id.wrapping_add(1);
        let id = self.next_id;
        self.waiting.push_back((id, request));
        (id, self.dispatch())
    }

    /// The worker said it is ready; returns the first queued run to post, if any.
    pub fn set_ready(&mut self) -> Option<HostMessage> {
        self.ready = true;
        self.dispatch()
    }

    /// Run `id` finished; returns the next run to post, if any.
    ///
    /// A finish for a run that is not in flight is ignored (returns `None`),
    /// so a stray or repeated message cannot start two runs at once.
    pub fn finish(&mut self, id: RunId) -> Option<HostMessage> {
        if self.in_flight != Some(id) {
            return None;
        }
        self.in_flight = None;
        self.dispatch()
    }

    /// The run inside the worker now, if any.
    pub fn in_flight(&self) -> Option<RunId> {
        self.in_flight
    }

    /// Number of runs waiting (not counting the one in flight).
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Empties the queue (the worker is gone for good); returns the ids that will never run.
    pub fn drain(&mut self) -> Vec<RunId> {
        self.ready = false;
        self.in_flight
            .take()
            .into_iter()
            .chain(self.waiting.drain(..).map(|(id, _)| id))
            .collect()
    }

    fn dispatch(&mut self) -> Option<HostMessage> {
        if !self.ready || self.in_flight.is_some() {
            return None;
        }
        let (id, request) = self.waiting.pop_front()?;
        self.in_flight = Some(id);
        Some(HostMessage::Run { id, request })
    }
}
