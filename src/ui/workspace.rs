//! Keeps the user's work across reloads: puts back the saved sessions, code,
//! run history and files when the page starts, then saves the workspace on
//! every change and each run when it finishes. Storage itself is
//! [`crate::storage`]; files are kept by [`FileKeeper`].

use leptos::logging::warn;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::file_keeper::FileKeeper;
use super::{RunEntry, RunPhase, SharedRuntime};
use crate::protocol::RunId;
use crate::storage::{self, StorageError, StoredOutcome, StoredRun, Workspace};

/// The page's state that is saved, as signals the components share.
#[derive(Clone, Copy)]
pub struct PageState {
    /// The editor text.
    pub code: RwSignal<String>,
    /// The session picked.
    pub session: RwSignal<String>,
    /// The sessions shown.
    pub names: RwSignal<Vec<String>>,
    /// Runs shown, oldest first.
    pub runs: RwSignal<Vec<RunEntry>>,
}

/// Writes to browser storage under way, and why the last one failed: what
/// [`SaveState`] shows, for the workspace, the history and the files alike.
#[derive(Clone, Copy)]
pub struct SaveTracker {
    pending: RwSignal<u32>,
    failure: RwSignal<Option<String>>,
}

impl SaveTracker {
    /// Nothing pending, nothing failed.
    fn new() -> Self {
        Self {
            pending: RwSignal::new(0),
            failure: RwSignal::new(None),
        }
    }

    /// Runs `write` in the background, pending until it ends.
    pub fn save(
        self,
        write: impl std::future::Future<Output = Result<(), StorageError>> + 'static,
    ) {
        self.begin();
        spawn_local(async move { self.end(write.await) });
    }

    /// A write is pending from now (for writes that wait in a queue first).
    pub fn begin(self) {
        self.pending.update(|n| *n += 1);
    }

    /// A write counted by [`SaveTracker::begin`] has ended.
    pub fn end(self, outcome: Result<(), StorageError>) {
        match outcome {
            Ok(()) => self.failure.set(None),
            Err(error) => self.failed(&error),
        }
        self.pending.update(|n| *n = n.saturating_sub(1));
    }

    /// Storage trouble is shown next to the editor and logged as a warning:
    /// the page keeps working, only without saving.
    fn failed(self, error: &StorageError) {
        warn!("sandpit: {error}");
        self.failure.set(Some(error.to_string()));
    }
}

/// Restores and saves a [`PageState`] and the sessions' files.
#[derive(Clone, Copy)]
pub struct Persistence {
    restored: RwSignal<bool>,
    tracker: SaveTracker,
    workspace: StoredValue<Workspace>,
    files: FileKeeper,
}

impl Persistence {
    /// Loads what was saved into `page`, and the files back into `runtime`
    /// (the page shows the editor once that is done, see
    /// [`Persistence::restored`]), then saves every change.
    pub fn start(page: PageState, runtime: SharedRuntime) -> Self {
        let workspace = page.session.with_untracked(|session| {
            page.code
                .with_untracked(|code| Workspace::new(session, code))
        });
        let tracker = SaveTracker::new();
        let files = FileKeeper::new(runtime, tracker);
        let this = Self {
            restored: RwSignal::new(false),
            tracker,
            workspace: StoredValue::new(workspace),
            files,
        };
        spawn_local(async move {
            match storage::load().await {
                Ok(saved) => {
                    if saved.unreadable > 0 {
                        warn!(
                            "sandpit: skipped {} saved record(s) from another version",
                            saved.unreadable
                        );
                    }
                    if let Some(workspace) = saved.workspace {
                        page.names.set(workspace.sessions.clone());
                        page.session.set(workspace.current.clone());
                        page.code.set(workspace.code().to_owned());
                        this.workspace.set_value(workspace);
                    }
                    page.runs.set(
                        saved
                            .runs
                            .into_iter()
                            .enumerate()
                            .map(earlier_entry)
                            .collect(),
                    );
                    this.files.restore(saved.files);
                }
                Err(error) => this.tracker.failed(&error),
            }
            this.restored.set(true);
        });
        this.save_changes(page);
        this
    }

    /// True once the saved work is back in the page.
    pub fn restored(self) -> bool {
        self.restored.get()
    }

    /// The sessions' files.
    pub fn files(self) -> FileKeeper {
        self.files
    }

    /// Saves `entry` to the history once it has finished, and keeps the
    /// files its run left.
    pub fn record_run(self, entry: &RunEntry) {
        let outcome = match entry.phase.get_untracked() {
            RunPhase::Finished(result) => {
                let (session, inputs) = (entry.session.get_value(), entry.inputs.get_value());
                self.files.record_run(&session, &inputs, &result);
                StoredOutcome::Finished(result)
            }
            RunPhase::Failed(message) => StoredOutcome::Failed(message),
            // Still queued, loading or running: saved when it finishes.
            _ => return,
        };
        let run = StoredRun {
            session: entry.session.get_value(),
            code: entry.code.get_value(),
            outcome,
        };
        self.tracker
            .save(async move { storage::add_run(&run).await });
    }

    /// The session list, the current session and its code are saved whenever
    /// they change; switching sessions swaps in that session's code.
    fn save_changes(self, page: PageState) {
        Effect::new(move |_| {
            let current = page.session.get();
            let sessions = page.names.get();
            if !self.restored.get() {
                return;
            }
            let switched = self.workspace.try_update_value(|workspace| {
                let code = (workspace.current != current).then(|| workspace.switch_to(&current));
                workspace.set_sessions(sessions);
                code
            });
            if let Some(code) = switched.flatten() {
                page.code.set(code);
            }
            self.save_workspace();
        });
        Effect::new(move |_| {
            let code = page.code.get();
            if !self.restored.get() {
                return;
            }
            self.workspace
                .update_value(|workspace| workspace.set_code(&code));
            self.save_workspace();
        });
    }

    fn save_workspace(self) {
        let workspace = self.workspace.get_value();
        self.tracker
            .save(async move { storage::save_workspace(&workspace).await });
    }
}

/// A run from an earlier visit, shown as it ended.
fn earlier_entry((seq, run): (usize, StoredRun)) -> RunEntry {
    let owner = Owner::new();
    owner.with(|| RunEntry {
        seq,
        id: RunId::default(),
        code: StoredValue::new(run.code),
        session: StoredValue::new(run.session),
        inputs: StoredValue::new(Vec::new()),
        phase: RwSignal::new(match run.outcome {
            StoredOutcome::Finished(result) => RunPhase::Finished(result),
            StoredOutcome::Failed(message) => RunPhase::Failed(message),
        }),
        live: RwSignal::new(Vec::new()),
        earlier: true,
        owner: owner.clone(),
    })
}

/// "Saved", "Saving…" or why the work is not being saved.
#[component]
pub fn SaveState(persistence: Persistence) -> impl IntoView {
    let tracker = persistence.tracker;
    let state = move || match (tracker.failure.get(), tracker.pending.get()) {
        (Some(_), _) => "failed",
        (None, 0) => "saved",
        (None, _) => "saving",
    };
    let text = move || match tracker.failure.get() {
        Some(error) => format!("Not saved: {error}"),
        None if tracker.pending.get() > 0 => "Saving…".to_owned(),
        None => "Saved in this browser".to_owned(),
    };
    view! {
        <span class="save-state" data-testid="save-state" data-state=state>
            {text}
        </span>
    }
}
