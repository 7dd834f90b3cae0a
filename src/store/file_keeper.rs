//! Keeps each session's files across reloads. After every run it carries out
//! the [`Catalogue`]'s plan: bytes that did not come back with the result
//! are read from Python, then everything is written to browser storage. After
//! a reload it puts the kept files back into each session's directory before
//! any of that session's code runs. Which files, within which limits, is
//! [`crate::store::kept_files`]; the records are [`crate::store`]'s.

use std::collections::VecDeque;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::kept_files::{self, Catalogue, Keeping, KeptFile, Plan, RunFiles, Source};
use super::records::{Kept, Refusal, StoredFile};
use super::save_tracker::SaveTracker;
use super::StorageError;
use crate::app::SharedRuntime;
use crate::protocol::RunResult;
use crate::store;

/// Work on browser storage, done one at a time.
enum Task {
    Save(Plan),
    Forget(String),
}

/// Every session's files and their keeping, shared by the components.
#[derive(Clone, Copy)]
pub struct FileKeeper {
    runtime: SharedRuntime,
    tracker: SaveTracker,
    catalogue: RwSignal<Catalogue>,
    /// Tasks wait here, so they reach storage in the order their runs finished.
    queue: StoredValue<VecDeque<Task>>,
    draining: StoredValue<bool>,
    /// Why files could not be put back into Python after a reload.
    restore_failure: RwSignal<Option<String>>,
}

impl FileKeeper {
    /// Nothing kept yet; writes are counted by `tracker`.
    pub fn new(runtime: SharedRuntime, tracker: SaveTracker) -> Self {
        Self {
            runtime,
            tracker,
            catalogue: RwSignal::new(Catalogue::default()),
            queue: StoredValue::new(VecDeque::new()),
            draining: StoredValue::new(false),
            restore_failure: RwSignal::new(None),
        }
    }

    /// Takes in the files read back from storage, and puts each session's
    /// kept ones back into Python: they are replayed into the session's
    /// worker before its next run (with the session, whenever its worker
    /// is replaced), and no worker starts for them alone.
    pub fn restore(self, files: Vec<StoredFile>) {
        self.catalogue.set(Catalogue::from_saved(&files));
        for (session, inputs) in kept_files::inputs_by_session(files) {
            let pending = self
                .runtime
                .with_value(|runtime| runtime.restore_files(&session, inputs));
            spawn_local(async move {
                if let Err(error) = pending.await {
                    self.restore_failure.set(Some(format!(
                        "The files of session “{session}” could not be put back into Python: {error}"
                    )));
                }
            });
        }
    }

    /// Keeps what run `result` in `session`, sent the files at `inputs`,
    /// left in its working directory.
    pub fn record_run(self, session: &str, inputs: &[String], result: &RunResult) {
        let Some(run) = RunFiles::of(result, inputs) else {
            return;
        };
        let plan = self
            .catalogue
            .try_update_untracked(|catalogue| catalogue.plan(session, &run));
        // A plan with nothing to write or delete changed nothing: the Files
        // panel is not drawn again after every run that left the files alone.
        if let Some(plan) = plan.filter(|p| !p.writes.is_empty() || !p.deletes.is_empty()) {
            self.catalogue.notify();
            self.push(Task::Save(plan));
        }
    }

    /// Drops a session's kept files: it was reset or deleted.
    pub fn forget(self, session: &str) {
        self.catalogue.update(|catalogue| catalogue.forget(session));
        self.push(Task::Forget(session.to_owned()));
    }

    /// A session's files, in path order (reactive).
    pub fn files(self, session: &str) -> Vec<KeptFile> {
        self.catalogue.with(|catalogue| catalogue.files(session))
    }

    /// Why files could not be put back into Python after a reload (reactive).
    pub fn restore_failure(self) -> Option<String> {
        self.restore_failure.get()
    }

    /// A file's bytes, base64: from storage when it is kept (Python may not
    /// be running yet), else from the session's working directory.
    pub async fn content(self, session: String, file: KeptFile) -> Result<String, String> {
        match file.keeping {
            Keeping::Kept => store::read_file(&session, &file.path)
                .await
                .map_err(|error| error.to_string())?
                .ok_or_else(|| format!("{} is no longer kept", file.path)),
            _ => self.read_from_python(&session, &file.path).await,
        }
    }

    async fn read_from_python(self, session: &str, path: &str) -> Result<String, String> {
        let read = self
            .runtime
            .with_value(|runtime| runtime.read_file(session, path));
        read.await
            .map_err(|error| format!("could not read {path} from Python: {error}"))
    }

    /// Queues `task`, and works through the queue unless that is under way.
    fn push(self, task: Task) {
        self.tracker.begin();
        self.queue.update_value(|queue| queue.push_back(task));
        if self.draining.get_value() {
            return;
        }
        self.draining.set_value(true);
        spawn_local(async move {
            while let Some(task) = self.queue.try_update_value(VecDeque::pop_front).flatten() {
                let outcome = match task {
                    Task::Save(plan) => self.save(plan).await,
                    Task::Forget(session) => store::forget_files(&session).await,
                };
                self.tracker.end(outcome);
            }
            self.draining.set_value(false);
        });
    }

    /// Writes a plan's records, then tells the catalogue how each write went.
    async fn save(self, plan: Plan) -> Result<(), StorageError> {
        let mut records = Vec::with_capacity(plan.writes.len());
        let mut ids = Vec::with_capacity(plan.writes.len());
        for write in plan.writes {
            let kept = match write.source {
                Source::Content(content) => Kept::Content(content),
                Source::Python => match self.read_from_python(&plan.session, &write.path).await {
                    Ok(content) => Kept::Content(content.into()),
                    Err(message) => Kept::Refused(Refusal::Failed { message }),
                },
                Source::Refused(refusal) => Kept::Refused(refusal),
            };
            ids.push(write.id);
            records.push(StoredFile {
                session: plan.session.clone(),
                path: write.path,
                size: write.size,
                kept,
            });
        }
        let saved = store::save_files(&plan.session, &records, plan.deletes).await;
        self.catalogue.update(|catalogue| {
            for (record, id) in records.iter().zip(ids) {
                let outcome = match (&saved, &record.kept) {
                    (Err(error), _) => Err(Refusal::Failed {
                        message: error.to_string(),
                    }),
                    (Ok(()), Kept::Content(_)) => Ok(()),
                    (Ok(()), Kept::Refused(refusal)) => Err(refusal.clone()),
                };
                catalogue.settle(&plan.session, &record.path, id, outcome);
            }
        });
        saved
    }
}
