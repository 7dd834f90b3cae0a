//! The user's work across reloads: the workspace (sessions, the current one,
//! each session's code), the history of finished runs, and each session's
//! files (which ones, within which limits: [`crate::kept_files`]).
//!
//! It lives in the page's IndexedDB through `www/storage.js`, which only moves
//! plain objects; the record shapes are defined here. Components call this module
//! and never IndexedDB, and the Python worker is never handed the database.
//! In the browser the records are read field by field ([`crate::reader`]),
//! natively by serde's derive; `tests/reader.rs` checks that both agree.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::bulk::Text;
use crate::js_error;
use crate::kept_files::Refusal;
use crate::protocol::{RunResult, DEFAULT_SESSION};

/// Finished runs kept; the oldest are dropped beyond this. Each result is
/// already capped by the output limits, so this bounds the history's size.
pub const KEPT_RUNS: u32 = 100;

#[wasm_bindgen(module = "/www/storage.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = loadAll)]
    async fn js_load_all() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = saveWorkspace)]
    async fn js_save_workspace(workspace: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = addRun)]
    async fn js_add_run(run: JsValue, keep: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = saveFiles)]
    async fn js_save_files(
        session: &str,
        files: JsValue,
        deletes: Vec<String>,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = forgetFiles)]
    async fn js_forget_files(session: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = readFile)]
    async fn js_read_file(session: &str, path: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = clearAll)]
    async fn js_clear_all() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = estimate)]
    async fn js_estimate() -> Result<JsValue, JsValue>;
}

/// Why saving or loading failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StorageError {
    /// IndexedDB or the storage manager refused (private mode, quota, blocked).
    #[error("browser storage failed: {0}")]
    Browser(String),
    /// A record could not be written.
    #[error("could not read or write a saved record: {0}")]
    Format(String),
}

impl From<JsValue> for StorageError {
    fn from(value: JsValue) -> Self {
        Self::Browser(js_error::message(&value))
    }
}

/// The sessions, the one picked, and the code in the editor for each: what
/// the page looked like, so a reload puts it back.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Workspace {
    /// Session names in the order shown.
    pub sessions: Vec<String>,
    /// The session picked.
    pub current: String,
    /// Each session's editor text.
    pub drafts: BTreeMap<String, String>,
}

impl Workspace {
    /// One session, `session`, with `code` in the editor.
    pub fn new(session: &str, code: &str) -> Self {
        Self {
            sessions: vec![session.to_owned()],
            current: session.to_owned(),
            drafts: BTreeMap::from([(session.to_owned(), code.to_owned())]),
        }
    }

    /// The current session's code (empty when it has none).
    pub fn code(&self) -> &str {
        self.drafts.get(&self.current).map_or("", String::as_str)
    }

    /// Records the editor text of the current session.
    pub fn set_code(&mut self, code: &str) {
        self.drafts.insert(self.current.clone(), code.to_owned());
    }

    /// Makes `session` current and returns its code. A session without code
    /// yet starts with the current text, so switching never empties the editor.
    pub fn switch_to(&mut self, session: &str) -> String {
        let carried = self.code().to_owned();
        self.current = session.to_owned();
        if !self.sessions.iter().any(|s| s == session) {
            self.sessions.push(session.to_owned());
        }
        self.drafts
            .entry(session.to_owned())
            .or_insert(carried)
            .clone()
    }

    /// Takes the session list as shown; code of deleted sessions is dropped.
    pub fn set_sessions(&mut self, sessions: Vec<String>) {
        self.drafts.retain(|name, _| sessions.contains(name));
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
#[derive(Serialize, Debug, Clone, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum StoredOutcome {
    /// With a result (which may be an error, a timeout, ...).
    Finished(Box<RunResult>),
    /// Without one: the runtime failed.
    Failed(String),
}

/// A finished run as the history keeps it.
#[derive(Serialize, Debug, Clone, PartialEq)]
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
#[derive(Serialize, Debug, Clone, PartialEq)]
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
#[derive(Serialize, Debug, Clone, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(rename_all = "snake_case")]
pub enum Kept {
    /// The bytes, base64: the form the protocol carries them in both ways,
    /// so keeping and restoring a file converts nothing (at a third more space).
    Content(Text),
    /// Not kept, for this reason; the record remains so the user is told.
    Refused(Refusal),
}

/// Everything saved, as read back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Saved {
    /// The workspace, unless nothing was saved yet.
    pub workspace: Option<Workspace>,
    /// Finished runs, oldest first.
    pub runs: Vec<StoredRun>,
    /// Every session's files.
    pub files: Vec<StoredFile>,
    /// Records that could not be read (written by another version) and were skipped.
    pub unreadable: usize,
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

/// What `loadAll` returns: records still as JavaScript values, decoded one by one.
#[derive(Deserialize)]
struct RawSaved {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    workspace: JsValue,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    runs: js_sys::Array,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    files: js_sys::Array,
}

/// Reads everything saved.
pub async fn load() -> Result<Saved, StorageError> {
    let raw: RawSaved =
        serde_wasm_bindgen::from_value(js_load_all().await?).map_err(StorageError::format)?;
    let workspace = (!raw.workspace.is_null()).then(|| decode(raw.workspace));
    Ok(Saved::gather(
        workspace,
        raw.runs.iter().map(decode),
        raw.files.iter().map(decode),
    ))
}

/// Replaces the saved workspace.
pub async fn save_workspace(workspace: &Workspace) -> Result<(), StorageError> {
    js_save_workspace(encode(workspace)?).await?;
    Ok(())
}

/// Appends a finished run to the history (keeping the newest [`KEPT_RUNS`]).
pub async fn add_run(run: &StoredRun) -> Result<(), StorageError> {
    js_add_run(encode(run)?, KEPT_RUNS).await?;
    Ok(())
}

/// Writes `files` of `session` and deletes its records at `deletes`, in one transaction.
pub async fn save_files(
    session: &str,
    files: &[StoredFile],
    deletes: Vec<String>,
) -> Result<(), StorageError> {
    js_save_files(session, encode(&files)?, deletes).await?;
    Ok(())
}

/// Deletes every file record of `session`.
pub async fn forget_files(session: &str) -> Result<(), StorageError> {
    js_forget_files(session).await?;
    Ok(())
}

/// A kept file's bytes, base64; `None` when it is not kept.
pub async fn read_file(session: &str, path: &str) -> Result<Option<String>, StorageError> {
    let record: Option<StoredFile> =
        serde_wasm_bindgen::from_value(js_read_file(session, path).await?)
            .map_err(StorageError::format)?;
    Ok(record.and_then(|file| match file.kept {
        Kept::Content(content) => Some(content.to_string()),
        Kept::Refused(_) => None,
    }))
}

/// Deletes the workspace, the history and the files.
pub async fn clear() -> Result<(), StorageError> {
    js_clear_all().await?;
    Ok(())
}

/// How much the origin stores, the offline copy of the app included.
pub async fn usage() -> Result<Usage, StorageError> {
    serde_wasm_bindgen::from_value(js_estimate().await?).map_err(StorageError::format)
}

impl StorageError {
    fn format(error: impl std::fmt::Display) -> Self {
        Self::Format(error.to_string())
    }
}

/// Plain objects, as JSON would give (maps as objects), so IndexedDB stores them as they are.
fn encode(value: &impl Serialize) -> Result<JsValue, StorageError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(StorageError::format)
}

fn decode<T: serde::de::DeserializeOwned>(value: JsValue) -> Option<T> {
    serde_wasm_bindgen::from_value(value).ok()
}
