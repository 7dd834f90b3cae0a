//! The run contract and the host<->worker messages: the single definition.
//!
//! The JS worker (`pyodide-loader/worker.mjs`) and the Python runner
//! (`pyodide-loader/runner.py`) build these shapes by hand, so the JSON Schema
//! generated from these types ([`schema`]) is checked against every message
//! they really send in the browser tests; a field renamed on either side
//! fails a test instead of silently dropping data.
//!
//! The message enums are externally tagged (`{"done": {"id": 3, "result":
//! ...}}`): a shape read straight from a JS object, without first copying
//! the message into a buffer, so a result's [`Text`] stays the JS string the
//! worker sent. In the browser the worker's messages are read field by
//! field (the lists at the end of this file, [`crate::js::reader`]),
//! natively by serde's derive, and `tests/reader.rs` checks they agree.
//!
//! What can be large in a result (output, values, rich outputs, file bytes)
//! is [`Text`] or [`Json`]: JS values in the browser, outside the app's
//! wasm memory (see [`crate::js::bulk`]). On the wire they are plain strings and
//! JSON, as the schema says.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::js::bulk::{Json, Text};

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
    /// Maximum bytes of rich outputs (images, HTML) in all.
    pub display_bytes: u32,
    /// Maximum bytes of input files in one request, in all.
    pub input_bytes: u32,
    /// Files created or changed up to this size come back with their content.
    pub artifact_bytes: u32,
}

impl Default for OutputLimits {
    /// Small enough that a flood never slows the page, large enough for
    /// the tracebacks and tables a model needs to read.
    fn default() -> Self {
        Self {
            output_bytes: 256 * 1024,
            value_bytes: 64 * 1024,
            display_bytes: 8 * 1024 * 1024,
            input_bytes: 32 * 1024 * 1024,
            artifact_bytes: 4 * 1024 * 1024,
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
    /// Wall-clock limit on executing the code, in milliseconds; `None` for no limit.
    /// Loading Python and waiting in the queue do not count.
    pub timeout_ms: Option<u32>,
    /// Files to put in the session's working directory (the run's current
    /// directory) before the code runs.
    #[serde(default)]
    pub files: Vec<InputFile>,
    /// Packages to load before the code runs, besides those its imports name.
    #[serde(default)]
    pub packages: Vec<String>,
    /// How open matplotlib figures are captured at the end of the run.
    #[serde(default)]
    pub figure_format: FigureFormat,
    /// Output caps.
    pub limits: OutputLimits,
    /// Run in a namespace and working directory of its own, dropped when the
    /// run ends: it sees nothing of the session's earlier runs and leaves
    /// nothing behind (no variables, no files, nothing to replay). For
    /// independent programs graded one by one (a benchmark's, say).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fresh: bool,
    /// How large the session's interpreter memory (its wasm heap) may grow
    /// during the run, in bytes; the deployment's limit when absent.
    /// Allocations past it fail with `MemoryError`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit_bytes: Option<u64>,
    /// Python run after `code`, in its namespace, to check it: each top-level
    /// `assert` and each top-level `def test_*` is a test (see [`Verification`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<String>,
}

impl RunRequest {
    /// A request in the default session with the default timeout and limits.
    pub fn new(code: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            session: DEFAULT_SESSION.to_owned(),
            timeout_ms: Some(DEFAULT_TIMEOUT_MS),
            files: Vec::new(),
            packages: Vec::new(),
            figure_format: FigureFormat::default(),
            limits: OutputLimits::default(),
            fresh: false,
            memory_limit_bytes: None,
            tests: None,
        }
    }

    /// The same request, run in a fresh namespace that is dropped afterwards.
    pub fn in_fresh_namespace(mut self) -> Self {
        self.fresh = true;
        self
    }

    /// The same request, checked by `tests` after the code ran.
    pub fn with_tests(mut self, tests: Option<String>) -> Self {
        self.tests = tests;
        self
    }

    /// The same request, with `files` put in the working directory first.
    pub fn with_files(mut self, files: Vec<InputFile>) -> Self {
        self.files = files;
        self
    }

    /// Bytes of input files in all, decoded.
    pub fn input_bytes(&self) -> u64 {
        self.files.iter().map(InputFile::size).sum()
    }

    /// The same request, also loading `packages` first.
    pub fn with_packages(mut self, packages: Vec<String>) -> Self {
        self.packages = packages;
        self
    }

    /// The same request in `session`.
    pub fn in_session(mut self, session: impl Into<String>) -> Self {
        self.session = session.into();
        self
    }

    /// The same request with another timeout.
    pub fn with_timeout_ms(mut self, timeout_ms: Option<u32>) -> Self {
        self.timeout_ms = timeout_ms;
        self
    }
}

/// A file a caller hands to a run (a CSV a user attached in a chat, say).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct InputFile {
    /// Path relative to the session's working directory; no `..`, not absolute.
    pub path: String,
    /// The bytes, base64.
    pub content_base64: String,
}

