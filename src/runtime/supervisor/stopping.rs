//! A run's clock and how it is stopped: its timeout, the interrupt and its
//! repeats, the nudges that stream its output, cancelling, and replacing a
//! session's worker (terminate and replay) when an interrupt is not enough.

use super::sessions::{Cancelling, Deadline};
use super::workers::Role;
use super::{Supervisor, INTERRUPT_GRACE_MS, INTERRUPT_REPEAT_MS, NUDGE_MS};
use crate::protocol::RunId;
use crate::runtime::events::{Effect, RunEvent, Timer, WorkerId};
use crate::runtime::outcome::StopReason;

impl Supervisor {
    /// Run `id` of session `name` is in Python's hands: its timeout starts (again) in full.
    pub(super) fn start_clock(&mut self, name: &str, id: RunId) {
        let Some(session) = self.sessions.get(name) else {
            return;
        };
        if session.scheduler.in_flight() != Some(id) {
            return;
        }
        // A run stopped while its packages loaded keeps the interrupt's repeats.
        if session.interrupting != Some(id) {
            let timeout = session.scheduler.in_flight_timeout_ms();
            self.set_deadline(
                name,
                timeout.map(|limit| (Deadline::Timeout { id, limit }, limit)),
            );
        }
        let started = self.callers.start(id, self.now_ms);
        self.keep_streaming();
        if started {
            self.emit(Effect::Notify(id, RunEvent::Started));
        }
    }

    /// Starts session `name`'s deadline timer for `deadline` (after its
    /// milliseconds), or stops it.
    pub(super) fn set_deadline(&mut self, name: &str, deadline: Option<(Deadline, u32)>) {
        if let Some(session) = self.sessions.get_mut(name) {
            session.set_deadline(deadline, &mut self.effects);
        }
    }

    pub(super) fn on_deadline(&mut self, worker: WorkerId) {
        let Some(Role::Session(name)) = self.workers.role(worker) else {
            return;
        };
        let Some(session) = self.sessions.get_mut(&name) else {
            return;
        };
        match session.take_deadline() {
            Some(Deadline::Timeout { id, limit }) => {
                self.stop(&name, id, StopReason::Timeout(limit))
            }
            Some(Deadline::Interrupt {
                id,
                reason,
                left_ms,
            }) => {
                let still =
                    session.interrupting == Some(id) && session.scheduler.in_flight() == Some(id);
                if !still {
                    return;
                }
                match self.interruptible(&name).filter(|_| left_ms > 0) {
                    Some(worker) => {
                        self.emit(Effect::Interrupt(worker));
                        self.repeat_interrupt(&name, id, reason, left_ms);
                    }
                    None => self.restart(&name, reason),
                }
            }
            None => {}
        }
    }

    /// While runs are in Python's hands, nudges each every [`NUDGE_MS`] to
    /// stream the output it holds. Only where runs can be interrupted: the
    /// nudge travels through the interrupt buffer, and without one the
    /// runner sends every line at once anyway. One timer serves every
    /// session and runs that follow each other (it stops at the first tick
    /// that finds none in flight).
    pub(super) fn keep_streaming(&mut self) {
        if self.nudging || !self.interrupts {
            return;
        }
        self.nudging = true;
        self.emit(Effect::StartTimer(Timer::Nudge, NUDGE_MS));
    }

    pub(super) fn on_nudge(&mut self) {
        if !self.nudging {
            return;
        }
        self.nudging = false;
        let busy = self.sessions.busy_workers();
        if busy.is_empty() || !self.interrupts {
            return;
        }
        for worker in busy {
            self.emit(Effect::Nudge(worker));
        }
        self.keep_streaming();
    }

    /// Session `name`'s worker, if it has an interrupt buffer.
    fn interruptible(&self, name: &str) -> Option<WorkerId> {
        let worker = self.sessions.worker(name);
        worker.filter(|_| self.interrupts)
    }

    /// Stops run `id`: a queued run never starts, a running one is stopped.
    /// A fresh run waiting in its worker is answered at once, as a queued
    /// one is; the worker still runs it, and nothing of it stays.
    pub(super) fn cancel(&mut self, id: RunId) {
        match self.sessions.cancel(id) {
            Cancelling::Queued => self.callers.cancelled(id, &mut self.effects),
            Cancelling::InFlight(name) => self.stop(&name, id, StopReason::Cancelled),
            Cancelling::Gone => {}
        }
    }

    /// Stops session `name`'s job in flight: by interrupt when possible,
    /// else by ending its worker. Also by ending it when a run waits in the
    /// worker behind it: the interrupt could reach that one instead, if the
    /// first ended just before it was written.
    pub(super) fn stop(&mut self, name: &str, id: RunId, reason: StopReason) {
        if self.sessions.in_flight(name) != Some(id) {
            return;
        }
        self.callers.stopping(id, reason.clone());
        self.stop_host_calls(id);
        let behind = self
            .sessions
            .get(name)
            .is_some_and(|s| s.scheduler.ahead().next().is_some());
        let escalate = self.sessions.interrupting(name) == Some(id) || behind;
        match self.interruptible(name).filter(|_| !escalate) {
            Some(worker) => {
                self.emit(Effect::Interrupt(worker));
                if let Some(session) = self.sessions.get_mut(name) {
                    session.interrupting = Some(id);
                }
                self.repeat_interrupt(name, id, reason, INTERRUPT_GRACE_MS);
            }
            None => self.restart(name, reason),
        }
    }

    /// While run `id` has not stopped, writes its interrupt again every
    /// [`INTERRUPT_REPEAT_MS`]; once `left_ms` are used up, terminates it.
    fn repeat_interrupt(&mut self, name: &str, id: RunId, reason: StopReason, left_ms: u32) {
        let wait = left_ms.min(INTERRUPT_REPEAT_MS);
        let left_ms = left_ms - wait;
        let deadline = Deadline::Interrupt {
            id,
            reason,
            left_ms,
        };
        self.set_deadline(name, Some((deadline, wait)));
    }

    /// Ends session `name`'s worker and queues its ledger for replay into
    /// its next one (the spare when there is one), which it asks for now.
    pub(super) fn restart(&mut self, name: &str, reason: StopReason) {
        let reason_text = match &reason {
            StopReason::Timeout(_) => "timed out while being replayed".to_owned(),
            StopReason::Cancelled => "cancelled while being replayed".to_owned(),
            StopReason::Crashed(detail) | StopReason::MemoryLimit(_, detail) => {
                format!("crashed while being replayed: {detail}")
            }
        };
        if let Some(id) = self.sessions.in_flight(name) {
            self.end_host_calls(id);
            self.callers.ended(id, reason);
        }
        if let Some(worker) = self.sessions.worker(name) {
            self.retire(worker);
        }
        let Some(completions) = self.sessions.restart(name, &reason_text) else {
            return;
        };
        self.callers
            .resolve(completions, self.now_ms, &mut self.effects);
        self.pump(name);
    }
}
