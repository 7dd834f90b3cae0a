//! Turning a thrown JavaScript value into a message, at the boundary.

use wasm_bindgen::{JsCast, JsValue};

/// The message of whatever JavaScript threw: an `Error`'s message, a string
/// as is, anything else as JSON (or a phrase saying so, when it has none).
/// Errors reach the user as text, so every binding converts them here rather
/// than passing `JsValue` on.
pub fn message(value: &JsValue) -> String {
    value
        .as_string()
        .or_else(|| value.dyn_ref::<js_sys::Error>().map(|e| e.message().into()))
        .or_else(|| js_sys::JSON::stringify(value).ok()?.as_string())
        .unwrap_or_else(|| "a JavaScript value that cannot be shown as text".to_owned())
}
