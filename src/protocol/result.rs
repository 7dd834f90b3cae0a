//! Everything a run hands back: its status, output in the order written,
//! the last value, rich outputs, files, what was cut, and what its tests
//! found. What can be large is [`Text`] or [`Json`], kept out of the app's
//! wasm memory in the browser.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::RunError;
use super::host_call::HostCallRecord;
use super::repair::{FigureSummary, LintWarning};
use crate::js::bulk::{Json, Text};
use crate::js::reader::{FromSource, WireName};

/// A file the run created or changed in its working directory.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
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
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// Path relative to the working directory.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
}

/// Which standard stream a piece of output came from.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource)]
#[serde(rename_all = "lowercase")]
pub enum StreamName {
    /// `sys.stdout`
    Stdout,
    /// `sys.stderr`
    Stderr,
}

/// One write to stdout or stderr, kept in the order it happened.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
// In the browser read field by field (crate::js::reader), natively by serde's derive.
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
#[derive(
    Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource, WireName,
)]
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

/// A rich representation of a value, keyed by MIME type as in Jupyter.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default, FromSource)]
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
    /// What a matplotlib figure shows, beside its image.
    #[serde(
        rename = "application/vnd.sandpit.figure+json",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<FigureSummary>")]
    pub figure: Option<Json>,
}

/// A request the browser refused under the worker's Content-Security-Policy.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct BlockedRequest {
    /// What was asked for (the browser may shorten it to its origin).
    pub url: String,
    /// The CSP directive that refused it, e.g. `connect-src`.
    pub directive: String,
}

/// The value of the last expression of the code, if it was not `None`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, FromSource)]
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

/// One earlier run that could not be replayed after a restart.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
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
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, Default, FromSource)]
#[serde(deny_unknown_fields)]
pub struct Restoration {
    /// Earlier successful runs of the session replayed.
    pub replayed: u32,
    /// Runs whose replay failed: their effects are missing.
    pub lost: Vec<LostRun>,
    /// Earlier runs that ended in an error, a timeout or a cancel: they are
    /// never replayed, so what they changed before they stopped is not back.
    #[serde(default)]
    pub skipped: u32,
    /// What bringing the session back cost, in milliseconds: its worker's
    /// start (none when a ready spare took over) and the replays.
    #[serde(default)]
    pub ms: u32,
    /// `true` when the session was rebuilt before this run started (its
    /// worker had been parked to make room, or had ended between runs), and
    /// the run itself went as usual; absent when this run was stopped and
    /// the session rebuilt after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_run: Option<bool>,
}

/// Whether parts of the result were cut at the limits.
#[derive(
    Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Default, FromSource,
)]
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
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, FromSource)]
// In the browser read field by field (crate::js::reader), natively by serde's derive.
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
    /// Code that ran but is dangerous, and figures that show or say nothing;
    /// never an error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<LintWarning>,
    /// The calls the code made to the embedding page's functions, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_calls: Vec<HostCallRecord>,
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
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
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
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
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
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
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

// Read by serde in the browser too (see crate::js::reader).
crate::js::reader::read_by_serde!(MemoryUse);

crate::js::reader::deserialize_by_hand!(RunResult, OutputChunk);
