//! The installable, offline app as the page sees it: the service worker's
//! state (offline copy ready, a new version waiting) and the browser's
//! install prompt, through `www/pwa.js`.
//!
//! The service worker itself is `www/sw.js`; this is only the page's side.
//! The Python worker's wait for it is the runtime's (`runtime::gate`).

use serde::Deserialize;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::js::error as js_error;

#[wasm_bindgen(module = "/www/pwa.js")]
extern "C" {
    type Subscription;

    #[wasm_bindgen(catch)]
    fn subscribe(on_change: &js_sys::Function) -> Result<Subscription, JsValue>;

    #[wasm_bindgen(method)]
    fn stop(this: &Subscription);

    #[wasm_bindgen(catch, js_name = installOfflineCopy)]
    fn js_install_offline_copy() -> Result<(), JsValue>;

    #[wasm_bindgen(catch, js_name = firstResult)]
    fn js_first_result() -> Result<(), JsValue>;

    #[wasm_bindgen(catch, js_name = applyUpdate)]
    fn js_apply_update() -> Result<(), JsValue>;

    #[wasm_bindgen(catch, js_name = retryInstall)]
    fn js_retry_install() -> Result<(), JsValue>;

    #[wasm_bindgen(catch, js_name = promptInstall)]
    async fn js_prompt_install() -> Result<JsValue, JsValue>;
}

/// Why talking to the service worker or the install prompt failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PwaError {
    /// The browser refused.
    #[error("{0}")]
    Browser(String),
}

impl From<JsValue> for PwaError {
    fn from(value: JsValue) -> Self {
        Self::Browser(js_error::message(&value))
    }
}

/// Whether a new version of the app is waiting.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum UpdateState {
    /// This is the newest version known.
    #[default]
    None,
    /// A new version is downloaded and checked; it takes over on "Reload to update".
    Ready,
    /// Another tab switched to a new version; this page still runs the old code.
    Activated,
    /// A new version failed to download or check; this one keeps working.
    Failed,
}

/// Everything the page shows about the offline app.
#[derive(Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct PwaState {
    /// The browser has service workers (not in some private modes, not on plain http).
    pub supported: bool,
    /// The whole app is kept (the bundled wheels too): it starts and runs offline.
    pub offline_ready: bool,
    /// Whether a new version is waiting.
    pub update: UpdateState,
    /// The browser offers installation (its prompt was kept for the Install button).
    pub installable: bool,
    /// The version the service worker serves (derived from the files' hashes).
    pub version: Option<String>,
    /// Bytes of the app kept for offline use.
    pub cached_bytes: Option<f64>,
    /// Why the service worker could not be registered.
    pub error: Option<String>,
    /// Why the first offline copy could not be installed.
    pub install_error: Option<String>,
    /// The first offline copy's download, while it is under way.
    pub install_progress: Option<InstallProgress>,
    /// The size of the start-up snapshot this browser keeps (Python's memory
    /// after start-up, which the next start restores), if it keeps one.
    pub snapshot_bytes: Option<f64>,
}

/// How much of the offline copy is downloaded and checked.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Default)]
pub struct InstallProgress {
    /// Bytes done.
    pub done: f64,
    /// Bytes in all.
    pub total: f64,
}

impl PwaState {
    /// Whether the browser's install prompt can give a working app: it
    /// offers installation and the app is kept for offline use.
    pub fn can_install(&self) -> bool {
        self.installable && self.offline_ready
    }
}

/// Receives [`PwaState`] changes until dropped.
pub struct PwaWatch {
    subscription: Subscription,
    _on_change: Closure<dyn FnMut(JsValue)>,
}

impl PwaWatch {
    /// Calls `on_change` now and on every change. States that do not parse
    /// (a glue bug) are logged and skipped.
    pub fn start(mut on_change: impl FnMut(PwaState) + 'static) -> Result<Self, PwaError> {
        let on_change = Closure::<dyn FnMut(JsValue)>::new(move |value: JsValue| {
            match serde_wasm_bindgen::from_value(value) {
                Ok(state) => on_change(state),
                Err(error) => leptos::logging::warn!("sandpit: unexpected PWA state: {error}"),
            }
        });
        let subscription = subscribe(on_change.as_ref().unchecked_ref())?;
        Ok(Self {
            subscription,
            _on_change: on_change,
        })
    }
}

impl Drop for PwaWatch {
    fn drop(&mut self) {
        self.subscription.stop();
    }
}

/// Registers the service worker, which installs the offline copy (once;
/// later calls do nothing). Called when Python has started: see `www/pwa.js`.
pub fn install_offline_copy() -> Result<(), PwaError> {
    js_install_offline_copy().map_err(PwaError::from)
}

/// Says the page's first run is over: the rest of the offline copy (the
/// bundled wheels) downloads now, when the page is idle, not before.
pub fn first_result() -> Result<(), PwaError> {
    js_first_result().map_err(PwaError::from)
}

/// Tries installing the offline copy again after a failed install.
pub fn retry_install() -> Result<(), PwaError> {
    js_retry_install().map_err(PwaError::from)
}

/// Lets the waiting version take over; the page reloads once it has.
pub fn apply_update() -> Result<(), PwaError> {
    js_apply_update().map_err(PwaError::from)
}

/// Shows the browser's install prompt; true when the user accepted.
pub async fn prompt_install() -> Result<bool, PwaError> {
    Ok(js_prompt_install().await?.as_bool() == Some(true))
}
