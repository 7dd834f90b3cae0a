//! The run contract and the host<->worker messages: the single definition.
//!
//! The JS worker (`pyodide-loader/worker.mjs`) and the Python runner
//! (`pyodide-loader/runner.py`) build these shapes by hand, so the JSON Schema
//! generated from these types ([`schema`]) is checked against every message
//! they really send in the browser tests; a field renamed on either side
//! fails a test instead of silently dropping data.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Identifies one run between the host and the worker.
pub type RunId = u32;

/// Byte caps on what a run may send back; beyond them output is cut and flagged.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct OutputLimits {
    /// Maximum bytes (UTF-8) kept of stdout and stderr together.
    pub output_bytes: u32,
    /// Maximum bytes of the last value's repr.
    pub value_bytes: u32,
}

impl Default for OutputLimits {
    /// Small enough that a flood never slows the page, large enough for
    /// the tracebacks and tables a model needs to read.
    fn default() -> Self {
        Self {
            output_bytes: 256 * 1024,
            value_bytes: 64 * 1024,
        }
    }
}

/// What a caller asks to run.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// Python source.
    pub code: String,
    /// Name of the session whose globals the run uses.
    pub session: String,
    /// Output caps.
    pub limits: OutputLimits,
}

impl RunRequest {
    /// A request in the default session with default limits.
    pub fn new(code: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            session: DEFAULT_SESSION.to_owned(),
            limits: OutputLimits::default(),
        }
    }
}

/// The session used when a caller names none.
pub const DEFAULT_SESSION: &str = "main";

/// Which standard stream a piece of output came from.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum StreamName {
    /// `sys.stdout`
    Stdout,
    /// `sys.stderr`
    Stderr,
}

/// One write to stdout or stderr, kept in the order it happened.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct OutputChunk {
    /// The stream written to.
    pub stream: StreamName,
    /// The text written.
    pub text: String,
}

/// How a run ended.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// The code ran to the end (or called `sys.exit`).
    Ok,
    /// The code raised an exception.
    Error,
}

/// The value of the last expression of the code, if it was not `None`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LastValue {
    /// `repr()` of the value, cut at the value byte limit.
    pub repr: String,
    /// The value as JSON, when `json.dumps` accepts it and it fits the limit.
    pub json: Option<serde_json::Value>,
    /// Whether `repr` was cut.
    pub truncated: bool,
}

/// An exception raised by the user's code, shaped so a model can repair it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RunError {
    /// Exception class name, e.g. `ZeroDivisionError`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `str()` of the exception.
    pub message: String,
    /// 1-based line in the user's code, when the error points into it.
    pub line: Option<u32>,
    /// 1-based column in that line, when known.
    pub column: Option<u32>,
    /// Traceback text without the runner's own frames.
    pub traceback: String,
}

/// Whether parts of the result were cut at the limits.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct Truncation {
    /// Output beyond [`OutputLimits::output_bytes`] was dropped.
    pub output: bool,
    /// Bytes written in total, kept or not.
    pub output_bytes_total: u64,
}

/// Everything a run hands back.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RunResult {
    /// How the run ended.
    pub status: RunStatus,
    /// All stdout text kept.
    pub stdout: String,
    /// All stderr text kept.
    pub stderr: String,
    /// stdout and stderr interleaved in the order written.
    pub output: Vec<OutputChunk>,
    /// The last expression's value.
    pub value: Option<LastValue>,
    /// The exception, when `status` is `error`.
    pub error: Option<RunError>,
    /// Wall time spent executing the code, in milliseconds.
    pub duration_ms: f64,
    /// What was cut.
    pub truncated: Truncation,
}

/// Sent to the worker when it starts.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkerConfig {
    /// Base URL of the Pyodide files (`pyodide.mjs`, `pyodide.asm.wasm`, ...).
    pub pyodide_url: String,
    /// URL of `runner.py`.
    pub runner_url: String,
}

/// Messages from the host to the worker.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
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
}

/// Phases of bringing the runtime up, in order.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoadStage {
    /// Downloading the interpreter and standard library.
    Download,
    /// Compiling and starting the interpreter.
    Start,
    /// Installing the Python runner.
    Runner,
}

/// Messages from the worker to the host.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkerMessage {
    /// Start-up progress.
    Progress {
        /// Current phase.
        stage: LoadStage,
        /// Bytes downloaded so far.
        loaded: u64,
        /// Bytes to download in all, when the server says.
        total: Option<u64>,
    },
    /// The interpreter is up; runs may be sent.
    Ready {
        /// Python version, e.g. `3.14.2`.
        python: String,
        /// Pyodide version, e.g. `314.0.7`.
        pyodide: String,
    },
    /// Start-up failed; the worker is unusable.
    Fatal {
        /// What went wrong.
        message: String,
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
    },
    /// A run finished.
    Done {
        /// The run.
        id: RunId,
        /// Its result (boxed: it dwarfs the other messages).
        result: Box<RunResult>,
    },
}

/// JSON Schema of every message in both directions, generated from the types above.
pub fn schema() -> serde_json::Value {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Protocol {
        host: HostMessage,
        worker: WorkerMessage,
    }
    serde_json::to_value(schemars::schema_for!(Protocol))
        .expect("a generated JSON Schema is always serialisable")
}
