//! A run's calls to the embedding page's functions, on their way: from
//! the worker to the run's caller, the caller's answer back to the worker,
//! and the calls a stopped or ended run leaves waiting (see
//! [`crate::runtime::host_calls`] for what bounds them).

use super::Supervisor;
use crate::js::bulk::Text;
use crate::protocol::{HostCallError, HostCallFailure, HostMessage, RunId};
use crate::runtime::events::{Effect, HostCall, RunEvent, WorkerId};
use crate::runtime::host_calls::too_large;

impl Supervisor {
    /// Session `name`'s worker asks for call `call` of run `id`: it goes
    /// to the run's caller, or the worker hears at once why not.
    pub(super) fn on_host_call(&mut self, name: &str, id: RunId, call: HostCall) {
        let Some(worker) = self.sessions.worker(name) else {
            return;
        };
        let admitted = match self.sessions.get(name) {
            _ if self.sessions.in_flight(name) != Some(id) => Err(HostCallError::new(
                HostCallFailure::Refused,
                "the call's run is not the one in progress",
            )),
            Some(session) if session.scheduler.replaying() => Err(HostCallError::new(
                HostCallFailure::Refused,
                "a replay makes no host calls: the session is being rebuilt, and this \
                 run called the page when it first ran, so it stops here",
            )),
            _ if !self.callers.waits(id) => Err(HostCallError::new(
                HostCallFailure::Refused,
                "nobody waits for this run any more",
            )),
            Some(session) => {
                let functions = session.scheduler.in_flight_functions();
                let chars = call.arguments.units();
                self.host_calls
                    .admit(id, worker, call.call, &call.name, functions, chars)
            }
            None => return,
        };
        match admitted {
            Ok(()) => self.emit(Effect::Notify(id, RunEvent::HostCall(call))),
            Err(error) => self.reply_host_call(worker, id, call.call, None, Some(error)),
        }
    }

    /// The caller answered call `call` of run `id`: `value` as JSON text, or `error`.
    pub(super) fn on_host_answer(
        &mut self,
        id: RunId,
        call: u32,
        value: Option<Text>,
        error: Option<HostCallError>,
    ) {
        let Some(worker) = self.host_calls.answered(id, call) else {
            return;
        };
        let oversized = value
            .as_ref()
            .and_then(|value| too_large("value", value.units()).err());
        match oversized {
            Some(error) => self.reply_host_call(worker, id, call, None, Some(error)),
            None => self.reply_host_call(worker, id, call, value, error),
        }
    }

    /// Run `id` is being stopped: its waiting calls end as cancelled, in
    /// the worker (code suspended in one resumes, to meet the interrupt)
    /// and for the caller (whose handlers are told to give up).
    pub(super) fn stop_host_calls(&mut self, id: RunId) {
        let Some((worker, pending)) = self.host_calls.stop(id) else {
            return;
        };
        for call in pending {
            let error = HostCallError::new(HostCallFailure::Cancelled, "the run was stopped");
            self.reply_host_call(worker, id, call, None, Some(error));
            self.emit(Effect::Notify(id, RunEvent::HostCallCancelled(id, call)));
        }
    }

    /// Run `id` ended: the caller need not answer its calls still waiting.
    pub(super) fn end_host_calls(&mut self, id: RunId) {
        for call in self.host_calls.end(id) {
            self.emit(Effect::Notify(id, RunEvent::HostCallCancelled(id, call)));
        }
    }

    fn reply_host_call(
        &mut self,
        worker: WorkerId,
        id: RunId,
        call: u32,
        value: Option<Text>,
        error: Option<HostCallError>,
    ) {
        let reply = HostMessage::HostReply {
            id,
            call,
            value,
            error,
        };
        self.emit(Effect::Post(worker, reply));
    }
}
