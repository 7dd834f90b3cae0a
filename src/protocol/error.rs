//! An exception shaped for repair: where it happened, the source around
//! it, and a machine-readable hint.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::repair::Fix;
use crate::js::reader::{FromSource, WireName};

/// One line of the user's code, for showing context around an error.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct SourceLine {
    /// 1-based line number.
    pub line: u32,
    /// The line's text.
    pub text: String,
}

/// What kind of help a model needs to repair a failed run.
#[derive(
    Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource, WireName,
)]
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

/// A machine-readable repair hint with a sentence for humans and models.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct Hint {
    /// What kind of problem.
    pub code: HintCode,
    /// What to do about it.
    pub message: String,
}

/// An exception raised by the user's code, shaped so a model can repair it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
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
    /// A fix Sandpit proposes, tried before it is offered (`verified` says
    /// whether the trial proved it); absent when the error has no
    /// mechanical fix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<Box<Fix>>,
}
