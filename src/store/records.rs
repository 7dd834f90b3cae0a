//! The records the user's work is kept as in browser storage: the
//! workspace, finished runs and session files, and why a file is not kept.
//! Plain data, tested natively; reading and writing them is [`super`]'s.

use litemap::LiteMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::format;
use crate::js::bulk::Text;
use crate::js::reader::FromSource;
use crate::protocol::{RunResult, DEFAULT_SESSION};

/// Largest file kept. A larger one still works until the page is reloaded.
pub const MAX_FILE_BYTES: u64 = 16_000_000;
/// Bytes kept for all sessions together. Every session's files go back into
/// Python as the input files of one run, so this stays within the default
/// input limit (a test says so).
pub const MAX_TOTAL_BYTES: u64 = 32_000_000;
/// Files kept for all sessions together.
pub const MAX_FILES: usize = 200;

/// Why a file is not kept across reloads.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case", try_from = "StoredRefusal")]
pub enum Refusal {
    /// Larger than [`MAX_FILE_BYTES`].
    TooLarge,
    /// Keeping it would pass [`MAX_TOTAL_BYTES`].
    NoRoom,
    /// [`MAX_FILES`] are kept already.
    TooMany,
    /// Its bytes could not be read from Python or written to browser storage.
    Failed {
        /// What went wrong.
        message: String,
    },
}

/// A [`Refusal`] as stored, `{"kind": "failed", "message": ...}`, read as a
/// plain struct: serde reads an internally tagged enum through a buffer of
/// its own, a large piece of code for this one small record.
#[derive(Deserialize)]
struct StoredRefusal {
    kind: RefusalKind,
    message: Option<String>,
}

/// [`Refusal`]'s variants, as its `kind` names them.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum RefusalKind {
    TooLarge,
    NoRoom,
    TooMany,
    Failed,
}

impl TryFrom<StoredRefusal> for Refusal {
    type Error = &'static str;

    fn try_from(stored: StoredRefusal) -> Result<Self, Self::Error> {
        Ok(match (stored.kind, stored.message) {
            (RefusalKind::TooLarge, _) => Self::TooLarge,
            (RefusalKind::NoRoom, _) => Self::NoRoom,
            (RefusalKind::TooMany, _) => Self::TooMany,
            (RefusalKind::Failed, Some(message)) => Self::Failed { message },
            (RefusalKind::Failed, None) => return Err("missing field `message`"),
        })
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLarge => write!(
                f,
                "larger than the {} kept per file",
                format::bytes(MAX_FILE_BYTES)
            ),
            Self::NoRoom => write!(
                f,
                "the {} kept for files of all sessions is full",
                format::bytes(MAX_TOTAL_BYTES)
            ),
            Self::TooMany => write!(f, "{MAX_FILES} files are kept already"),
            Self::Failed { message } => f.write_str(message),
        }
    }
}

/// The sessions, the one picked, and the code in the editor for each with
/// its cursor: what the page looked like, so a reload puts it back.
#[derive(Serialize, Debug, Clone, PartialEq, FromSource)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Workspace {
    /// Session names in the order shown.
    pub sessions: Vec<String>,
    /// The session picked.
    pub current: String,
    /// Each session's editor text.
    pub drafts: LiteMap<String, String>,
    /// Each session's cursor in its text (in UTF-16 code units, as the
    /// editor counts); a session without one starts at the top.
    #[serde(default)]
    pub cursors: Cursors,
}

/// The editor's cursor per session. Records written before cursors were
/// kept have none: read as empty.
#[derive(Serialize, Debug, Clone, PartialEq, Default, FromSource)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(transparent)]
pub struct Cursors(pub LiteMap<String, u32>);

impl Workspace {
    /// One session, `session`, with `code` in the editor.
    pub fn new(session: &str, code: &str) -> Self {
        Self {
            sessions: vec![session.to_owned()],
            current: session.to_owned(),
            drafts: LiteMap::from_iter([(session.to_owned(), code.to_owned())]),
            cursors: Cursors::default(),
        }
    }

    /// The current session's code (empty when it has none).
    pub fn code(&self) -> &str {
        self.drafts.get(&self.current).map_or("", String::as_str)
    }

    /// Records the editor text of the current session.
    pub fn set_code(&mut self, code: &str) {
        self.set_draft(&self.current.clone(), code);
    }

    /// Records the editor text of `session`, current or not (the editor
    /// may report a session's last typing after it was left).
    pub fn set_draft(&mut self, session: &str, code: &str) {
        if self.sessions.iter().any(|s| s == session) {
            self.drafts.insert(session.to_owned(), code.to_owned());
        }
    }

    /// The current session's cursor (0 when it has none).
    pub fn cursor(&self) -> u32 {
        self.cursors.0.get(&self.current).copied().unwrap_or(0)
    }

    /// Records `session`'s cursor.
    pub fn set_cursor(&mut self, session: &str, cursor: u32) {
        if self.sessions.iter().any(|s| s == session) {
            self.cursors.0.insert(session.to_owned(), cursor);
        }
    }

