//! Carries out tool calls (from the embedding page or a browser agent)
//! against the page's runtime. Runs show in the page's run list like any
//! other, so a person watching sees what the model ran.

use std::future::Future;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::app::launch::launch;
use crate::app::{RunEntry, RunPhase, SharedRuntime};
use crate::mcp::ToolOutcome;
use crate::protocol::RunId;
use crate::runtime::RunEvent;
use crate::store::workspace::Persistence;
use crate::tools::{SessionReset, ToolCall};

/// The runtime and run list tool calls use.
#[derive(Clone, Copy)]
pub struct ToolHost {
    /// The page's runtime.
    pub runtime: SharedRuntime,
    /// The page's run list.
    pub runs: RwSignal<Vec<RunEntry>>,
    /// Whether the run list is on screen (a headless widget's is not).
    pub shown: bool,
    /// Keeps finished runs and the sessions' files across reloads, where the page does.
    pub persistence: Option<Persistence>,
}

impl ToolHost {
    /// Starts `call`; `on_event` hears a run's progress and output as they happen.
    /// Returns the run's id when the call is a run (to cancel it), and the outcome.
    pub fn start(
        self,
        call: ToolCall,
        on_event: impl Fn(&RunEvent) + 'static,
    ) -> (Option<RunId>, impl Future<Output = ToolOutcome>) {
        let mut run_id = None;
        let work: std::pin::Pin<Box<dyn Future<Output = ToolOutcome>>> = match call {
            ToolCall::RunPython(request) => {
                let session = request.session.clone();
                // A fresh run leaves nothing in its session to keep.
                let persistence = self.persistence.filter(|_| !request.fresh);
                let (entry, finished) = launch(
                    self.runtime,
                    self.runs,
                    request,
                    false,
                    self.shown,
                    on_event,
                );
                run_id = Some(entry.id);
                Box::pin(async move {
                    finished.await;
                    if let Some(persistence) = persistence {
                        // Kept once the caller has its answer: the answer goes
                        // out in this turn, and storing need not come first.
                        let entry = entry.clone();
                        spawn_local(async move { persistence.record_run(&entry) });
                    }
                    match entry.phase.get_untracked() {
                        RunPhase::Finished(result) => ToolOutcome::Ran { session, result },
                        RunPhase::Failed(message) => ToolOutcome::Failed(message),
                        // Not reached: a run's `finished` resolves once it has one of those.
                        _ => ToolOutcome::Failed("the run ended without a result".to_owned()),
                    }
                })
            }
            ToolCall::CheckPython { code } => {
                let checked = self.runtime.with_value(|runtime| runtime.check(&code));
                Box::pin(async move {
                    match checked.await {
                        Ok(report) => ToolOutcome::Checked(report),
                        Err(error) => ToolOutcome::Failed(error.to_string()),
                    }
                })
            }
            ToolCall::ResetSession { session } => {
                if let Some(persistence) = self.persistence {
                    persistence.files().forget(&session);
                }
                let cleared = self
                    .runtime
                    .with_value(|runtime| runtime.clear_session(&session, false));
                Box::pin(async move {
                    match cleared.await {
                        Ok(()) => ToolOutcome::Reset(SessionReset { session }),
                        Err(error) => ToolOutcome::Failed(error.to_string()),
                    }
                })
            }
        };
        (run_id, work)
    }

    /// What each session is doing.
    pub fn session_states(self) -> Vec<crate::runtime::supervisor::SessionState> {
        self.runtime.with_value(|runtime| runtime.session_states())
    }

    /// How many sessions the runtime runs at once.
    pub fn max_workers(self) -> u32 {
        self.runtime.with_value(|runtime| runtime.limits().running)
    }

    /// Stops run `id` (a caller cancelled its tool call).
    pub fn cancel(self, id: RunId) {
        self.runtime.with_value(|runtime| runtime.cancel(id));
    }

    /// Answers call `call` of run `run` (a [`RunEvent::HostCall`]).
    pub fn answer_host_call(
        self,
        run: RunId,
        call: u32,
        answer: Result<crate::js::bulk::Text, crate::protocol::HostCallError>,
    ) {
        self.runtime
            .with_value(|runtime| runtime.answer_host_call(run, call, answer));
    }

    /// Reads a file of a session, base64.
    pub fn read_file(
        self,
        session: &str,
        path: &str,
    ) -> impl Future<Output = Result<String, String>> {
        let read = self
            .runtime
            .with_value(|runtime| runtime.read_file(session, path));
        async move { read.await.map_err(|error| error.to_string()) }
    }
}
