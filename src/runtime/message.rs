//! Reading the worker's messages: field by field, straight from the JS
//! object ([`crate::js::reader`], with the fields listed beside the types in
//! [`crate::protocol`]), as serde's derive would read them.

use wasm_bindgen::JsValue;

use crate::js::reader::FromSource;
use crate::protocol::WorkerMessage;

/// Reads a message from the worker.
pub(super) fn decode(data: JsValue) -> Result<WorkerMessage, serde_wasm_bindgen::Error> {
    WorkerMessage::read(data)
}
