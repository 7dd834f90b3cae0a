//! The page: sessions, an editor, the runs so far, and a status line.
//!
//! Components only wire signals to the runtime client; they never see the
//! worker, the service worker or IndexedDB.

mod agents;
mod download;
mod editor;
mod file_keeper;
mod files;
mod launch;
mod mcp_session;
mod postmessage;
mod rich;
mod run_list;
mod run_view;
mod sessions;
mod settings;
mod status_line;
mod tool_host;
mod update;
mod widget;
mod workspace;

pub use widget::{is_widget_page, Widget};

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::protocol::{LoadProgress, LoadStage, OutputChunk, RunId, RunResult, DEFAULT_SESSION};
use crate::runtime::{Runtime, RuntimeStatus};
use crate::tools::{RunPythonArgs, ToolFile};
use editor::Editor;
use files::FilesPanel;
use launch::launch;
use run_list::RunList;
use sessions::SessionBar;
use settings::Settings;
use status_line::{Activity, StatusLine};
use tool_host::ToolHost;
use update::{watch_pwa, InstallButton, UpdatePrompt};
use workspace::{PageState, Persistence, SaveState};

/// Code shown on first load, so the Run button does something useful at once.
const EXAMPLE: &str =
    "import sys\nprint(f\"Hello from Python {sys.version.split()[0]}\")\nsum(range(10))\n";

/// Where one run is in its life.
#[derive(Debug, Clone, PartialEq)]
pub enum RunPhase {
    /// Waiting for Python to load or for the previous run.
    Queued,
    /// Downloading the packages its imports need (not counted against its timeout).
    LoadingPackages {
        /// Packages being loaded.
        packages: Vec<String>,
        /// Bytes downloaded so far.
        loaded: u64,
        /// Bytes of the downloads seen so far.
        total: u64,
    },
    /// Executing since `started_ms` (page clock).
    Running {
        /// `performance.now()` when the run started.
        started_ms: f64,
    },
    /// Finished with a result (which may be an error, a timeout, ...).
    Finished(Box<RunResult>),
    /// No result: the runtime failed.
    Failed(String),
}

impl RunPhase {
    /// Whether the run may still be stopped.
    pub fn is_active(&self) -> bool {
        matches!(
            self,
            Self::Queued | Self::LoadingPackages { .. } | Self::Running { .. }
        )
    }
}

/// One submitted run as the page shows it.
///
/// Its signals belong to its own [`Owner`], and are freed when the last
/// copy of the entry is dropped: once it has left the run list and whoever
/// waited for its result is done. Owned by the page instead, every result
/// ever shown would stay in memory for the life of the page, whatever the
/// list keeps.
#[derive(Debug, Clone)]
pub struct RunEntry {
    /// Position in submission order, used as the list key.
    pub seq: usize,
    /// The runtime's id for it, for cancelling.
    pub id: RunId,
    /// The code submitted.
    pub code: StoredValue<String>,
    /// The session it ran in.
    pub session: StoredValue<String>,
    /// Paths of the files sent with it: its result does not report them as
    /// changed, yet they may replace files kept from before.
    pub inputs: StoredValue<Vec<String>>,
    /// Where it is.
    pub phase: RwSignal<RunPhase>,
    /// Output streamed while it runs.
    pub live: RwSignal<Vec<OutputChunk>>,
    /// Restored from an earlier visit: its session's Python state is gone.
    pub earlier: bool,
    /// Owns the signals above.
    pub owner: Owner,
}

/// How long streamed output waits to be drawn (see [`LiveBuffer`]): short
/// enough to read as live.
const LIVE_OUTPUT_DELAY: std::time::Duration = std::time::Duration::from_millis(50);

/// Output streamed by a running run, drawn at an animation frame at least
/// [`LIVE_OUTPUT_DELAY`] after the first output not yet drawn: a flood of
/// small messages costs one re-render per delay, not one per message, and a
/// run that ends within the delay is drawn once, finished, not also while
/// running.
#[derive(Clone, Copy)]
struct LiveBuffer {
    shown: RwSignal<Vec<OutputChunk>>,
    pending: StoredValue<Vec<OutputChunk>>,
}

impl LiveBuffer {
    fn new(shown: RwSignal<Vec<OutputChunk>>) -> Self {
        Self {
            shown,
            pending: StoredValue::new(Vec::new()),
        }
    }

    fn push(self, chunk: OutputChunk) {
        let first = self.pending.with_value(Vec::is_empty);
        self.pending
            .update_value(|pending| chunk.append_to(pending));
        if first {
            set_timeout(
                move || request_animation_frame(move || self.flush()),
                LIVE_OUTPUT_DELAY,
            );
        }
    }

    /// Forgets the streamed output: once a run has finished, its result
    /// holds all of it, and a long history should not keep it twice.
    fn clear(self) {
        self.pending.update_value(Vec::clear);
        self.shown.update(Vec::clear);
    }

    fn flush(self) {
        let pending = self
            .pending
            .try_update_value(std::mem::take)
            .unwrap_or_default();
        // Cleared meanwhile: the run has finished.
        if pending.is_empty() {
            return;
        }
        self.shown.update(|shown| {
            for chunk in pending {
                chunk.append_to(shown);
            }
        });
    }
}

