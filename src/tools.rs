//! The tools Sandpit offers a model, defined once.
//!
//! Each tool's name, description, argument type and result type live here.
//! The JSON Schemas every surface advertises (MCP's `tools/list`, WebMCP's
//! `registerTool`) are generated from those types, calls from every surface
//! are parsed by [`ToolCall::parse`], and the page's Run button builds the
//! same [`RunPythonArgs`], so no surface can drift from another.

use base64::prelude::{Engine as _, BASE64_STANDARD};
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::format::quoted;
use crate::js::bulk::Json;
use crate::js::json_data::JsonError;
use crate::protocol::{CheckReport, InputFile, RunRequest, RunResult, DEFAULT_SESSION};

/// One of the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// Runs code and returns everything a model needs to check and repair it.
    RunPython,
    /// Checks code without running it.
    CheckPython,
    /// Forgets a session's variables.
    ResetSession,
}

impl Tool {
    /// Every tool, in the order they are listed.
    pub const ALL: [Self; 3] = [Self::RunPython, Self::CheckPython, Self::ResetSession];

    /// The tool's name on every surface.
    pub fn name(self) -> &'static str {
        match self {
            Self::RunPython => "run_python",
            Self::CheckPython => "check_python",
            Self::ResetSession => "reset_session",
        }
    }

    /// The tool called `name`, if there is one.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|tool| tool.name() == name)
    }

    /// A short human-readable name.
    pub fn title(self) -> &'static str {
        match self {
            Self::RunPython => "Run Python",
            Self::CheckPython => "Check Python",
            Self::ResetSession => "Reset a Python session",
        }
    }

    /// What the tool does, written for the model that decides whether to call it.
    pub fn description(self) -> &'static str {
        match self {
            Self::RunPython => {
                "Run Python 3 (Pyodide) in a sandbox inside the user's browser. Like a \
                 notebook cell: top-level `await` works and the last expression's value is \
                 returned. Variables, imports and files persist per session. Returns stdout, \
                 stderr, the value, figures (matplotlib is captured automatically), files the \
                 code wrote, and on failure the error with its line and a repair hint. Packages \
                 load on import: pure-Python ones such as sympy ship with Sandpit, and numpy, \
                 pandas, matplotlib and the other Pyodide packages download on first use. \
                 There is no other network access unless the deployment allows it, and no \
                 stdin. Use check_python first to see which imports need the network. \
                 Send `tests` with the code to verify it: Python run after the code in the \
                 same namespace, made of top-level asserts and/or `def test_*` functions; \
                 the result's `verification` lists each test as passed or failed, with the \
                 compared values of a failed assert (e.g. `assert 4 == 5` where 4 = \
                 add(2, 2)), and the call is an error when a test fails."
            }
            Self::CheckPython => {
                "Check Python code without running it: whether it compiles (the syntax error \
                 with its line if not), and for each import whether it works offline, needs \
                 to download a package first, or is unavailable in the browser."
            }
            Self::ResetSession => {
                "Forget a session's variables and imports and delete the files in its working \
                 directory, as if Python had just started there. Write files again (or send them \
                 with run_python's `files`) if later code needs them."
            }
        }
    }

    /// Whether calling the tool changes nothing (MCP's `readOnlyHint`).
    pub fn read_only(self) -> bool {
        self == Self::CheckPython
    }

    /// Whether the tool's result may carry content nobody vouches for: what
    /// the code read from the user's files or, where the deployment allows,
    /// the network, which may hold instructions aimed at the model (WebMCP's
    /// `untrustedContentHint`; MCP has no such annotation, and its clients
    /// ignore one they do not know).
    pub fn untrusted_content(self) -> bool {
        self == Self::RunPython
    }

    /// JSON Schema of the tool's arguments.
    pub fn input_schema(self) -> Value {
        match self {
            Self::RunPython => portable_schema::<RunPythonArgs>(),
            Self::CheckPython => portable_schema::<CheckPythonArgs>(),
            Self::ResetSession => portable_schema::<ResetSessionArgs>(),
        }
    }

    /// JSON Schema of the tool's structured result.
    pub fn output_schema(self) -> Value {
        match self {
            Self::RunPython => portable_schema::<RunResult>(),
            Self::CheckPython => portable_schema::<CheckReport>(),
            Self::ResetSession => portable_schema::<SessionReset>(),
        }
    }

    /// Every tool as MCP's `tools/list` describes it, in [`Tool::ALL`]'s
    /// order; WebMCP takes the same fields.
    ///
    /// Read from src/tools.json, which holds [`Tool::generated_descriptor`]
    /// for every tool (`make schema` writes it; a native test fails when it
    /// is stale): shipping the JSON rather than its generator keeps schemars
    /// out of the app's wasm. In the browser `JSON.parse` reads it:
    /// serde_json's text parser (number parsing included) stays out of the
    /// app's wasm, which reads no other JSON text.
    pub fn descriptors() -> Json {
        #[cfg(target_arch = "wasm32")]
        return Json::from(js_sys::JSON::parse(SHIPPED_DESCRIPTORS).unwrap_or_default());
        #[cfg(not(target_arch = "wasm32"))]
        Json::from(serde_json::from_str::<Value>(SHIPPED_DESCRIPTORS).unwrap_or_default())
    }

    /// The tool's descriptor generated from its Rust types.
    pub fn generated_descriptor(self) -> Value {
        serde_json::json!({
            "name": self.name(),
            "title": self.title(),
            "description": self.description(),
            "inputSchema": self.input_schema(),
            "outputSchema": self.output_schema(),
            "annotations": {
                "title": self.title(),
                "readOnlyHint": self.read_only(),
                "destructiveHint": self == Self::ResetSession,
                "idempotentHint": self != Self::RunPython,
                "openWorldHint": false,
                "untrustedContentHint": self.untrusted_content(),
            },
        })
    }
}