impl InputFile {
    /// Decoded size in bytes, from the base64 length.
    pub fn size(&self) -> u64 {
        let text = self.content_base64.trim_end_matches('=');
        (text.len() as u64 * 3) / 4
    }
}

/// A file the run created or changed in its working directory.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Artifact {
    /// Path relative to the working directory.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// MIME type guessed from the name.
    pub mime: String,
    /// The bytes, base64, when no larger than [`OutputLimits::artifact_bytes`].
    pub content_base64: Option<Text>,
}

/// A file in the session's working directory after the run.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// Path relative to the working directory.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
}

/// Image format for captured matplotlib figures.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum FigureFormat {
    /// `image/png`, base64.
    #[default]
    Png,
    /// `image/svg+xml`.
    Svg,
}

pub use crate::names::{DEFAULT_SESSION, DEFAULT_TIMEOUT_MS};

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
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
// In the browser read field by field (see the end of this file), natively by the derive.
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(deny_unknown_fields)]
pub struct OutputChunk {
    /// The stream written to.
    pub stream: StreamName,
    /// The text written.
    pub text: Text,
}

impl OutputChunk {
    /// Appends to `chunks`, joining the last chunk when it is of the same
    /// stream, so a flood of writes stays a handful of chunks.
    pub fn append_to(self, chunks: &mut Vec<OutputChunk>) {
        match chunks.last_mut() {
            Some(last) if last.stream == self.stream => last.text = last.text.concat(&self.text),
            _ => chunks.push(self),
        }
    }

    /// What of `output`, a run's whole output in order, comes after the
    /// `streamed` chunks, which are its beginning: the end of a run's output
    /// that reached the host only in its result.
    pub fn unstreamed(output: &[OutputChunk], streamed: &[OutputChunk]) -> Vec<OutputChunk> {
        let mut skip: usize = streamed.iter().map(|chunk| chunk.text.units()).sum();
        let mut rest = Vec::new();
        for chunk in output {
            let units = chunk.text.units();
            if skip >= units {
                skip -= units;
                continue;
            }
            rest.push(OutputChunk {
                stream: chunk.stream,
                text: chunk.text.after(skip),
            });
            skip = 0;
        }
        rest
    }

    /// The text of `stream` in `chunks`, in order.
    pub fn text_of(chunks: &[OutputChunk], stream: StreamName) -> Text {
        Text::join(
            chunks
                .iter()
                .filter(|chunk| chunk.stream == stream)
                .map(|chunk| &chunk.text),
        )
    }
}

/// How a run ended.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// The code ran to the end (or called `sys.exit`).
    Ok,
    /// The code raised an exception.
    Error,
    /// The code ran past its timeout and was stopped.
    Timeout,
    /// The interpreter died (stack exhaustion in C, out of memory, a wasm trap,
    /// a dead worker); the sandbox restarted itself.
    Crashed,
    /// The caller cancelled the run.
    Cancelled,
}

impl RunStatus {
    /// The status as it is on the wire, e.g. `"timeout"`, for labels and messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Timeout => "timeout",
            Self::Crashed => "crashed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// A rich representation of a value, keyed by MIME type as in Jupyter.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct MimeBundle {
    /// Plain text, always present.
    #[serde(rename = "text/plain")]
    pub text: Text,
    /// HTML: shown only inside a sandboxed iframe.
    #[serde(rename = "text/html", default, skip_serializing_if = "Option::is_none")]
    pub html: Option<Text>,
    /// Markdown source.
    #[serde(
        rename = "text/markdown",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub markdown: Option<Text>,
    /// LaTeX (math), as `_repr_latex_` gives it: shown with KaTeX.
    #[serde(
        rename = "text/latex",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub latex: Option<Text>,
    /// PNG image, base64.
    #[serde(rename = "image/png", default, skip_serializing_if = "Option::is_none")]
    pub png: Option<Text>,
    /// SVG image source.
    #[serde(
        rename = "image/svg+xml",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub svg: Option<Text>,
    /// JSON data.
    #[serde(
        rename = "application/json",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub json: Option<Json>,
}

