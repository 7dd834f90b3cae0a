//! Each tool's arguments and the result of `reset_session`: the types its
//! schemas are generated from, and a run's arguments as a request.

use base64::prelude::{Engine as _, BASE64_STANDARD};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::format::quoted;
use crate::protocol::{InputFile, RunRequest, DEFAULT_SESSION};

/// Arguments of `run_python`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct RunPythonArgs {
    /// Python source. The value of the last expression is returned.
    pub code: String,
    /// Session to run in: runs in the same session share variables, imports
    /// and files. Default "main".
    #[serde(default)]
    pub session: Option<String>,
    /// Seconds the code may run before it is stopped (package downloads do
    /// not count). Default 30; 0 means no limit.
    #[serde(default)]
    pub timeout_seconds: Option<f64>,
    /// Files to write into the session's working directory (the code's
    /// current directory) before it runs.
    #[serde(default)]
    pub files: Vec<ToolFile>,
    /// Packages to load before running, besides those the imports name
    /// (e.g. "scikit-learn").
    #[serde(default)]
    pub packages: Vec<String>,
    /// How large the session's interpreter memory may grow during the run,
    /// in MiB (64 to 4096); allocations past it fail with MemoryError.
    /// Default: the deployment's (1024 unless it says otherwise).
    #[serde(default)]
    pub memory_limit_mb: Option<u32>,
    /// Python that checks the code, run after it in the same namespace:
    /// top-level asserts and/or `def test_*` functions, e.g.
    /// "assert add(2, 2) == 4". Each is reported in `verification`.
    #[serde(default)]
    pub tests: Option<String>,
}

/// A file handed to `run_python`: text, or any bytes as base64.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ToolFile {
    /// Path relative to the working directory, e.g. "data/input.csv".
    pub path: String,
    /// The content as UTF-8 text (give this or `content_base64`).
    #[serde(default)]
    pub text: Option<String>,
    /// The content as base64 (for binary files).
    #[serde(default)]
    pub content_base64: Option<String>,
}

impl From<InputFile> for ToolFile {
    fn from(file: InputFile) -> Self {
        Self {
            path: file.path,
            text: None,
            content_base64: Some(file.content_base64),
        }
    }
}

impl ToolFile {
    fn into_input(self) -> Result<InputFile, String> {
        let content_base64 = match (self.text, self.content_base64) {
            (Some(text), None) => BASE64_STANDARD.encode(text),
            (None, Some(encoded)) => {
                BASE64_STANDARD.decode(&encoded).map_err(|e| {
                    format!(
                        "file {}: content_base64 is not base64: {e}",
                        quoted(&self.path)
                    )
                })?;
                encoded
            }
            _ => {
                return Err(format!(
                    "file {}: give exactly one of `text` and `content_base64`",
                    quoted(&self.path)
                ))
            }
        };
        Ok(InputFile {
            path: self.path,
            content_base64,
        })
    }
}

impl RunPythonArgs {
    /// The run these arguments ask for.
    pub fn into_request(self) -> Result<RunRequest, String> {
        let timeout_ms = match self.timeout_seconds {
            None => RunRequest::new("").timeout_ms,
            Some(seconds) if seconds.is_finite() && seconds >= 0.0 => {
                timeout_ms_from_seconds(seconds)
            }
            Some(seconds) => {
                return Err(format!(
                    "timeout_seconds must be 0 (no limit) or more, not {seconds}"
                ))
            }
        };
        let files = self
            .files
            .into_iter()
            .map(ToolFile::into_input)
            .collect::<Result<_, _>>()?;
        let session = self.session.unwrap_or_else(|| DEFAULT_SESSION.to_owned());
        let mut request = RunRequest::new(self.code)
            .in_session(valid_session(session)?)
            .with_timeout_ms(timeout_ms)
            .with_files(files)
            .with_packages(self.packages)
            .with_tests(self.tests);
        if let Some(megabytes) = self.memory_limit_mb {
            let bytes = crate::runtime::pool::memory_limit_bytes(megabytes)
                .map_err(|why| format!("memory_limit_mb {why}"))?;
            request.memory_limit_bytes = Some(bytes);
        }
        Ok(request)
    }
}

/// Seconds as milliseconds; 0 or less (or nonsense) means no limit.
pub fn timeout_ms_from_seconds(seconds: f64) -> Option<u32> {
    (seconds.is_finite() && seconds > 0.0)
        .then(|| (seconds * 1000.0).min(f64::from(u32::MAX)) as u32)
}

pub(super) fn valid_session(session: String) -> Result<String, String> {
    if session.trim().is_empty() {
        Err("session must not be empty".into())
    } else {
        Ok(session)
    }
}

/// Arguments of `check_python`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct CheckPythonArgs {
    /// Python source to check.
    pub code: String,
}

/// Arguments of `reset_session`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct ResetSessionArgs {
    /// The session to reset. Default "main".
    #[serde(default)]
    pub session: Option<String>,
}

/// What `reset_session` did.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SessionReset {
    /// The session whose variables are gone.
    pub session: String,
}
