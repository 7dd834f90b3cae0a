//! A run's clock and how it is stopped: its timeout, the interrupt and its
//! repeats, the nudges that stream its output, and replacing a session's
//! worker (terminate and replay) when an interrupt is not enough.

use super::*;

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
        let now_ms = self.now_ms;
        let started = match self.callers.get_mut(&id) {
            Some(Caller::Run(run)) => {
                run.started_ms = Some(now_ms);
                true
            }
            _ => false,
        };
        self.keep_streaming();
        if started {
            self.emit(Effect::Notify(id, RunEvent::Started));
        }
    }

    /// Starts session `name`'s deadline timer for `deadline` (after its
    /// milliseconds), or stops it.
    pub(super) fn set_deadline(&mut self, name: &str, deadline: Option<(Deadline, u32)>) {
        let Some(session) = self.sessions.get_mut(name) else {
            return;
        };
        let Some(worker) = session.worker else {
            session.deadline = None;
            return;
        };
        match deadline {
            Some((deadline, ms)) => {
                session.deadline = Some(deadline);
                self.emit(Effect::StartTimer(Timer::Deadline(worker), ms));
            }
            None => {
                if session.deadline.take().is_some() {
                    self.emit(Effect::CancelTimer(Timer::Deadline(worker)));
                }
            }
        }
    }

    pub(super) fn on_deadline(&mut self, worker: WorkerId) {
        let Some(Role::Session(name)) = self.role(worker) else {
            return;
        };
        let Some(session) = self.sessions.get_mut(&name) else {
            return;
        };
        match session.deadline.take() {
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
        let busy: Vec<WorkerId> = self
            .sessions
            .values()
            .filter(|s| s.scheduler.in_flight().is_some())
            .filter_map(|s| s.worker)
            .collect();
        if busy.is_empty() || !self.interrupts {
            return;
        }
        for worker in busy {
            self.emit(Effect::Nudge(worker));
        }
        self.keep_streaming();
    }

    /// Session `name`'s worker, if it has an interrupt buffer.
    pub(super) fn interruptible(&self, name: &str) -> Option<WorkerId> {
        let worker = self.sessions.get(name)?.worker;
        worker.filter(|_| self.interrupts)
    }

    /// Stops session `name`'s job in flight: by interrupt when possible,
    /// else by ending its worker. Also by ending it when a run waits in the
    /// worker behind it: the interrupt could reach that one instead, if the
    /// first ended just before it was written.
    pub(super) fn stop(&mut self, name: &str, id: RunId, reason: StopReason) {
        if self.in_flight(name) != Some(id) {
            return;
        }
        if let Some(Caller::Run(run)) = self.callers.get_mut(&id) {
            run.stop = Some(reason.clone());
        }
        let behind = self
            .sessions
            .get(name)
            .is_some_and(|s| s.scheduler.ahead().next().is_some());
        let escalate = self.interrupting(name) == Some(id) || behind;
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
    pub(super) fn repeat_interrupt(
        &mut self,
        name: &str,
        id: RunId,
        reason: StopReason,
        left_ms: u32,
    ) {
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
        if let Some(id) = self.in_flight(name) {
            if let Some(Caller::Run(run)) = self.callers.get_mut(&id) {
                run.stop.get_or_insert(reason);
            }
        }
        if let Some(worker) = self.sessions.get(name).and_then(|s| s.worker) {
            self.retire(worker);
        }
        let completions = match self.sessions.get_mut(name) {
            Some(session) => session.scheduler.restart(&reason_text, &mut self.ids),
            None => return,
        };
        self.resolve(completions);
        self.pump(name);
    }
}