/// One line of the user's code, for showing context around an error.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SourceLine {
    /// 1-based line number.
    pub line: u32,
    /// The line's text.
    pub text: String,
}

/// What kind of help a model needs to repair a failed run.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HintCode {
    /// An import failed: no such module here (not a known package either).
    ModuleNotFound,
    /// The package exists in Pyodide's distribution but must be downloaded,
    /// and the download failed: the sandbox is offline.
    PackageNeedsNetwork,
    /// The package download was refused by the network policy.
    PackageBlocked,
    /// No build of the package exists for Pyodide; the hint names alternatives.
    PackageUnavailable,
    /// The code read from stdin (`input()`), which a sandbox has no user to answer.
    InputUnsupported,
    /// The run exceeded its timeout.
    TimedOut,
    /// The caller cancelled the run.
    Cancelled,
    /// The interpreter died; see `restored` for what came back.
    Crashed,
    /// A network request was blocked by the sandbox's policy; see `blocked`.
    NetworkBlocked,
    /// The code needed more memory than the session's limit; see `memory`.
    MemoryLimit,
    /// A name the code uses is not defined (misspelt, or used before it is
    /// assigned or imported); the hint names Python's guess at the one meant.
    UndefinedName,
}

/// A request the browser refused under the worker's Content-Security-Policy.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct BlockedRequest {
    /// What was asked for (the browser may shorten it to its origin).
    pub url: String,
    /// The CSP directive that refused it, e.g. `connect-src`.
    pub directive: String,
}

/// A machine-readable repair hint with a sentence for humans and models.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Hint {
    /// What kind of problem.
    pub code: HintCode,
    /// What to do about it.
    pub message: String,
}

/// The value of the last expression of the code, if it was not `None`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LastValue {
    /// `repr()` of the value, cut at the value byte limit.
    pub repr: Text,
    /// The value as JSON, when `json.dumps` accepts it and it fits the limit.
    pub json: Option<Json>,
    /// Whether `repr` was cut.
    pub truncated: bool,
    /// Why `repr()` raised (`ValueError: no repr`), when it did: the run still
    /// finished, and `repr` is then `object`'s own with this reason after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repr_error: Option<String>,
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
    /// 1-based column just past the end of the failing expression, when known.
    pub end_column: Option<u32>,
    /// The failing line with a few lines around it.
    pub source: Vec<SourceLine>,
    /// Traceback text without the runner's own frames.
    pub traceback: String,
    /// What to do about it, where Sandpit can tell.
    pub hint: Option<Hint>,
}

/// One earlier run that could not be replayed after a restart.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LostRun {
    /// Its session.
    pub session: String,
    /// Its first line of code, to recognise it by.
    pub code_start: String,
    /// Why the replay failed.
    pub reason: String,
}

/// How session state came back after the worker had to be replaced.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct Restoration {
    /// Earlier successful runs of the session replayed.
    pub replayed: u32,
    /// Runs whose replay failed: their effects are missing.
    pub lost: Vec<LostRun>,
    /// `true` when the session was rebuilt before this run started (its
    /// worker had been parked to make room, or had ended between runs), and
    /// the run itself went as usual; absent when this run was stopped and
    /// the session rebuilt after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_run: Option<bool>,
}

/// Whether parts of the result were cut at the limits.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct Truncation {
    /// Output beyond [`OutputLimits::output_bytes`] was dropped.
    pub output: bool,
    /// Bytes written in total, kept or not.
    pub output_bytes_total: u64,
    /// Rich outputs beyond [`OutputLimits::display_bytes`] were dropped.
    pub displays: bool,
}

