//! The gate before Python's worker gets code (`www/worker-gate.js`): the
//! worker's script must come with its own CSP, from the host or, where a
//! static host sends no headers, from the service worker.

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::js::error as js_error;

#[wasm_bindgen(module = "/www/worker-gate.js")]
extern "C" {
    #[wasm_bindgen(js_name = workerCheckedEarly)]
    fn js_worker_checked_early() -> bool;

    #[wasm_bindgen(catch, js_name = workerNeedsServiceWorker)]
    async fn js_worker_needs_service_worker(url: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = waitForServiceWorker)]
    async fn js_wait_for_service_worker(url: &str) -> Result<JsValue, JsValue>;
}

/// Whether index.html's check of the Python worker's script, made as the
/// page started, is in already and found its own CSP.
pub(super) fn checked_early() -> bool {
    js_worker_checked_early()
}

/// Whether the Python worker's script at `url` comes without its own CSP
/// (a static host that sets no headers), so Python must wait for the service
/// worker; an error says why that cannot be told.
pub(super) async fn needs_service_worker(url: &str) -> Result<bool, String> {
    let needs = js_worker_needs_service_worker(url)
        .await
        .map_err(|e| js_error::message(&e))?;
    Ok(needs.as_bool() == Some(true))
}

/// Waits until the service worker controls the page and serves the worker's
/// script with its CSP; an error (why) means Python must not start.
pub(super) async fn wait_for_service_worker(url: &str) -> Result<(), String> {
    js_wait_for_service_worker(url)
        .await
        .map(|_| ())
        .map_err(|e| js_error::message(&e))
}