/// The runtime, shared by the components that drive it.
pub type SharedRuntime = StoredValue<Runtime, LocalStorage>;

/// Milliseconds on the page clock.
/// The value of `name` in the page's query string (`""` for a bare `?name`).
fn query_param(name: &str) -> Option<String> {
    let search = window().location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get(name)
}

fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

/// Starts Python for the page and provides it to the components; returns
/// its status and the runtime.
fn start_runtime() -> (RwSignal<RuntimeStatus>, SharedRuntime) {
    let status = RwSignal::new(RuntimeStatus::Loading(LoadProgress {
        stage: LoadStage::Download,
        loaded: 0,
        total: None,
    }));
    let runtime: SharedRuntime = StoredValue::new_local(Runtime::start(move |s| status.set(s)));
    provide_context(runtime);
    (status, runtime)
}

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    let (status, runtime) = start_runtime();
    let code = RwSignal::new(EXAMPLE.to_owned());
    let timeout_s = RwSignal::new(30.0_f64);
    let session = RwSignal::new(DEFAULT_SESSION.to_owned());
    // Packages to preload, per session: every run of that session asks for them.
    // A BTreeMap as the workspace's drafts are: a HashMap with string keys
    // added its own hashing and table code, 1.3 KB gzip of wasm (issue 6).
    let session_packages = RwSignal::new(std::collections::BTreeMap::<String, String>::new());
    let packages = Signal::derive(move || {
        session_packages.with(|all| session.with(|s| all.get(s).cloned().unwrap_or_default()))
    });
    let set_packages = move |text: String| {
        session_packages.update(|all| {
            all.insert(session.get_untracked(), text);
        })
    };
    let names = RwSignal::new(vec![DEFAULT_SESSION.to_owned()]);
    let runs = RwSignal::new(Vec::<RunEntry>::new());
    let attached = RwSignal::new(Vec::new());
    let persistence = Persistence::start(
        PageState {
            code,
            session,
            names,
            runs,
        },
        runtime,
    );
    let files = persistence.files();
    let pwa = watch_pwa(status);
    let relay = agents::offer_tools(ToolHost {
        runtime,
        runs,
        shown: true,
        persistence: Some(persistence),
    });
    // Why the last Run click did not start a run, if it did not.
    let notice = RwSignal::new(None::<String>);

    let submit = move || {
        let files = attached.try_update(std::mem::take).unwrap_or_default();
        let args = RunPythonArgs {
            code: code.get_untracked(),
            session: Some(session.get_untracked()),
            timeout_seconds: Some(timeout_s.get_untracked().max(0.0)),
            files: files.into_iter().map(ToolFile::from).collect(),
            packages: package_list(&packages.get_untracked()),
        };
        let request = match args.into_request() {
            Ok(request) => request,
            Err(reason) => {
                notice.set(Some(reason));
                return;
            }
        };
        notice.set(None);
        let (entry, finished) = launch(runtime, runs, request, true, |_| {});
        spawn_local(async move {
            finished.await;
            persistence.record_run(&entry);
        });
    };

    // Stop the running run, or else the oldest queued one.
    let stop = move || {
        let target = runs.with_untracked(|runs| {
            let active = |e: &&RunEntry| e.phase.with_untracked(RunPhase::is_active);
            let running = runs
                .iter()
                .find(|e| matches!(e.phase.get_untracked(), RunPhase::Running { .. }));
            running.or_else(|| runs.iter().find(active)).map(|e| e.id)
        });
        if let Some(id) = target {
            runtime.with_value(|runtime| runtime.cancel(id));
        }
    };
    let activity = Activity::watch(runs);
    let can_stop = Signal::derive(move || activity.with(|a| a.active));

    view! {
        <main class="app">
            <header class="app-header">
                <h1>"Sandpit"</h1>
                <span class="tagline">"Python in your browser, nothing leaves the page"</span>
                <Show when=move || relay.with(Option::is_some)>
                    {move || {
                        relay
                            .get()
                            .map(|relay| {
                                view! {
                                    <span
                                        class="relay"
                                        data-testid="relay-state"
                                        data-state=relay.state.clone()
                                        title=relay.detail.clone()
                                    >
                                        {format!("Desktop MCP relay: {}", relay.state)}
                                    </span>
                                }
                            })
                    }}
                </Show>
                <InstallButton pwa />
                <Settings pwa />
            </header>
            <UpdatePrompt pwa />
            // The editor appears once the saved work is back, so nothing typed is overwritten.
            <Show when=move || persistence.restored()>
                <SessionBar runtime session names files />
                <Editor code timeout_s packages set_packages on_run=submit on_stop=stop can_stop />
                <Show when=move || notice.with(Option::is_some)>
                    <p class="notice status-error" data-testid="run-notice">
                        {move || notice.get()}
                    </p>
                </Show>
                <FilesPanel attached files session />
                <SaveState persistence />
                <StatusLine status activity />
                <RunList runs />
            </Show>
        </main>
    }
}

/// `"sympy, tabulate"` -> `["sympy", "tabulate"]`.
fn package_list(text: &str) -> Vec<String> {
    text.split([',', ' '])
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}
