//! Which files of each session are kept across reloads: plain logic, tested
//! natively.
//!
//! A session's working directory lives in the Python worker's memory and is
//! gone when the page reloads. After every run, the [`Catalogue`] compares
//! what the run left in the directory with what is kept, and plans what to
//! write to browser storage ([`crate::store`], which Python cannot reach),
//! within limits. The page carries the plan out and, after a reload, puts the
//! kept files back into each session's directory. A file that is not kept is
//! never dropped quietly: it carries the [`Refusal`] that says why.

use litemap::LiteMap;

use super::records::{Kept, Refusal, StoredFile, MAX_FILES, MAX_FILE_BYTES, MAX_TOTAL_BYTES};
use crate::js::bulk::Text;
use crate::protocol::{Artifact, FileEntry, InputFile, RunResult};

/// Where a file stands with browser storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keeping {
    /// Being written to browser storage.
    Saving,
    /// In browser storage: it comes back after a reload.
    Kept,
    /// Only in Python's memory, for this reason: gone after a reload.
    NotKept(Refusal),
    /// It was not kept, for this reason, and the page has reloaded since.
    Lost(Refusal),
}

impl Keeping {
    /// Whether browser storage holds (or is getting) the file's bytes.
    fn holds_bytes(&self) -> bool {
        matches!(self, Self::Saving | Self::Kept)
    }
}

/// A session's file as the Files panel shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptFile {
    /// Path relative to the session's working directory.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Whether it survives a reload.
    pub keeping: Keeping,
}

impl KeptFile {
    /// A file `size` bytes long, kept in browser storage.
    pub fn kept(path: &str, size: u64) -> Self {
        Self {
            path: path.to_owned(),
            size,
            keeping: Keeping::Kept,
        }
    }
}

/// One file's record, with the write that last changed it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    size: u64,
    keeping: Keeping,
    write: u64,
}

/// What a finished run says about its session's working directory.
#[derive(Debug, Clone, Copy)]
pub struct RunFiles<'a> {
    listing: &'a [FileEntry],
    artifacts: &'a [Artifact],
    inputs: &'a [String],
}

impl<'a> RunFiles<'a> {
    /// The files of `result`, whose request sent the files at `inputs`;
    /// `None` when the result does not describe the directory (a run
    /// stopped by replacing the worker has no listing, and the files it had
    /// are replayed).
    pub fn of(result: &'a RunResult, inputs: &'a [String]) -> Option<Self> {
        result.restored.is_none().then_some(Self {
            listing: &result.files,
            artifacts: &result.artifacts,
            inputs,
        })
    }

    /// Where the new bytes of `path` are, if the run wrote it: in the result
    /// (created or changed, small enough to come back), else in Python (too
    /// large to come back, or sent with the request and left alone: the
    /// page does not hold on to a run's inputs).
    fn fresh(&self, path: &str) -> Option<Source> {
        match self.artifacts.iter().find(|a| a.path == path) {
            Some(artifact) => Some(
                artifact
                    .content_base64
                    .clone()
                    .map_or(Source::Python, Source::Content),
            ),
            None => self
                .inputs
                .iter()
                .any(|p| p == path)
                .then_some(Source::Python),
        }
    }
}

/// Where a write takes a file's record from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// These bytes, base64.
    Content(Text),
    /// The bytes are read from the session's working directory.
    Python,
    /// No bytes: the file is not kept, for this reason.
    Refused(Refusal),
}

/// A record to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// Path relative to the session's working directory.
    pub path: String,
    /// Size in bytes, as listed.
    pub size: u64,
    /// Identifies this write to [`Catalogue::settle`].
    pub id: u64,
    /// What to write.
    pub source: Source,
}

/// What to change in browser storage after one run, in one go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The session.
    pub session: String,
    /// Records to write.
    pub writes: Vec<Write>,
    /// Paths no longer in the working directory.
    pub deletes: Vec<String>,
}

/// What the limits leave for one more file.
struct Budget {
    bytes: u64,
    files: usize,
}

impl Budget {
    /// Counts a file in, unless a limit refuses it.
    fn take(&mut self, size: u64) -> Result<(), Refusal> {
        if size > MAX_FILE_BYTES {
            Err(Refusal::TooLarge)
        } else if self.files >= MAX_FILES {
            Err(Refusal::TooMany)
        } else if self.bytes + size > MAX_TOTAL_BYTES {
            Err(Refusal::NoRoom)
        } else {
            self.bytes += size;
            self.files += 1;
            Ok(())
        }
    }
}

/// Every session's files and where each stands with browser storage.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalogue {
    sessions: LiteMap<String, LiteMap<String, Entry>>,
    writes: u64,
}

