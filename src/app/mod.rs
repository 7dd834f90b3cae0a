//! The page's state that components and surfaces share: the runtime, and
//! the runs shown with where each is in its life.

pub mod assist;
pub mod drawn;
pub mod launch;

use leptos::prelude::*;

use crate::protocol::{LoadProgress, LoadStage, OutputChunk, RunId, RunResult};
use crate::runtime::{Runtime, RuntimeStatus};

/// Runs the page (or the widget) keeps and shows; the oldest leave it beyond
/// this, and a page's reload brings back this many. Each result is already
/// capped by the output limits, so this bounds the page's memory and how
/// much a new run's frame has to lay out.
pub const KEPT_RUNS: u32 = 100;

/// Finished runs the browser keeps in the history (the page reads the older
/// ones a page at a time, when asked); the oldest are dropped beyond this.
pub const STORED_RUNS: u32 = 1000;

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
    /// Started by the person on this page (the Run button), not by a
    /// caller's tool call: the run list draws it at once.
    pub by_person: bool,
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
pub struct LiveBuffer {
    shown: RwSignal<Vec<OutputChunk>>,
    pending: StoredValue<Vec<OutputChunk>>,
}

impl LiveBuffer {
    pub fn new(shown: RwSignal<Vec<OutputChunk>>) -> Self {
        Self {
            shown,
            pending: StoredValue::new(Vec::new()),
        }
    }

    pub fn push(self, chunk: OutputChunk) {
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
    pub fn clear(self) {
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

/// The editor's code and the session it shows, for what puts code in it
/// (an example, a fix applied): provided by the page, absent from the
/// widget, which has no editor.
#[derive(Clone, Copy)]
pub struct EditorCode {
    /// The text of the session shown.
    pub code: RwSignal<String>,
    /// The session shown.
    pub session: RwSignal<String>,
    /// The sessions there are.
    pub names: RwSignal<Vec<String>>,
}

impl EditorCode {
    /// Shows `session` in the editor (made when there is none of that
    /// name) and, given `text`, puts it in place of the session's code, as
    /// one change the person can undo. Another session's text goes in once
    /// the switch has brought that session's own code back.
    pub fn open(self, session: String, text: Option<String>) {
        if !self.names.with_untracked(|names| names.contains(&session)) {
            self.names.update(|names| names.push(session.clone()));
        }
        if self.session.with_untracked(|shown| *shown == session) {
            if let Some(text) = text {
                self.code.set(text);
            }
            return;
        }
        self.session.set(session);
        if let Some(text) = text {
            request_animation_frame(move || self.code.set(text));
        }
    }
}

/// The runtime, shared by the components that drive it.
pub type SharedRuntime = StoredValue<Runtime, LocalStorage>;

/// The value of `name` in the page's query string (`""` for a bare `?name`).
pub fn query_param(name: &str) -> Option<String> {
    let search = window().location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get(name)
}

/// What each of the runtime's sessions is doing (provided as context by
/// [`start_runtime`]).
#[derive(Clone, Copy)]
pub struct SessionStates(pub ReadSignal<Vec<crate::runtime::supervisor::SessionState>>);

/// Starts Python for the page and provides it to the components; returns
/// its status and the runtime.
pub fn start_runtime() -> (RwSignal<RuntimeStatus>, SharedRuntime) {
    let status = RwSignal::new(RuntimeStatus::Loading(LoadProgress {
        stage: LoadStage::Download,
        loaded: 0,
        total: None,
    }));
    let sessions = RwSignal::new(Vec::new());
    let runtime: SharedRuntime = StoredValue::new_local(Runtime::start(
        move |s| status.set(s),
        move |states| sessions.set(states),
    ));
    provide_context(runtime);
    // As drawn: a session busy and idle again within a moment is not redrawn.
    provide_context(SessionStates(drawn::drawn(
        sessions.read_only(),
        PartialEq::eq,
        |_, _| false,
    )));
    (status, runtime)
}
