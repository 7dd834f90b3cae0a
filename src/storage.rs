//! The user's work across reloads: the workspace (sessions, the current one,
//! each session's code) and the history of finished runs.
//!
//! It lives in the page's IndexedDB through `www/storage.js`, which only moves
//! plain objects; the record shapes are defined here. Components call this module
//! and never IndexedDB, and the Python worker is never handed the database.
//! Files written from Python are not kept yet: they arrive with the files issue.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::js_error;
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
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
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
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum StoredOutcome {
    /// With a result (which may be an error, a timeout, ...).
    Finished(Box<RunResult>),
    /// Without one: the runtime failed.
    Failed(String),
}

/// A finished run as the history keeps it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct StoredRun {
    /// The session it ran in.
    pub session: String,
    /// The code submitted.
    pub code: String,
    /// How it ended.
    pub outcome: StoredOutcome,
}

/// Everything saved, as read back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Saved {
    /// The workspace, unless nothing was saved yet.
    pub workspace: Option<Workspace>,
    /// Finished runs, oldest first.
    pub runs: Vec<StoredRun>,
    /// Records that could not be read (written by another version) and were skipped.
    pub unreadable: usize,
}

impl Saved {
    /// Gathers the records read back; `None` stands for one that could not
    /// be read and is skipped, so one bad record never costs the rest.
    pub fn gather(
        workspace: Option<Option<Workspace>>,
        runs: impl IntoIterator<Item = Option<StoredRun>>,
    ) -> Self {
        let mut unreadable = usize::from(matches!(workspace, Some(None)));
        let workspace = workspace.flatten().map(|mut workspace| {
            workspace.repair();
            workspace
        });
        let runs = runs
            .into_iter()
            .filter_map(|run| {
                unreadable += usize::from(run.is_none());
                run
            })
            .collect();
        Self {
            workspace,
            runs,
            unreadable,
        }
    }
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
}

/// Reads everything saved.
pub async fn load() -> Result<Saved, StorageError> {
    let raw: RawSaved =
        serde_wasm_bindgen::from_value(js_load_all().await?).map_err(StorageError::format)?;
    let workspace = (!raw.workspace.is_null()).then(|| decode(raw.workspace));
    Ok(Saved::gather(workspace, raw.runs.iter().map(decode)))
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

/// Deletes the workspace and the history.
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