impl Catalogue {
    /// The files read back from browser storage: kept ones, and those that
    /// were not kept and are now lost.
    pub fn from_saved(files: &[StoredFile]) -> Self {
        let mut catalogue = Self::default();
        for file in files {
            let keeping = match &file.kept {
                Kept::Content(_) => Keeping::Kept,
                Kept::Refused(refusal) => Keeping::Lost(refusal.clone()),
            };
            let entry = Entry {
                size: file.size,
                keeping,
                write: 0,
            };
            catalogue
                .sessions
                .entry(file.session.clone())
                .or_default()
                .insert(file.path.clone(), entry);
        }
        catalogue
    }

    /// A session's files, in path order.
    pub fn files(&self, session: &str) -> Vec<KeptFile> {
        self.sessions
            .get(session)
            .into_iter()
            .flatten()
            .map(|(path, entry)| KeptFile {
                path: path.clone(),
                size: entry.size,
                keeping: entry.keeping.clone(),
            })
            .collect()
    }

    /// Takes in what a run left in `session`'s directory and returns what to write.
    ///
    /// Files kept and left alone stay kept first; new and changed files then
    /// get the room that is left, in path order, so a new file never pushes
    /// out one that was kept. Files the run did not write but that are not
    /// stored yet (written from another session, or refused earlier for lack
    /// of room) are read from Python.
    pub fn plan(&mut self, session: &str, run: &RunFiles) -> Plan {
        let previous = self.sessions.remove(session).unwrap_or_default();
        let mut budget = self.budget();
        let deletes = previous
            .keys()
            .filter(|path| !run.listing.iter().any(|f| &f.path == *path))
            .cloned()
            .collect();
        let (unchanged, changed): (Vec<_>, Vec<_>) = run
            .listing
            .iter()
            .map(|file| (file, run.fresh(&file.path)))
            .partition(|(file, fresh)| {
                fresh.is_none()
                    && previous
                        .get(&file.path)
                        .is_some_and(|e| e.size == file.size && e.keeping.holds_bytes())
            });
        let mut entries = LiteMap::new();
        let mut writes = Vec::new();
        for (file, fresh) in unchanged.into_iter().chain(changed) {
            let before = previous.get(&file.path);
            let same = before.filter(|e| e.size == file.size && fresh.is_none());
            let entry = match (budget.take(file.size), same) {
                (Ok(()), Some(entry)) if entry.keeping.holds_bytes() => entry.clone(),
                (Err(refusal), Some(entry))
                    if entry.keeping == Keeping::NotKept(refusal.clone()) =>
                {
                    entry.clone()
                }
                (kept, _) => {
                    let (source, keeping) = match kept {
                        Ok(()) => (fresh.unwrap_or(Source::Python), Keeping::Saving),
                        Err(refusal) => {
                            (Source::Refused(refusal.clone()), Keeping::NotKept(refusal))
                        }
                    };
                    self.writes += 1;
                    writes.push(Write {
                        path: file.path.clone(),
                        size: file.size,
                        id: self.writes,
                        source,
                    });
                    Entry {
                        size: file.size,
                        keeping,
                        write: self.writes,
                    }
                }
            };
            entries.insert(file.path.clone(), entry);
        }
        if !entries.is_empty() {
            self.sessions.insert(session.to_owned(), entries);
        }
        Plan {
            session: session.to_owned(),
            writes,
            deletes,
        }
    }

    /// Write `id` of `session`'s `path` is done: the file is kept, or not
    /// for `refusal`. A write that a later run has superseded changes nothing.
    pub fn settle(&mut self, session: &str, path: &str, id: u64, outcome: Result<(), Refusal>) {
        let entry = self
            .sessions
            .get_mut(session)
            .and_then(|files| files.get_mut(path))
            .filter(|entry| entry.write == id && entry.keeping == Keeping::Saving);
        if let Some(entry) = entry {
            entry.keeping = match outcome {
                Ok(()) => Keeping::Kept,
                Err(refusal) => Keeping::NotKept(refusal),
            };
        }
    }

    /// Drops a session's files (reset or deleted).
    pub fn forget(&mut self, session: &str) {
        self.sessions.remove(session);
    }

    /// What the limits leave, given every file kept or being saved.
    fn budget(&self) -> Budget {
        let kept = self
            .sessions
            .values()
            .flat_map(LiteMap::values)
            .filter(|entry| entry.keeping.holds_bytes());
        let (bytes, files) = kept.fold((0, 0), |(bytes, files), entry| {
            (bytes + entry.size, files + 1)
        });
        Budget { bytes, files }
    }
}

/// The kept files of each session, as the input files that put them back
/// into its working directory.
pub fn inputs_by_session(files: Vec<StoredFile>) -> LiteMap<String, Vec<InputFile>> {
    let mut sessions: LiteMap<String, Vec<InputFile>> = LiteMap::new();
    for file in files {
        if let Kept::Content(content_base64) = file.kept {
            sessions.entry(file.session).or_default().push(InputFile {
                path: file.path,
                content_base64: content_base64.to_string(),
            });
        }
    }
    sessions
}
