//! Turning a thrown JavaScript value into a message, at the boundary.

use wasm_bindgen::{JsCast, JsValue};

/// The message of whatever JavaScript threw: an `Error`'s message, a string
/// as is, anything else as its debug form. Errors reach the user as text, so
/// every binding converts them here rather than passing `JsValue` on.
pub fn message(value: &JsValue) -> String {
    value
        .as_string()
        .or_else(|| value.dyn_ref::<js_sys::Error>().map(|e| e.message().into()))
        .unwrap_or_else(|| format!("{value:?}"))
}
