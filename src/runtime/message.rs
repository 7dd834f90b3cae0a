//! Reading the worker's messages: serde's derive, straight from the JS
//! object (see [`crate::protocol`] for why the messages are externally tagged).

use wasm_bindgen::JsValue;

use crate::protocol::WorkerMessage;

/// Reads a message from the worker.
pub(super) fn decode(data: JsValue) -> Result<WorkerMessage, serde_wasm_bindgen::Error> {
    serde_wasm_bindgen::from_value(data)
}
