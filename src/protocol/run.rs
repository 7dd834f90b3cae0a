//! What a caller asks to run: the code, its session, its limits and the
//! files it hands in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::host_call::HostFunction;

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
    /// Functions of the embedding page the code may call (`from sandpit
    /// import host`); none unless the run's caller registered some and
    /// allows this session.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_functions: Vec<HostFunction>,
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
            host_functions: Vec::new(),
        }
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