/// Everything a run hands back.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
// In the browser read field by field (see the end of this file), natively by the derive.
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(deny_unknown_fields)]
pub struct RunResult {
    /// How the run ended.
    pub status: RunStatus,
    /// All stdout text kept.
    pub stdout: Text,
    /// All stderr text kept.
    pub stderr: Text,
    /// stdout and stderr interleaved in the order written.
    pub output: Vec<OutputChunk>,
    /// The last expression's value.
    pub value: Option<LastValue>,
    /// Rich outputs in order: `display()` calls, then the last value's rich
    /// representation when it has one.
    pub displays: Vec<MimeBundle>,
    /// What went wrong, for every status but `ok`.
    pub error: Option<RunError>,
    /// The code's `sys.exit()` code, when it called it.
    pub exit_code: Option<i32>,
    /// Wall time spent executing the code, in milliseconds.
    pub duration_ms: f64,
    /// What was cut.
    pub truncated: Truncation,
    /// Requests the network policy refused during the run.
    pub blocked: Vec<BlockedRequest>,
    /// Files the run created or changed (since the session's last run), in path order.
    pub artifacts: Vec<Artifact>,
    /// Every file in the session's working directory after the run.
    pub files: Vec<FileEntry>,
    /// Set when the session's state was rebuilt by replay: after this run
    /// (its worker was replaced: a timeout without interrupts, a crash, a
    /// cancel), or before it (the session had been parked).
    pub restored: Option<Restoration>,
    /// How much memory the session's interpreter had when the run ended, and
    /// its limit; absent when the run never reached it.
    #[serde(default)]
    pub memory: Option<MemoryUse>,
    /// What the request's `tests` found, when it had tests.
    #[serde(default)]
    pub verification: Option<Verification>,
}

/// The memory of a session's interpreter (its wasm heap, where every Python
/// object lives), as a run left it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct MemoryUse {
    /// Its size in bytes: the most it has reached in the session so far, as
    /// wasm memory grows but never shrinks.
    pub peak_bytes: u64,
    /// How large the run was allowed to make it, in bytes.
    pub limit_bytes: u64,
    /// Whether the run asked for more than that (and the allocation failed).
    pub limit_reached: bool,
}

impl RunResult {
    /// Whether the run went well: it finished (`ok`), and its tests, if it
    /// had any, all passed.
    pub fn succeeded(&self) -> bool {
        self.status == RunStatus::Ok && self.verification.as_ref().is_none_or(|v| v.passed)
    }
}

/// What a run's tests found.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Verification {
    /// Whether every test ran and passed.
    pub passed: bool,
    /// Each test, in the order it ran: the top-level asserts, then the
    /// `test_*` functions; also a setup line of the tests that raised.
    pub tests: Vec<TestCase>,
    /// Why some or all tests did not run (the code raised, the run was
    /// stopped, a setup line failed), if they did not.
    pub not_run: Option<String>,
}

/// One test and how it went.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TestCase {
    /// The function's name (`test_add`), or the statement itself for a
    /// top-level assert (`assert add(2, 2) == 4`).
    pub name: String,
    /// Its line in the tests (where it failed, when it did).
    pub line: u32,
    /// Whether it passed.
    pub passed: bool,
    /// Why it failed, located in the tests: an `AssertionError` for a failed
    /// assert, or whatever else the test raised.
    pub error: Option<RunError>,
    /// For a failed assert, what it evaluated, as pytest shows it:
    /// `assert 4 == 5` then `+  where 4 = add(2, 2)`.
    pub explanation: Option<String>,
    /// For a failed `assert a <op> b`, the values compared.
    pub compared: Option<Comparison>,
}

/// The two sides of a failed comparison, as their `repr`s.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Comparison {
    /// The left side's value.
    pub left: String,
    /// The operator: `==`, `!=`, `<`, `<=`, `>`, `>=`, `is`, `is not`, `in`, `not in`.
    pub op: String,
    /// The right side's value.
    pub right: String,
}

impl RunResult {
    /// Makes `stdout` and `stderr` the joined pieces of `output`: the worker
    /// sends them empty, and a kept result then holds its output once (in
    /// the browser, a join shares its parts instead of copying them).
    pub fn share_output(&mut self) {
        self.stdout = OutputChunk::text_of(&self.output, StreamName::Stdout);
        self.stderr = OutputChunk::text_of(&self.output, StreamName::Stderr);
    }
}

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
}

/// A question for Python that changes no session.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Query {
    /// The bytes of a file in a session's working directory (artifacts too
    /// large to come back with their run's result).
    ReadFile {
        /// The session.
        session: String,
        /// Path relative to its working directory.
        path: String,
    },
    /// Whether code compiles and where each of its imports would come from,
    /// without running it.
    Check {
        /// Python source.
        code: String,
    },
    /// Names that could be typed at a cursor: the session's globals and
    /// their attributes, the builtins, keywords and modules. Runs none of
    /// the session's code.
    Complete {
        /// The session whose names count.
        session: String,
        /// Python source.
        code: String,
        /// Where the cursor is, in characters (code points) from the start of `code`.
        cursor: u32,
    },
}

