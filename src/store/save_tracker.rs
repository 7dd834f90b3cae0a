//! Writes to browser storage under way, and why the last one failed.

use leptos::logging::warn;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::StorageError;

/// Writes to browser storage under way, and why the last one failed: what
/// [`SaveState`] shows, for the workspace, the history and the files alike.
#[derive(Clone, Copy)]
pub struct SaveTracker {
    pending: RwSignal<u32>,
    failure: RwSignal<Option<String>>,
}

impl Default for SaveTracker {
    /// Nothing pending, nothing failed.
    fn default() -> Self {
        Self {
            pending: RwSignal::new(0),
            failure: RwSignal::new(None),
        }
    }
}

impl SaveTracker {
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
    pub fn failed(self, error: &StorageError) {
        warn!("sandpit: {error}");
        self.failure.set(Some(error.to_string()));
    }

    /// Writes under way.
    pub fn pending(self) -> u32 {
        self.pending.get()
    }

    /// Why the last write failed, if it did.
    pub fn failure(self) -> Option<String> {
        self.failure.get()
    }
}
