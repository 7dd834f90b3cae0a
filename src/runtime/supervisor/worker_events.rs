//! What the workers report (messages, errors, failed starts and posts)
//! and what follows: a worker ready, a job's result or answer handed to
//! its caller and the next job posted, a worker that died replaced, and
//! Python failed for good when no worker ever got ready.

use super::workers::{Role, Stage};
use super::Supervisor;
use crate::format::quoted;
use crate::protocol::{RunId, RunResult, RunStatus, WorkerMessage};
use crate::runtime::events::{
    Effect, HostCall, Log, RunEvent, RuntimeError, RuntimeStatus, WorkerId,
};
use crate::runtime::outcome::StopReason;
use crate::runtime::scheduler::Completion;

impl Supervisor {
    pub(super) fn on_message(&mut self, worker: WorkerId, message: WorkerMessage) {
        let Some(role) = self.workers.role(worker) else {
            // A retired worker's last words.
            return;
        };
        match (role, message) {
            (_, WorkerMessage::Progress(progress)) => {
                if !self.ever_ready {
                    self.emit(Effect::Status(RuntimeStatus::Loading(progress)));
                }
            }
            (Role::Maker, WorkerMessage::SnapshotStored { .. }) => self.maker_finished(None),
            (Role::Maker, WorkerMessage::Fatal { message }) => self.maker_finished(Some(message)),
            // What the maker says besides is not for the app.
            (Role::Maker, _) => {}
            (
                role,
                WorkerMessage::Ready {
                    python,
                    pyodide,
                    snapshot,
                },
            ) => {
                self.workers.set_stage(worker, Stage::Ready);
                if !self.ever_ready {
                    self.ever_ready = true;
                    self.background.first_ready(snapshot.clone());
                    self.emit(Effect::Status(RuntimeStatus::Ready {
                        python,
                        pyodide,
                        interrupts: self.interrupts,
                        snapshot,
                    }));
                }
                if let Role::Session(name) = role {
                    if let Some(session) = self.sessions.get_mut(&name) {
                        session.scheduler.set_ready();
                    }
                    self.pump(&name);
                }
            }
            (_, WorkerMessage::Fatal { message }) => self.on_error(worker, message),
            (Role::Session(name), message) => self.on_session_message(&name, message),
            // Jobs go to session workers only.
            (Role::Spare, _) => {}
        }
    }

    fn on_session_message(&mut self, name: &str, message: WorkerMessage) {
        match message {
            WorkerMessage::PackageProgress {
                id,
                packages,
                loaded,
                total,
            } => {
                let event = RunEvent::Packages {
                    packages,
                    loaded,
                    total,
                };
                self.callers.notify(id, event, &mut self.effects);
            }
            WorkerMessage::LoadingPackages { id } => {
                // Once the run is being stopped, the deadline is the
                // interrupt's grace period, which must keep running.
                let in_flight = self.sessions.in_flight(name) == Some(id);
                if in_flight && self.sessions.interrupting(name) != Some(id) {
                    self.set_deadline(name, None);
                }
                // Which packages is known once their downloads start.
                let packages = RunEvent::Packages {
                    packages: Vec::new(),
                    loaded: 0,
                    total: 0,
                };
                self.callers.notify(id, packages, &mut self.effects);
            }
            WorkerMessage::Started { id } => self.start_clock(name, id),
            WorkerMessage::Stream { id, chunk } => {
                self.callers.wrote(id, chunk, &mut self.effects);
            }
            WorkerMessage::RunFailed {
                id,
                message,
                memory,
            } => {
                if self.sessions.in_flight(name) == Some(id) {
                    let reason = match memory {
                        Some(memory) if memory.limit_reached => {
                            StopReason::MemoryLimit(memory.limit_bytes, message)
                        }
                        _ => StopReason::Crashed(message),
                    };
                    self.restart(name, reason);
                }
            }
            WorkerMessage::Answer { id, answer, error } => {
                if self.sessions.in_flight(name) != Some(id) {
                    return;
                }
                let completions = self.complete(name, id, true, "");
                self.callers.answered(id, answer, error, &mut self.effects);
                self.finish_job(name, completions);
            }
            WorkerMessage::Done { id, result } => self.on_done(name, id, *result),
            WorkerMessage::HostCall {
                id,
                call,
                name: function,
                arguments,
                form: _,
            } => {
                let call = HostCall {
                    run: id,
                    call,
                    name: function,
                    arguments,
                };
                self.on_host_call(name, id, call);
            }
            // Handled for every role in `on_message`, or the maker's alone.
            WorkerMessage::Progress(_)
            | WorkerMessage::Ready { .. }
            | WorkerMessage::Fatal { .. }
            | WorkerMessage::SnapshotStored { .. } => {}
        }
    }