/// What a [`Query`] found.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Answer {
    /// Answers [`Query::ReadFile`].
    File {
        /// The bytes, base64.
        content_base64: String,
    },
    /// Answers [`Query::Check`].
    Check {
        /// The findings.
        report: CheckReport,
    },
    /// Answers [`Query::Complete`].
    Complete {
        /// The names found.
        completions: Completions,
    },
}

impl Answer {
    /// The variant's wire name (`file`, `check`), for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::File { .. } => "file",
            Self::Check { .. } => "check",
            Self::Complete { .. } => "complete",
        }
    }
}

/// Code checked without running it: a model's dry run before it spends a run.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
// In the browser read field by field (see the end of this file), natively by the derive.
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(deny_unknown_fields)]
pub struct CheckReport {
    /// Why the code does not compile, if it does not (shaped as a run's error).
    pub syntax_error: Option<RunError>,
    /// Each top-level module the code imports, in order of first appearance.
    pub imports: Vec<ImportPlan>,
}

/// Where one imported module would come from.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ImportPlan {
    /// The top-level module name, e.g. `numpy` for `import numpy.linalg`.
    pub module: String,
    /// Line of its first import.
    pub line: u32,
    /// Whether importing it works offline, needs the network, or cannot work.
    pub availability: Availability,
    /// The Pyodide package that provides it, if one does.
    pub package: Option<String>,
    /// Where it comes from or what to do instead, in a sentence.
    pub message: String,
}

/// What could be typed at a cursor (see [`Query::Complete`]).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Completions {
    /// The name typed so far before the cursor, which the chosen name
    /// replaces (empty right after a dot, say).
    pub token: String,
    /// The candidates, not narrowed to `token`: the editor narrows them as
    /// typing goes on. Names that begin with `_` are listed only when
    /// `token` does.
    pub options: Vec<CompletionOption>,
}

/// One name [`Completions`] offers.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct CompletionOption {
    /// The name.
    pub name: String,
    /// What it names.
    pub kind: CompletionKind,
}

/// What a completed name names.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CompletionKind {
    /// A module.
    Module,
    /// A class.
    Class,
    /// A function or anything else callable.
    Function,
    /// An attribute computed when read (a property, a slot).
    Property,
    /// Any other value.
    Variable,
    /// A Python keyword.
    Keyword,
}

/// Whether an import can work here.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Availability {
    /// The standard library, or a package that ships with Sandpit: works offline.
    Offline,
    /// A Pyodide package downloaded on first use: needs the network once.
    Network,
    /// No build of it exists for the browser.
    Unavailable,
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

/// How far start-up has come.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
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

impl SnapshotUse {
    /// The variant's wire name (`used`, `absent`, `rejected`): what the
    /// status line exposes for tests and the bench.
    pub fn status(&self) -> &'static str {
        match self {
            Self::Used => "used",
            Self::Absent => "absent",
            Self::Rejected { .. } => "rejected",
        }
    }
}

/// Messages from the worker to the host.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
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

/// Messages from the page to the clock worker (`pyodide-loader/clock.mjs`),
/// which keeps the runtime's timers: a dedicated worker's timers run on time
/// in a hidden tab, where Chromium wakes the page's once a second, and
/// chains of them once a minute after five minutes hidden.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ClockCommand {
    /// Say `fired` with this id after `ms` milliseconds.
    Start {
        /// The timer; a new one for every start.
        id: u32,
        /// Milliseconds.
        ms: u32,
    },
    /// Forget timer `id`: it says nothing.
    Cancel {
        /// The timer.
        id: u32,
    },
}

/// Messages from the clock worker.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ClockMessage {
    /// Timer `id`'s time has come.
    Fired {
        /// The timer.
        id: u32,
    },
}

// How the browser reads run results and check reports: field by field
// (crate::js::reader), with these lists of their fields on the wire.
crate::js::reader::read_by_serde!(MemoryUse);