    /// Makes `session` current and returns its code. A session without code
    /// yet starts with the current text and cursor, so switching never
    /// empties the editor.
    pub fn switch_to(&mut self, session: &str) -> String {
        let carried = self.code().to_owned();
        let cursor = self.cursor();
        self.current = session.to_owned();
        if !self.sessions.iter().any(|s| s == session) {
            self.sessions.push(session.to_owned());
        }
        self.cursors.0.entry(session.to_owned()).or_insert(cursor);
        self.drafts
            .entry(session.to_owned())
            .or_insert(carried)
            .clone()
    }

    /// Takes the session list as shown; code of deleted sessions is dropped.
    pub fn set_sessions(&mut self, sessions: Vec<String>) {
        self.drafts.retain(|name, _| sessions.contains(name));
        self.cursors.0.retain(|name, _| sessions.contains(name));
        self.sessions = sessions;
        self.repair();
    }

    /// At least one session, and the current one among them: a record written
    /// by another tab or an older version may not say so.
    fn repair(&mut self) {
        if self.sessions.is_empty() {
            self.sessions.push(DEFAULT_SESSION.to_owned());
        }
        if !self.sessions.contains(&self.current) {
            self.current = self.sessions[0].clone();
        }
    }
}

/// How a saved run ended.
#[derive(Serialize, Debug, Clone, PartialEq, FromSource)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum StoredOutcome {
    /// With a result (which may be an error, a timeout, ...).
    Finished(Box<RunResult>),
    /// Without one: the runtime failed.
    Failed(String),
}

/// A finished run as the history keeps it.
#[derive(Serialize, Debug, Clone, PartialEq, FromSource)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct StoredRun {
    /// The session it ran in.
    pub session: String,
    /// The code submitted.
    pub code: String,
    /// How it ended.
    pub outcome: StoredOutcome,
}

/// A file of a session's working directory as kept across reloads.
#[derive(Serialize, Debug, Clone, PartialEq, FromSource)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct StoredFile {
    /// The session.
    pub session: String,
    /// Path relative to its working directory.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Its bytes, or why they are not kept.
    pub kept: Kept,
}

/// A stored file's bytes, or why there are none.
#[derive(Serialize, Debug, Clone, PartialEq, FromSource)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum Kept {
    /// The bytes, base64: the form the protocol carries them in both ways,
    /// so keeping and restoring a file converts nothing (at a third more space).
    Content(Text),
    /// Not kept, for this reason; the record remains so the user is told.
    Refused(Refusal),
}

// Read by serde in the browser too (see crate::js::reader).
crate::js::reader::read_by_serde!(Refusal);

crate::js::reader::deserialize_by_hand!(StoredRun, StoredFile, Workspace);

/// Everything saved, as read back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Saved {
    /// The workspace, unless nothing was saved yet.
    pub workspace: Option<Workspace>,
    /// The newest finished runs, oldest first.
    pub runs: Vec<StoredRun>,
    /// How many runs the history holds in all (the older ones are read a page at a time).
    pub stored_runs: u32,
    /// Every session's files.
    pub files: Vec<StoredFile>,
    /// Records that could not be read (written by another version) and were skipped.
    pub unreadable: usize,
}

/// A page of the run history, newest first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HistoryPage {
    /// Each run with its key in the history (the next page starts before the last key).
    pub runs: Vec<(f64, StoredRun)>,
    /// How many runs are older than these.
    pub older: u32,
}

impl Saved {
    /// Gathers the records read back; `None` stands for one that could not
    /// be read and is skipped, so one bad record never costs the rest.
    pub fn gather(
        workspace: Option<Option<Workspace>>,
        runs: impl IntoIterator<Item = Option<StoredRun>>,
        files: impl IntoIterator<Item = Option<StoredFile>>,
    ) -> Self {
        let mut unreadable = usize::from(matches!(workspace, Some(None)));
        let workspace = workspace.flatten().map(|mut workspace| {
            workspace.repair();
            workspace
        });
        let runs = readable(runs, &mut unreadable);
        let files = readable(files, &mut unreadable);
        Self {
            workspace,
            runs,
            stored_runs: 0,
            files,
            unreadable,
        }
    }
}

/// The records that could be read, counting the others into `unreadable`.
fn readable<T>(records: impl IntoIterator<Item = Option<T>>, unreadable: &mut usize) -> Vec<T> {
    records
        .into_iter()
        .filter_map(|record| {
            *unreadable += usize::from(record.is_none());
            record
        })
        .collect()
}

/// Storage used by the whole origin, in bytes.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Bytes used in all.
    pub usage: f64,
    /// Bytes the browser allows.
    pub quota: f64,
    /// Bytes in Cache Storage (the offline copy of the app), where the browser says.
    pub caches: Option<f64>,
    /// Bytes in IndexedDB (the user's work), where the browser says.
    pub indexed_db: Option<f64>,
}
