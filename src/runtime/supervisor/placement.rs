//! Where each session's jobs go: a session with a job to start and
//! nothing in its worker waits in line; sessions in line get workers
//! (the spare, a new worker while the memory budget has room, else the
//! worker of a session that is parked) and cores (as many sessions run at
//! once as there are cores), first come first served, so turns go round.

use super::parking;
use super::sessions::{ParkedFor, Turn};
use super::workers::{Role, Stage};
use super::Supervisor;
use crate::protocol::HostMessage;
use crate::runtime::events::{Effect, RuntimeError, Start, WorkerId};
use crate::runtime::scheduler::Dispatch;

impl Supervisor {
    /// Moves session `name`'s queue along without starting a job in an
    /// empty worker (that waits for its turn in line): posts what may wait
    /// in the worker behind the job in flight, ends its worker for a clear,
    /// and puts it in line when it has a job to start.
    pub(super) fn pump(&mut self, name: &str) {
        self.pump_turn(name, false);
    }

    /// [`Supervisor::pump`]; `granted`: its turn has come, so the job at the
    /// head of its queue may start in its worker.
    fn pump_turn(&mut self, name: &str, mut granted: bool) {
        loop {
            // A batch's fresh runs wait in the worker behind each other only
            // while no other session waits for a core: turns go a call each.
            let fresh_ahead = !self.sessions.others_wait_for_core(name);
            let Some(session) = self.sessions.get_mut(name) else {
                return;
            };
            if session.scheduler.needs_core() && !granted {
                break;
            }
            match session.scheduler.dispatch_with(fresh_ahead) {
                Some(Dispatch::Post(mut message)) => {
                    let Some(worker) = session.worker else {
                        return;
                    };
                    granted = false;
                    if let HostMessage::Run { request, .. } = &mut message {
                        request
                            .memory_limit_bytes
                            .get_or_insert(self.limits.memory_bytes);
                    }
                    let run = match &message {
                        HostMessage::Run { id, .. } => Some(*id),
                        _ => None,
                    };
                    self.emit(Effect::Post(worker, message));
                    // Python takes a run as soon as it arrives; only loading
                    // packages (`loading_packages` to `started`) stops the clock.
                    if let Some(id) = run {
                        self.start_clock(name, id);
                    }
                }
                Some(Dispatch::Reset { id, forget }) => {
                    if let Some(worker) = session.worker {
                        self.retire(worker);
                    }
                    if forget {
                        self.sessions.entry(name, self.now_ms).listed = false;
                    }
                    self.callers.done(id, &mut self.effects);
                }
                None => break,
            }
        }
        self.sessions.line_up(name);
    }

    /// Gives the sessions in line what they wait for: first workers, then
    /// cores.
    pub(super) fn schedule(&mut self) {
        self.give_workers();
        self.give_cores();
    }

    /// Gives the sessions in line without a worker one, first come first
    /// served: the spare (even while it loads), else a new worker while the
    /// memory budget has room, else the worker of a session that is parked
    /// for it (see [`parking::for_waiting`]). A session
    /// that waits for a parking not due yet arms
    /// [`crate::runtime::events::Timer::Pool`].
    fn give_workers(&mut self) {
        for name in self.sessions.line.names() {
            if self.sessions.turn(&name) != Turn::Worker {
                continue;
            }
            if let Some(spare) = self.workers.find(&Role::Spare) {
                self.bind(spare, &name);
                continue;
            }
            if !self.admitted {
                return;
            }
            if self.workers.live() >= self.limits.resident as usize {
                let impatient = self.sessions.line.out_of_patience(&name);
                match parking::for_waiting(&self.sessions, &name, self.now_ms, impatient) {
                    Ok(other) => self.park(&other, ParkedFor::Session(name.clone())),
                    Err(wait_ms) => {
                        self.sessions.arm_pool(wait_ms, &mut self.effects);
                        return;
                    }
                }
            }
            self.spawn(Role::Session(name), Start::Python);
        }
    }

