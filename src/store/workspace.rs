//! Keeps the user's work across reloads: puts back the saved sessions, code,
//! run history and files when the page starts, then saves the workspace on
//! every change and each run when it finishes. Storage itself is
//! [`crate::store`]; files are kept by [`FileKeeper`].

use leptos::logging::warn;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::file_keeper::FileKeeper;
use super::records::{HistoryPage, StoredOutcome, StoredRun, Workspace};
use super::save_tracker::SaveTracker;
use crate::app::{RunEntry, RunPhase, SharedRuntime, STORED_RUNS};
use crate::protocol::RunId;
use crate::store;

/// The page's state that is saved, as signals the components share.
#[derive(Clone, Copy)]
pub struct PageState {
    /// The editor text.
    pub code: RwSignal<String>,
    /// The cursor in it (UTF-16 code units, as the editor counts).
    pub cursor: RwSignal<u32>,
    /// The session picked.
    pub session: RwSignal<String>,
    /// The sessions shown.
    pub names: RwSignal<Vec<String>>,
    /// Runs shown, oldest first.
    pub runs: RwSignal<Vec<RunEntry>>,
}

/// Restores and saves a [`PageState`] and the sessions' files.
#[derive(Clone, Copy)]
pub struct Persistence {
    page: PageState,
    restored: RwSignal<bool>,
    stored_runs: RwSignal<u32>,
    tracker: SaveTracker,
    workspace: StoredValue<Workspace>,
    files: FileKeeper,
}

impl Persistence {
    /// Its writes under way and their failures, for [`crate::ui::SaveState`].
    pub fn tracker(self) -> SaveTracker {
        self.tracker
    }

    /// Loads what was saved into `page`, and the files back into `runtime`
    /// (the page shows the editor once that is done, see
    /// [`Persistence::restored`]), then saves every change.
    pub fn start(page: PageState, runtime: SharedRuntime) -> Self {
        let workspace = page.session.with_untracked(|session| {
            page.code
                .with_untracked(|code| Workspace::new(session, code))
        });
        let tracker = SaveTracker::default();
        let files = FileKeeper::new(runtime, tracker);
        let this = Self {
            page,
            restored: RwSignal::new(false),
            stored_runs: RwSignal::new(0),
            tracker,
            workspace: StoredValue::new(workspace),
            files,
        };
        spawn_local(async move {
            match store::load().await {
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
                        page.cursor.set(workspace.cursor());
                        page.code.set(workspace.code().to_owned());
                        this.workspace.set_value(workspace);
                    }
                    this.stored_runs.set(saved.stored_runs);
                    page.runs.set(
                        saved
                            .runs
                            .into_iter()
                            .enumerate()
                            .map(|(seq, run)| earlier_entry(seq, run))
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

    /// How many finished runs the history holds (the page shows the newest).
    pub fn stored_runs(self) -> ReadSignal<u32> {
        self.stored_runs.read_only()
    }

    /// A page of the history, newest first: the newest `limit` runs before
    /// key `before` (from the newest when `None`).
    pub async fn history_page(
        self,
        before: Option<f64>,
        limit: u32,
    ) -> Result<HistoryPage, store::StorageError> {
        store::history_page(before, limit).await
    }

    /// What the editor reports: `session`'s text (when it changed) and
    /// cursor. The current session's go to the page's signals (and so are
    /// saved); a session already left (typing reported late) is saved as it is.
    pub fn edited(self, session: &str, code: Option<String>, cursor: u32) {
        if self
            .page
            .session
            .with_untracked(|current| current == session)
        {
            self.page.cursor.set(cursor);
            if let Some(code) = code {
                self.page.code.set(code);
            }
            return;
        }
        self.workspace.update_value(|workspace| {
            if let Some(code) = &code {
                workspace.set_draft(session, code);
            }
            workspace.set_cursor(session, cursor);
        });
        self.save_workspace();
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
        self.tracker.save(async move { store::add_run(&run).await });
        self.stored_runs
            .update(|stored| *stored = (*stored + 1).min(STORED_RUNS));
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
                page.cursor
                    .set(self.workspace.with_value(Workspace::cursor));
                page.code.set(code);
            }
            self.save_workspace();
        });
        Effect::new(move |_| {
            let cursor = page.cursor.get();
            if !self.restored.get() {
                return;
            }
            let session = page.session.get_untracked();
            self.workspace
                .update_value(|workspace| workspace.set_cursor(&session, cursor));
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
            .save(async move { store::save_workspace(&workspace).await });
    }
}

/// A run from an earlier visit (or read from the history), shown as it ended.
pub fn earlier_entry(seq: usize, run: StoredRun) -> RunEntry {
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
        by_person: false,
        owner: owner.clone(),
    })
}
