//! The page: an editor, the runs so far, and a status line.
//!
//! Components only wire signals to the runtime client; they never see the worker.

mod editor;
mod run_view;
mod status_line;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::protocol::{LoadStage, OutputChunk, RunRequest, RunResult};
use crate::runtime::{RunEvent, Runtime, RuntimeStatus};
use editor::Editor;
use run_view::RunView;
use status_line::StatusLine;

/// Code shown on first load, so the Run button does something useful at once.
const EXAMPLE: &str =
    "import sys\nprint(f\"Hello from Python {sys.version.split()[0]}\")\nsum(range(10))\n";

/// Where one run is in its life.
#[derive(Debug, Clone, PartialEq)]
pub enum RunPhase {
    /// Waiting for Python to load or for the previous run.
    Queued,
    /// Executing since `started_ms` (page clock).
    Running {
        /// `performance.now()` when the run started.
        started_ms: f64,
    },
    /// Finished with a result.
    Finished(Box<RunResult>),
    /// No result: the runtime failed.
    Failed(String),
}

/// One submitted run as the page shows it.
#[derive(Debug, Clone, Copy)]
pub struct RunEntry {
    /// Position in submission order, used as the list key.
    pub seq: usize,
    /// The code submitted.
    pub code: StoredValue<String>,
    /// Where it is.
    pub phase: RwSignal<RunPhase>,
    /// Output streamed while it runs.
    pub live: RwSignal<Vec<OutputChunk>>,
}

/// Milliseconds on the page clock.
fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    let status = RwSignal::new(RuntimeStatus::Loading {
        stage: LoadStage::Download,
        loaded: 0,
        total: None,
    });
    let runtime = match Runtime::start(move |s| status.set(s)) {
        Ok(runtime) => Some(runtime),
        Err(error) => {
            status.set(RuntimeStatus::Failed {
                message: error.to_string(),
            });
            None
        }
    };
    let runtime = StoredValue::new_local(runtime);
    let code = RwSignal::new(EXAMPLE.to_owned());
    let runs = RwSignal::new(Vec::<RunEntry>::new());

    let submit = move || {
        let entry = RunEntry {
            seq: runs.with_untracked(Vec::len),
            code: StoredValue::new(code.get_untracked()),
            phase: RwSignal::new(RunPhase::Queued),
            live: RwSignal::new(Vec::new()),
        };
        runs.update(|r| r.push(entry));
        let request = RunRequest::new(entry.code.get_value());
        let pending = runtime.with_value(|runtime| {
            runtime.as_ref().map(|runtime| {
                runtime.run(request, move |event| match event {
                    RunEvent::Started => entry.phase.set(RunPhase::Running {
                        started_ms: now_ms(),
                    }),
                    RunEvent::Output(chunk) => entry.live.update(|l| l.push(chunk)),
                })
            })
        });
        let Some(pending) = pending else {
            entry
                .phase
                .set(RunPhase::Failed("Python is not available".into()));
            return;
        };
        spawn_local(async move {
            entry.phase.set(match pending.await {
                Ok(result) => RunPhase::Finished(result),
                Err(error) => RunPhase::Failed(error.to_string()),
            });
        });
    };

    view! {
        <main class="app">
            <header class="app-header">
                <h1>"Sandpit"</h1>
                <span class="tagline">"Python in your browser, nothing leaves the page"</span>
            </header>
            <Editor code on_run=submit />
            <StatusLine status runs />
            <section class="runs" data-testid="runs">
                <For
                    each=move || runs.get()
                    key=|entry| entry.seq
                    children=move |entry| view! { <RunView entry /> }
                />
            </section>
        </main>
    }
}
