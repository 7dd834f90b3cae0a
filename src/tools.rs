//! The tools Sandpit offers a model, defined once.
//!
//! Each tool's name, description, argument type and result type live here.
//! The JSON Schemas every surface advertises (MCP's `tools/list`, WebMCP's
//! `registerTool`) are generated from those types, calls from every surface
//! are parsed by [`ToolCall::parse`], and the page's Run button builds the
//! same [`RunPythonArgs`], so no surface can drift from another.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

mod args;

use crate::format::quoted;
use crate::js::bulk::Json;
use crate::js::json_data::JsonError;
use crate::protocol::{CheckReport, HostFunction, RunRequest, RunResult, DEFAULT_SESSION};
use crate::runtime::host_calls::CALLS_PER_RUN;
use args::valid_session;
pub use args::{
    timeout_ms_from_seconds, CheckPythonArgs, ResetSessionArgs, RunPythonArgs, SessionReset,
    ToolFile,
};

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
                 add(2, 2)), and the call is an error when a test fails. In tests, `from \
                 sandpit import verify` checks formulas (`verify.equivalent(a, b, 'x')`, \
                 symbolic then numeric with a counterexample), numbers within tolerances \
                 (`verify.close`) and the figures drawn (`verify.figures()`). When the code \
                 fails with a mechanical error (a missing import, a misspelling, a syntax \
                 slip), `error.fix` carries a fixed program and its diff; `verified` is true \
                 only when Sandpit ran it and it passed. `warnings` name code that runs but \
                 is dangerous (string-built SQL, eval of input, ...) with fixes."
            }
            Self::CheckPython => {
                "Check Python code without running it: whether it compiles (the syntax error \
                 with its line if not, and a fix where one compiles), for each import whether \
                 it works offline, needs to download a package first, or is unavailable in the \
                 browser, and `warnings` for dangerous code (string-built SQL, eval of input, \
                 unsafe deserialization, weak randomness or hashes for secrets), with fixes."
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
    ///
    /// Without the types' documentation: a client validates results with
    /// it, a model reads the text result, and the app's wasm embeds every
    /// descriptor. The documented shapes are the protocol's JSON Schema.
    pub fn output_schema(self) -> Value {
        let mut schema = match self {
            Self::RunPython => portable_schema::<RunResult>(),
            Self::CheckPython => portable_schema::<CheckReport>(),
            Self::ResetSession => portable_schema::<SessionReset>(),
        };
        strip_descriptions(&mut schema);
        schema
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

    /// Every tool's descriptor as [`Tool::descriptors`] gives them, with
    /// `run_python`'s description naming `functions`, the embedding page's
    /// functions its code may call (see [`offered_functions`]).
    pub fn descriptors_offering(functions: &[HostFunction]) -> Json {
        let all = Self::descriptors();
        if functions.is_empty() {
            return all;
        }
        let description = format!(
            "{}{}",
            Self::RunPython.description(),
            offered_functions(functions)
        );
        let run_python = Some(Self::RunPython.name());
        let tools: Vec<Json> = all
            .items()
            .into_iter()
            .map(
                |tool| match tool.get("name").and_then(|name| name.as_string()) {
                    name if name.as_deref() == run_python => tool.with("description", &description),
                    _ => tool,
                },
            )
            .collect();
        Json::of(&tools)
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

/// What `run_python`'s description adds when the embedding page offers
/// `functions` to the code: how to call them, then each with its signature
/// and description.
pub fn offered_functions(functions: &[HostFunction]) -> String {
    let mut text = format!(
        "\n\nThe embedding page offers the code these functions of its own: `from sandpit \
         import host`, then `await host.NAME(...)` (or, in code that does not await, \
         `host.NAME(...)`) with keyword arguments; arguments and values are JSON, checked \
         against each function's schema, and a failed call raises \
         `sandpit.HostFunctionError` with the page's message. Call them in a loop in one \
         program rather than one tool call per step; at most {CALLS_PER_RUN} calls per run, \
         each counting against its timeout. The result's `host_calls` lists the calls made."
    );
    for function in functions {
        text.push_str(&format!(
            "\n- `host.{}{}`",
            function.name, function.signature
        ));
        if !function.description.is_empty() {
            text.push_str(": ");
            text.push_str(&function.description);
        }
    }
    text
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

/// `schema` without its `description`s (a property named `description`,
/// whose value is a schema rather than text, stays).
fn strip_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if object.get("description").is_some_and(Value::is_string) {
                object.remove("description");
            }
            object.values_mut().for_each(strip_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
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
