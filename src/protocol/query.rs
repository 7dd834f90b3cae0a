//! Questions for Python that change no session (a file's bytes, a check
//! of code, completions) and their answers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::RunError;
use super::repair::LintWarning;
use crate::js::reader::{FromSource, WireName};

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
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, FromSource, WireName)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Answer {
    /// Answers [`Query::ReadFile`].
    File {
        /// The bytes, base64.
        content_base64: String,
    },
    /// Answers [`Query::Check`].
    Check {
        /// The findings (boxed: with a fix and warnings they dwarf the other answers).
        report: Box<CheckReport>,
    },
    /// Answers [`Query::Complete`].
    Complete {
        /// The names found.
        completions: Completions,
    },
}

/// Code checked without running it: a model's dry run before it spends a run.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
// In the browser read field by field (crate::js::reader), natively by serde's derive.
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
#[serde(deny_unknown_fields)]
pub struct CheckReport {
    /// Why the code does not compile, if it does not (shaped as a run's error).
    pub syntax_error: Option<RunError>,
    /// Each top-level module the code imports, in order of first appearance.
    pub imports: Vec<ImportPlan>,
    /// Code that would run but is dangerous, with fixes (not tried: a check
    /// runs nothing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<LintWarning>,
}

/// Where one imported module would come from.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
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
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
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
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct CompletionOption {
    /// The name.
    pub name: String,
    /// What it names.
    pub kind: CompletionKind,
}

/// What a completed name names.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource)]
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
#[derive(
    Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource, WireName,
)]
#[serde(rename_all = "snake_case")]
pub enum Availability {
    /// The standard library, or a package that ships with Sandpit: works offline.
    Offline,
    /// A Pyodide package downloaded on first use: needs the network once.
    Network,
    /// No build of it exists for the browser.
    Unavailable,
}

crate::js::reader::deserialize_by_hand!(CheckReport);
