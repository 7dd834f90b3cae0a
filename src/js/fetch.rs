//! Files of the deployment read as JSON: its config, Pyodide's manifest.

use serde::de::DeserializeOwned;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The file at `path` (relative to the page) as a `T`; the error names the
/// file and says what went wrong, for the page to show as it is.
pub async fn json<T: DeserializeOwned>(path: &str) -> Result<T, String> {
    let failed = |e: JsValue| format!("{path} could not be read: {}", super::error::message(&e));
    // Revalidated every time: a deployment's edit of its config (who may
    // embed the widget, what Python may reach) holds from the next read.
    let init = web_sys::RequestInit::new();
    init.set_cache(web_sys::RequestCache::NoCache);
    let fetched = JsFuture::from(leptos::prelude::window().fetch_with_str_and_init(path, &init))
        .await
        .map_err(failed)?;
    let response: web_sys::Response = fetched.unchecked_into();
    if !response.ok() {
        return Err(format!("{path}: HTTP {}", response.status()));
    }
    let json = JsFuture::from(response.json().map_err(failed)?)
        .await
        .map_err(failed)?;
    serde_wasm_bindgen::from_value(json).map_err(|e| format!("{path} is not valid: {e}"))
}