crate::js::reader::read_names! {
    RunStatus {
        Ok: "ok",
        Error: "error",
        Timeout: "timeout",
        Crashed: "crashed",
        Cancelled: "cancelled",
    }
    StreamName { Stdout: "stdout", Stderr: "stderr" }
    HintCode {
        ModuleNotFound: "module_not_found",
        PackageNeedsNetwork: "package_needs_network",
        PackageBlocked: "package_blocked",
        PackageUnavailable: "package_unavailable",
        InputUnsupported: "input_unsupported",
        TimedOut: "timed_out",
        Cancelled: "cancelled",
        Crashed: "crashed",
        NetworkBlocked: "network_blocked",
        MemoryLimit: "memory_limit",
        UndefinedName: "undefined_name",
    }
    Availability { Offline: "offline", Network: "network", Unavailable: "unavailable" }
}

crate::js::reader::read_fields! {
    RunResult {
        status: "status",
        stdout: "stdout",
        stderr: "stderr",
        output: "output",
        value: "value",
        displays: "displays",
        error: "error",
        exit_code: "exit_code",
        duration_ms: "duration_ms",
        truncated: "truncated",
        blocked: "blocked",
        artifacts: "artifacts",
        files: "files",
        restored: "restored",
        memory: "memory",
        verification: "verification",
    }
    Verification { passed: "passed", tests: "tests", not_run: "not_run" }
    TestCase {
        name: "name",
        line: "line",
        passed: "passed",
        error: "error",
        explanation: "explanation",
        compared: "compared",
    }
    Comparison { left: "left", op: "op", right: "right" }
    OutputChunk { stream: "stream", text: "text" }
    LastValue { repr: "repr", json: "json", truncated: "truncated", repr_error: "repr_error" }
    MimeBundle {
        text: "text/plain",
        html: "text/html",
        markdown: "text/markdown",
        latex: "text/latex",
        png: "image/png",
        svg: "image/svg+xml",
        json: "application/json",
    }
    RunError {
        kind: "type",
        message: "message",
        line: "line",
        column: "column",
        end_column: "end_column",
        source: "source",
        traceback: "traceback",
        hint: "hint",
    }
    SourceLine { line: "line", text: "text" }
    Hint { code: "code", message: "message" }
    BlockedRequest { url: "url", directive: "directive" }
    Truncation { output: "output", output_bytes_total: "output_bytes_total", displays: "displays" }
    Artifact { path: "path", size: "size", mime: "mime", content_base64: "content_base64" }
    FileEntry { path: "path", size: "size" }
    Restoration { replayed: "replayed", lost: "lost", before_run: "before_run" }
    LostRun { session: "session", code_start: "code_start", reason: "reason" }
    CheckReport { syntax_error: "syntax_error", imports: "imports" }
    ImportPlan {
        module: "module",
        line: "line",
        availability: "availability",
        package: "package",
        message: "message",
    }
}

crate::js::reader::deserialize_by_hand!(RunResult, OutputChunk, CheckReport);

// How the browser reads the worker's messages (see `runtime/message.rs`).
crate::js::reader::read_by_serde!(SnapshotUse);

crate::js::reader::read_names! {
    LoadStage { Download: "download", Start: "start", Runner: "runner" }
    CompletionKind {
        Module: "module",
        Class: "class",
        Function: "function",
        Property: "property",
        Variable: "variable",
        Keyword: "keyword",
    }
}

crate::js::reader::read_fields! {
    LoadProgress { stage: "stage", loaded: "loaded", total: "total" }
    Completions { token: "token", options: "options" }
    CompletionOption { name: "name", kind: "kind" }
}

crate::js::reader::read_tagged! {
    WorkerMessage {
        "progress" => Progress(_),
        "ready" => Ready { python: "python", pyodide: "pyodide", snapshot: "snapshot" },
        "snapshot_stored" => SnapshotStored { bytes: "bytes" },
        "fatal" => Fatal { message: "message" },
        "package_progress" => PackageProgress {
            id: "id",
            packages: "packages",
            loaded: "loaded",
            total: "total",
        },
        "loading_packages" => LoadingPackages { id: "id" },
        "started" => Started { id: "id" },
        "stream" => Stream { id: "id", chunk: "chunk" },
        "run_failed" => RunFailed { id: "id", message: "message", memory: "memory" },
        "answer" => Answer { id: "id", answer: "answer", error: "error" },
        "done" => Done { id: "id", result: "result" },
    }
    ClockMessage {
        "fired" => Fired { id: "id" },
    }
    Answer {
        "file" => File { content_base64: "content_base64" },
        "check" => Check { report: "report" },
        "complete" => Complete { completions: "completions" },
    }
}

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
