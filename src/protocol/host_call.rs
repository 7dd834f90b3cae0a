//! Calls from a run's Python to functions the embedding page registered
//! (`from sandpit import host`): what a run may call, the call and its
//! answer between the worker and the host, and what the result lists.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::js::reader::{FromSource, WireName};

/// A function of the embedding page that a run may call from Python.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct HostFunction {
    /// Its name: a Python identifier, `host.<name>(...)`.
    pub name: String,
    /// What it does, as the page describes it.
    pub description: String,
    /// Its parameters as a Python signature, from their JSON Schema:
    /// `(city: str, days: int = ...)`.
    pub signature: String,
}

/// How Python waited for a host call.
#[derive(
    Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource, WireName,
)]
#[serde(rename_all = "snake_case")]
pub enum HostCallForm {
    /// `await host.name(...)` in code that awaits.
    Await,
    /// `host.name(...)` in code that does not: the interpreter's stack is
    /// suspended until the answer (WebAssembly's JS promise integration).
    Sync,
}

/// Why a host call gave no value.
#[derive(
    Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource, WireName,
)]
#[serde(rename_all = "snake_case")]
pub enum HostCallFailure {
    /// The page's handler threw: the message is the page's.
    Handler,
    /// The arguments do not match the function's JSON Schema.
    InvalidArguments,
    /// Not callable here: a name the page did not register, a run the page
    /// did not start or allow, a replay, a fix's trial.
    Refused,
    /// Past a limit of the run: its number of calls, or the size of
    /// arguments or result.
    Limit,
    /// The run was stopped (Stop, its timeout) while the call was pending.
    Cancelled,
}

/// The error of a host call that gave no value.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct HostCallError {
    /// Which kind of failure.
    pub kind: HostCallFailure,
    /// What to tell the code (the page's own message for a handler's error).
    pub message: String,
}

impl HostCallError {
    /// An error of `kind` saying `message`.
    pub fn new(kind: HostCallFailure, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// One host call a run made, as its result lists it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct HostCallRecord {
    /// The function's name.
    pub name: String,
    /// Its arguments as JSON, cut to a few hundred characters.
    pub arguments: String,
    /// From the call to its answer, in milliseconds.
    pub ms: f64,
    /// Whether it gave a value.
    pub ok: bool,
    /// Why not, when it did not.
    pub error: Option<HostCallError>,
    /// How Python waited for it.
    pub form: HostCallForm,
}
