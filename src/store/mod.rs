//! The user's work across reloads: the workspace (sessions, the current one,
//! each session's code), the history of finished runs, and each session's
//! files (which ones, within which limits: [`crate::store::kept_files`]).
//!
//! It lives in the page's IndexedDB through `www/storage.js`, which only moves
//! plain objects; the record shapes are defined here. Components call this module
//! and never IndexedDB, and the Python worker is never handed the database.
//! In the browser the records are read field by field ([`crate::js::reader`]),
//! natively by serde's derive; `tests/reader.rs` checks that both agree.

pub mod conversations;
pub mod file_keeper;
pub mod kept_files;
pub mod model_settings;
pub mod records;
pub mod save_tracker;
pub mod workspace;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::app::{KEPT_RUNS, STORED_RUNS};
use crate::js::error as js_error;
use records::{HistoryPage, Kept, Saved, StoredFile, StoredRun, Usage, Workspace};

#[wasm_bindgen(module = "/www/storage.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = loadAll)]
    async fn js_load_all(run_limit: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = historyPage)]
    async fn js_history_page(before: Option<f64>, limit: u32) -> Result<JsValue, JsValue>;
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
    #[wasm_bindgen(catch, js_name = loadConversations)]
    async fn js_load_conversations() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = saveConversation)]
    async fn js_save_conversation(session: &str, conversation: JsValue)
        -> Result<JsValue, JsValue>;
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

/// What `loadAll` returns: records still as JavaScript values, decoded one by one.
#[derive(Deserialize)]
struct RawSaved {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    workspace: JsValue,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    runs: js_sys::Array,
    #[serde(rename = "storedRuns")]
    stored_runs: u32,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    files: js_sys::Array,
}

/// What `historyPage` returns: each run with its key, still as a JavaScript value.
#[derive(Deserialize)]
struct RawHistoryPage {
    runs: Vec<RawKeyedRun>,
    older: u32,
}

#[derive(Deserialize)]
struct RawKeyedRun {
    key: f64,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    run: JsValue,
}

/// Reads everything saved but the older runs: the page shows the newest
/// [`KEPT_RUNS`]; [`history_page`] reads the rest.
pub async fn load() -> Result<Saved, StorageError> {
    let raw: RawSaved = serde_wasm_bindgen::from_value(js_load_all(KEPT_RUNS).await?)
        .map_err(StorageError::format)?;
    let workspace = (!raw.workspace.is_null()).then(|| decode(raw.workspace));
    Ok(Saved {
        stored_runs: raw.stored_runs,
        ..Saved::gather(
            workspace,
            raw.runs.iter().map(decode),
            raw.files.iter().map(decode),
        )
    })
}

/// The newest `limit` runs of the history before key `before` (from the
/// newest when `None`), newest first; runs another version wrote that
/// cannot be read are left out.
pub async fn history_page(before: Option<f64>, limit: u32) -> Result<HistoryPage, StorageError> {
    let raw: RawHistoryPage = serde_wasm_bindgen::from_value(js_history_page(before, limit).await?)
        .map_err(StorageError::format)?;
    Ok(HistoryPage {
        runs: raw
            .runs
            .into_iter()
            .filter_map(|keyed| Some((keyed.key, decode(keyed.run)?)))
            .collect(),
        older: raw.older,
    })
}

/// Replaces the saved workspace.
pub async fn save_workspace(workspace: &Workspace) -> Result<(), StorageError> {
    js_save_workspace(encode(workspace)?).await?;
    Ok(())
}

/// Appends a finished run to the history (keeping the newest [`STORED_RUNS`]).
pub async fn add_run(run: &StoredRun) -> Result<(), StorageError> {
    js_add_run(encode(run)?, STORED_RUNS).await?;
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
