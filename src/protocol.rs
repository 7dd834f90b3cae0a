//! The run contract and the host<->worker messages: the single definition,
//! types only, by concern: a run's request (`run`) and result
//! (`result`, its error in `error`, the fixes and warnings Sandpit adds in
//! `repair`), queries (`query`), calls to the embedding page's functions
//! (`host_call`), the worker's messages (`messages`) and the clock worker's
//! (`clock`).
//!
//! The JS worker (`pyodide-loader/worker.mjs`) and the Python runner
//! (`pyodide-loader/sandpit_runner/`) build these shapes by hand, so the JSON Schema
//! generated from these types ([`schema`]) is checked against every message
//! they really send in the browser tests; a field renamed on either side
//! fails a test instead of silently dropping data.
//!
//! The message enums are externally tagged (`{"done": {"id": 3, "result":
//! ...}}`): a shape read straight from a JS object, without first copying
//! the message into a buffer, so a result's [`Text`] stays the JS string the
//! worker sent. In the browser the worker's messages are read field by
//! field by readers derived from the types' serde attributes
//! ([`crate::js::reader`]), natively by serde's derive, and
//! `tests/reader.rs` checks they agree.
//!
//! What can be large in a result (output, values, rich outputs, file bytes)
//! is [`Text`] or [`Json`]: JS values in the browser, outside the app's
//! wasm memory (see [`crate::js::bulk`]). On the wire they are plain strings and
//! JSON, as the schema says.
//!
//! [`Text`]: crate::js::bulk::Text
//! [`Json`]: crate::js::bulk::Json

use schemars::JsonSchema;

mod clock;
mod error;
mod host_call;
mod messages;
mod query;
mod repair;
mod result;
mod run;

pub use clock::*;
pub use error::*;
pub use host_call::*;
pub use messages::*;
pub use query::*;
pub use repair::*;
pub use result::*;
pub use run::*;

/// JSON Schema of every message in both directions, generated from the types above.
pub fn schema() -> serde_json::Value {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Protocol {
        host: HostMessage,
        worker: WorkerMessage,
        to_clock: ClockCommand,
        from_clock: ClockMessage,
    }
    serde_json::to_value(schemars::schema_for!(Protocol))
        .expect("a generated JSON Schema is always serialisable")
}
