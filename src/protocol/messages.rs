//! The messages between the host and a session's worker: `init` with its
//! config (the JS objects passed as themselves), runs and queries, and
//! what the worker says back, from start-up to each run's result.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::host_call::{HostCallError, HostCallForm};
use super::query::{Answer, Query};
use super::result::{MemoryUse, OutputChunk, RunResult};
use super::run::{RunId, RunRequest};
use crate::js::bulk::Text;
use crate::js::reader::{FromSource, WireName};

/// Equality and a schema for a wrapper of a JS object that postMessage
/// passes as itself (kept whole by `serde_wasm_bindgen::preserve`): equal
/// means the same object, and the schema can only describe it.
macro_rules! passed_as_itself {
    ($name:ident, $description:literal) => {
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                let (this, that): (&wasm_bindgen::JsValue, &wasm_bindgen::JsValue) =
                    (self.0.as_ref(), other.0.as_ref());
                this == that
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "description": $description })
            }
        }
    };
}

/// Pyodide's interrupt buffer: a 4-byte `SharedArrayBuffer` the host writes
/// SIGINT into to stop a run while keeping the interpreter and its state.
///
/// Passed through `postMessage` as itself, not serialised.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(transparent)]
pub struct InterruptBuffer(
    #[serde(with = "serde_wasm_bindgen::preserve")] pub js_sys::SharedArrayBuffer,
);

passed_as_itself!(
    InterruptBuffer,
    "A 4-byte SharedArrayBuffer, passed by postMessage as itself."
);

/// The end of a `MessageChannel` the worker talks to the host through.
///
/// Transferred with `init`, then held only in the worker's module scope: the
/// worker's own `postMessage` is removed before user code runs, so Python has
/// no channel to the host and cannot forge a message.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(transparent)]
pub struct HostPort(#[serde(with = "serde_wasm_bindgen::preserve")] pub web_sys::MessagePort);

passed_as_itself!(
    HostPort,
    "A MessagePort, transferred by postMessage as itself."
);

/// Sent to the worker with `init`, which lets it take code (and starts
/// Python in the snapshot maker). The worker finds Pyodide's files and the
/// runner beside its own script.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkerConfig {
    /// Present only when the page is cross-origin isolated (shared memory allowed).
    pub interrupt_buffer: Option<InterruptBuffer>,
    /// The worker's only channel to the host from here on.
    pub port: HostPort,
    /// Start Python from scratch only to store a start-up snapshot for later
    /// starts, answered by `snapshot_stored` or `fatal`. Such a worker takes
    /// no runs, so no user code ever runs in what the snapshot captures.
    pub make_snapshot: bool,
}

/// Messages from the host to the worker.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum HostMessage {
    /// Load Pyodide and the runner; answered by `progress` messages, then `ready` or `fatal`.
    Init {
        /// Where to load from.
        config: WorkerConfig,
    },
    /// Run code; answered by `stream` messages, then `done`.
    Run {
        /// Id echoed in every answer.
        id: RunId,
        /// What to run.
        request: RunRequest,
    },
    /// Ask Python something that changes nothing; answered by `answer`.
    Query {
        /// Id echoed in the answer.
        id: RunId,
        /// The question.
        query: Query,
    },
    /// The answer to a `host_call` of the run in progress.
    HostReply {
        /// The run.
        id: RunId,
        /// The call's number, as the worker gave it.
        call: u32,
        /// The function's value as JSON text, when it gave one.
        value: Option<Text>,
        /// Why it gave none, otherwise.
        error: Option<HostCallError>,
    },
}

/// Phases of bringing the runtime up, in order.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource)]
#[serde(rename_all = "snake_case")]
pub enum LoadStage {
    /// Downloading the interpreter and standard library.
    Download,
    /// Compiling and starting the interpreter.
    Start,
    /// Installing the Python runner.
    Runner,
}

/// How far start-up has come.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct LoadProgress {
    /// Current phase.
    pub stage: LoadStage,
    /// Bytes downloaded so far.
    pub loaded: u64,
    /// Bytes to download in all, when known.
    pub total: Option<u64>,
}

/// How a worker's start used the start-up snapshot (Python's memory after
/// start-up, stored by an earlier visit so later starts skip initialising it).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, WireName)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SnapshotUse {
    /// Python was restored from it.
    Used,
    /// None was stored: Python started from scratch.
    Absent,
    /// One was stored but could not be used (made for another build, bytes
    /// changed, refused by Pyodide): it was deleted and Python started from scratch.
    Rejected {
        /// Why.
        reason: String,
    },
}

/// Messages from the worker to the host.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, FromSource)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkerMessage {
    /// Start-up progress.
    Progress(LoadProgress),
    /// The interpreter is up; runs may be sent.
    Ready {
        /// Python version, e.g. `3.14.2`.
        python: String,
        /// Pyodide version, e.g. `314.0.7`.
        pyodide: String,
        /// Whether it was restored from the start-up snapshot.
        snapshot: SnapshotUse,
    },
    /// The snapshot maker (see [`WorkerConfig::make_snapshot`]) stored the snapshot.
    SnapshotStored {
        /// Its size.
        bytes: u64,
    },
    /// Start-up failed; the worker is unusable.
    Fatal {
        /// What went wrong.
        message: String,
    },
    /// Packages a run needs are being downloaded (not counted against its timeout).
    PackageProgress {
        /// The run.
        id: RunId,
        /// Packages being loaded.
        packages: Vec<String>,
        /// Bytes downloaded so far.
        loaded: u64,
        /// Bytes of the responses seen so far (grows as downloads start).
        total: u64,
    },
    /// The run must load packages before its code starts: its timeout,
    /// which started when the host sent it, stops until `started`. A run
    /// that loads nothing sends neither, so most runs cost one message.
    LoadingPackages {
        /// The run.
        id: RunId,
    },
    /// Sent after `loading_packages`: the packages are in and the code
    /// starts now, so its timeout starts again, in full.
    Started {
        /// The run.
        id: RunId,
    },
    /// Output written by a running run, sent as it happens.
    Stream {
        /// The run.
        id: RunId,
        /// The output.
        chunk: OutputChunk,
    },
    /// The interpreter failed while running (not an exception in the code).
    RunFailed {
        /// The run.
        id: RunId,
        /// What went wrong.
        message: String,
        /// The interpreter's memory when it failed, when it could be read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        memory: Option<MemoryUse>,
    },
    /// A query was answered (or could not be).
    Answer {
        /// The `query` message's id.
        id: RunId,
        /// The answer, when there is one.
        answer: Option<Answer>,
        /// Why not, otherwise.
        error: Option<String>,
    },
    /// The running code calls a function of the embedding page
    /// (`sandpit.host`); answered by `host_reply`.
    HostCall {
        /// The run.
        id: RunId,
        /// The call's number in the run, echoed in the answer.
        call: u32,
        /// The function's name.
        name: String,
        /// Its arguments, a JSON object as text.
        arguments: Text,
        /// How Python waits for it.
        form: HostCallForm,
    },
    /// A run finished.
    Done {
        /// The run.
        id: RunId,
        /// Its result (boxed: it dwarfs the other messages), with `stdout`
        /// and `stderr` empty: the output travels once, in `output`, and the
        /// host joins them from it.
        result: Box<RunResult>,
    },
}

// Read by serde in the browser too (see crate::js::reader).
crate::js::reader::read_by_serde!(SnapshotUse);