    /// Starts the calls of the sessions in line whose workers are ready,
    /// first come first served, while fewer run than there are cores; none
    /// while a session waiting for a worker is out of patience, but those
    /// that have not yet run a call in their present worker (so that one
    /// can be parked for it).
    fn give_cores(&mut self) {
        let blocked = self.sessions.blocked();
        for name in self.sessions.line.names() {
            if self.sessions.running() >= self.limits.running as usize {
                return;
            }
            let Some(session) = self.sessions.get(&name) else {
                continue;
            };
            if session.turn() != Turn::Core || (blocked && session.ran_in_worker) {
                continue;
            }
            self.sessions.start_turn(&name);
            self.pump_turn(&name, true);
        }
    }

    /// Gives session `name` the spare: it is the session's worker from now on.
    fn bind(&mut self, worker: WorkerId, name: &str) {
        let Some(stage) = self.workers.bind(worker, name) else {
            return;
        };
        self.assign(name, worker);
        if stage == Stage::Ready {
            if let Some(session) = self.sessions.get_mut(name) {
                session.scheduler.set_ready();
            }
            self.pump(name);
        }
    }

    /// Session `name` has `worker` from now on: a new session is noted (the
    /// spares follow how fast sessions are made), and a restore counts its
    /// cost from here.
    fn assign(&mut self, name: &str, worker: WorkerId) {
        let session = self.sessions.entry(name, self.now_ms);
        session.worker = Some(worker);
        session.ran_in_worker = false;
        session.parked_for = None;
        session.scheduler.worker_assigned(self.now_ms);
        if !std::mem::replace(&mut session.had_worker, true) {
            self.background.new_session(self.now_ms);
        }
    }

    /// Ends session `name`'s worker to make room (`for_whom`); its next job
    /// restores it by replay.
    pub(super) fn park(&mut self, name: &str, for_whom: ParkedFor) {
        let Some(worker) = self.sessions.worker(name) else {
            return;
        };
        self.retire(worker);
        // Nothing in its worker: nothing is stopped, so nothing completes.
        self.sessions.restart(name, "");
        if let Some(session) = self.sessions.get_mut(name) {
            session.parked_for = Some(for_whom);
        }
    }

    /// Starts a worker in `role`; a session's is its worker from now on.
    pub(super) fn spawn(&mut self, role: Role, start: Start) -> WorkerId {
        let session = match &role {
            Role::Session(name) => Some(name.clone()),
            _ => None,
        };
        let worker = self.workers.spawn(role, start, &mut self.effects);
        if let Some(name) = session {
            self.assign(&name, worker);
        }
        worker
    }

    /// Ends a worker for good: whatever it says later is ignored. A
    /// session it served is left without one.
    pub(super) fn retire(&mut self, worker: WorkerId) {
        if let Some(slot) = self.workers.remove(worker) {
            if let Role::Session(name) = slot.role() {
                self.set_deadline(name, None);
                if let Some(session) = self.sessions.get_mut(name) {
                    session.worker = None;
                    session.interrupting = None;
                }
            }
        }
        self.emit(Effect::Terminate(worker));
    }

    /// Sends `init` to the early worker once the guard has passed
    /// (`Ok(true)`), else starts a new one in its place; fails the start
    /// when the guard failed. Nothing when it has failed already.
    pub(super) fn admit(&mut self, guarded: Result<bool, RuntimeError>) {
        if self.failure.is_some() {
            return;
        }
        let early = self.workers.early();
        if let (Ok(true), Some((worker, _))) = (&guarded, &early) {
            self.admitted = true;
            self.workers.set_stage(*worker, Stage::Starting);
            self.emit(Effect::Init(*worker));
            return;
        }
        // Created from a script without its CSP (or not created at all), the
        // early worker is replaced.
        if let Some((worker, _)) = &early {
            self.workers.remove(*worker);
        }
        if guarded.is_ok() {
            self.admitted = true;
            match &early {
                Some((_, role)) => {
                    self.spawn(role.clone(), Start::Python);
                }
                None if self.sessions.line.is_empty() && self.workers.live() == 0 => {
                    self.spawn(Role::Spare, Start::Python);
                }
                None => {}
            }
        }
        if let Some((worker, _)) = early {
            self.emit(Effect::Terminate(worker));
        }
        if let Err(error) = guarded {
            self.fail(error.to_string());
        }
    }
}