/// Every tool's descriptor, generated from the types in this module: the
/// text of src/tools.json without its indentation (`build.rs`).
pub const SHIPPED_DESCRIPTORS: &str = include_str!(concat!(env!("OUT_DIR"), "/tools.json"));

/// A JSON Schema for `T` that every JSON Schema validator the tool surfaces
/// use accepts: draft-07 (what MCP clients validate with), without `$schema`
/// and without the numeric `format`s (`uint32`, ...) that strict validators
/// reject as unknown.
fn portable_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft07().into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
    }
    strip_numeric_formats(&mut schema);
    schema
}

fn strip_numeric_formats(schema: &mut Value) {
    const NUMERIC: [&str; 8] = [
        "int8", "int16", "int32", "int64", "uint", "uint32", "uint64", "double",
    ];
    match schema {
        Value::Object(object) => {
            let numeric = object
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|format| NUMERIC.contains(&format));
            if numeric {
                object.remove("format");
            }
            object.values_mut().for_each(strip_numeric_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_numeric_formats),
        _ => {}
    }
}

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

fn valid_session(session: String) -> Result<String, String> {
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

/// A call of one of the tools, with its arguments checked.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCall {
    /// `run_python`.
    RunPython(RunRequest),
    /// `check_python`.
    CheckPython {
        /// The code.
        code: String,
    },
    /// `reset_session`.
    ResetSession {
        /// The session.
        session: String,
    },
}

/// Why a call was not made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// No tool has that name.
    #[error("there is no tool {}; the tools are run_python, check_python and reset_session", quoted(.0))]
    Unknown(String),
    /// The arguments do not fit the tool's input schema.
    #[error("invalid arguments for {tool}: {reason}")]
    InvalidArguments {
        /// The tool.
        tool: &'static str,
        /// What is wrong, for the model to fix.
        reason: String,
    },
}

impl ToolCall {
    /// Checks `arguments` (a JSON object, or null for none) against the tool called `name`.
    pub fn parse(name: &str, arguments: &Json) -> Result<Self, ToolError> {
        Self::parse_in(name, arguments, DEFAULT_SESSION)
    }

    /// As [`ToolCall::parse`], with `session` where the arguments name none
    /// (the Ask panel's model works in the page's current session).
    pub fn parse_in(name: &str, arguments: &Json, session: &str) -> Result<Self, ToolError> {
        let tool = Tool::named(name).ok_or_else(|| ToolError::Unknown(name.to_owned()))?;
        // No arguments read as no fields; the empty object is made only then.
        let none;
        let arguments = if arguments.is_null() {
            none = Json::empty_object();
            &none
        } else {
            arguments
        };
        let invalid = |reason: String| ToolError::InvalidArguments {
            tool: tool.name(),
            reason,
        };
        let parse_error = |e: JsonError| invalid(e.to_string());
        match tool {
            Tool::RunPython => {
                let mut args: RunPythonArgs = arguments.read().map_err(parse_error)?;
                args.session = args.session.or_else(|| Some(session.to_owned()));
                args.into_request().map(Self::RunPython).map_err(invalid)
            }
            Tool::CheckPython => {
                let CheckPythonArgs { code } = arguments.read().map_err(parse_error)?;
                Ok(Self::CheckPython { code })
            }
            Tool::ResetSession => {
                let ResetSessionArgs { session: named } = arguments.read().map_err(parse_error)?;
                let session = named.unwrap_or_else(|| session.to_owned());
                Ok(Self::ResetSession {
                    session: valid_session(session).map_err(invalid)?,
                })
            }
        }
    }
}