    /// Job `id` of session `name` ended in its worker.
    fn complete(
        &mut self,
        name: &str,
        id: RunId,
        succeeded: bool,
        reason: &str,
    ) -> Vec<Completion> {
        self.set_deadline(name, None);
        self.end_host_calls(id);
        let Some(session) = self.sessions.get_mut(name) else {
            return Vec::new();
        };
        session.interrupting = None;
        let done = session
            .scheduler
            .complete(id, succeeded, reason, self.now_ms);
        // The run that waited in the worker behind it has begun.
        if let Some(next) = self.sessions.in_flight(name) {
            self.start_clock(name, next);
        }
        done
    }

    fn on_done(&mut self, name: &str, id: RunId, result: RunResult) {
        if self.sessions.in_flight(name) != Some(id) {
            return;
        }
        let succeeded = result.status == RunStatus::Ok;
        let reason = result
            .error
            .as_ref()
            .map(|e| format!("{}: {}", e.kind, e.message))
            .unwrap_or_default();
        let completions = self.complete(name, id, succeeded, &reason);
        let sessions = &mut self.sessions;
        let note = || sessions.get_mut(name)?.scheduler.take_note();
        self.callers.finished(id, result, note, &mut self.effects);
        self.finish_job(name, completions);
    }

    /// A job of session `name` has finished: its results go out, the next job goes in.
    fn finish_job(&mut self, name: &str, completions: Vec<Completion>) {
        if let Some(session) = self.sessions.get_mut(name) {
            session.last_used = self.now_ms;
            session.ran_in_worker = true;
        }
        self.callers
            .resolve(completions, self.now_ms, &mut self.effects);
        self.pump(name);
    }

    pub(super) fn on_error(&mut self, worker: WorkerId, message: String) {
        let Some(role) = self.workers.role(worker) else {
            return;
        };
        match role {
            Role::Maker => self.maker_finished(Some(message)),
            _ if !self.ever_ready => self.fail(message),
            Role::Spare => {
                let message = format!("the spare worker failed: {message}");
                self.emit(Effect::Log(Log::Error(message)));
                self.retire(worker);
            }
            Role::Session(name) => {
                if self.workers.stage(worker) == Some(Stage::Ready) {
                    self.restart(&name, StopReason::Crashed(message));
                } else {
                    self.retire(worker);
                    self.start_failed(&name, message);
                }
            }
        }
    }

    pub(super) fn on_post_failed(&mut self, worker: WorkerId, error: RuntimeError) {
        if let Some(Role::Session(name)) = self.workers.role(worker) {
            self.emit(Effect::Log(Log::Error(error.to_string())));
            self.restart(&name, StopReason::Crashed(error.to_string()));
        }
    }

    pub(super) fn on_spawn_failed(&mut self, worker: WorkerId, error: RuntimeError) {
        let Some(slot) = self.workers.remove(worker) else {
            return;
        };
        if let Role::Session(name) = slot.role() {
            if let Some(session) = self.sessions.get_mut(name) {
                session.worker = None;
            }
        }
        match (slot.role().clone(), slot.stage()) {
            // The guard's answer starts another, which reports why.
            (Role::Session(name), Stage::Created) => self.pump(&name),
            (_, Stage::Created) => {}
            (Role::Maker, _) => {
                let message = format!("could not start the snapshot maker: {error}");
                self.emit(Effect::Log(Log::Warning(message)));
            }
            _ if !self.ever_ready => self.fail(error.to_string()),
            (Role::Spare, _) => {
                let message = format!("could not start a spare worker: {error}");
                self.emit(Effect::Log(Log::Error(message)));
            }
            (Role::Session(name), _) => self.start_failed(&name, error.to_string()),
        }
    }

    /// The worker started for session `name` failed before it was ready:
    /// its callers hear why. Its ledger stays for the next worker to replay.
    fn start_failed(&mut self, name: &str, message: String) {
        self.emit(Effect::Log(Log::Error(format!(
            "a worker for session {} could not start: {message}",
            quoted(name)
        ))));
        self.sessions.line.leave(name);
        let failed = match self.sessions.get_mut(name) {
            Some(session) => session.scheduler.fail_callers(),
            None => return,
        };
        self.callers.fail(failed, &message, &mut self.effects);
    }

    /// Python cannot run any more: every waiting job fails with `message`.
    pub(super) fn fail(&mut self, message: String) {
        self.failure = Some(message.clone());
        for worker in self.workers.ids() {
            self.retire(worker);
        }
        let failed = self.sessions.drain();
        self.callers.fail(failed, &message, &mut self.effects);
        self.emit(Effect::Status(RuntimeStatus::Failed { message }));
    }
}
