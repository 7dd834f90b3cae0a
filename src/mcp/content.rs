//! Tool outcomes as MCP `CallToolResult`s: text a model reads first, images
//! for figures, resources for files, and the whole structured result.

use base64::Engine;
use serde_json::{json, Value};

use crate::protocol::{Artifact, CheckReport, RunResult, RunStatus};
use crate::tools::SessionReset;

/// What a tool call came to.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutcome {
    /// `run_python` ran in `session` (its status may still be an error).
    Ran {
        /// The session it ran in: its files' URIs name it.
        session: String,
        /// What happened.
        result: Box<RunResult>,
    },
    /// `check_python` checked.
    Checked(CheckReport),
    /// `reset_session` reset.
    Reset(SessionReset),
    /// The call could not be made: bad arguments, or no Python.
    Failed(String),
}

/// Text files up to this size come back inline as embedded resources;
/// larger ones as links to read with `resources/read`.
const INLINE_TEXT_BYTES: u64 = 64 * 1024;

/// The MCP `CallToolResult` for `outcome`.
pub fn call_result(outcome: &ToolOutcome) -> Value {
    match outcome {
        ToolOutcome::Ran { session, result } => run_result(session, result),
        ToolOutcome::Checked(report) => json!({
            "content": [{"type": "text", "text": check_summary(report)}],
            "structuredContent": report,
            "isError": false,
        }),
        ToolOutcome::Reset(reset) => json!({
            "content": [{"type": "text", "text": format!(
                "Session {:?} was reset: its variables and imports are gone, its files stay.",
                reset.session
            )}],
            "structuredContent": reset,
            "isError": false,
        }),
        ToolOutcome::Failed(message) => json!({
            "content": [{"type": "text", "text": message}],
            "isError": true,
        }),
    }
}

fn run_result(session: &str, result: &RunResult) -> Value {
    let mut content = vec![json!({"type": "text", "text": run_summary(result)})];
    for display in &result.displays {
        if let Some(png) = &display.png {
            content.push(json!({"type": "image", "data": png, "mimeType": "image/png"}));
        } else if let Some(svg) = &display.svg {
            let data = base64_of(svg.as_bytes());
            content.push(json!({"type": "image", "data": data, "mimeType": "image/svg+xml"}));
        }
    }
    content.extend(result.artifacts.iter().map(|a| artifact_block(session, a)));
    json!({
        "content": content,
        "structuredContent": result,
        "isError": result.status != RunStatus::Ok,
    })
}

/// A file the run wrote: inline when its bytes came back (text as text),
/// else a link the client can read with `resources/read`.
fn artifact_block(session: &str, artifact: &Artifact) -> Value {
    let uri = file_uri(session, &artifact.path);
    let text = artifact
        .content_base64
        .as_deref()
        .filter(|_| is_text(&artifact.mime) && artifact.size <= INLINE_TEXT_BYTES)
        .and_then(decode_utf8);
    match (&artifact.content_base64, text) {
        (_, Some(text)) => json!({"type": "resource", "resource": {
            "uri": uri, "mimeType": artifact.mime, "text": text,
        }}),
        (Some(blob), None) => json!({"type": "resource", "resource": {
            "uri": uri, "mimeType": artifact.mime, "blob": blob,
        }}),
        (None, None) => json!({
            "type": "resource_link",
            "uri": uri,
            "name": artifact.path,
            "mimeType": artifact.mime,
            "size": artifact.size,
        }),
    }
}

/// What a run did, as a model reads it: how it ended, its output, its value,
/// and for a failure the error with its line and a repair hint.
pub fn run_summary(result: &RunResult) -> String {
    let mut text = match result.status {
        RunStatus::Ok => format!("Ran in {:.0} ms.", result.duration_ms),
        RunStatus::Error => "The code raised an exception.".to_owned(),
        RunStatus::Timeout => "The code ran past its timeout and was stopped.".to_owned(),
        RunStatus::Crashed => "The Python interpreter crashed and was restarted.".to_owned(),
        RunStatus::Cancelled => "The run was cancelled.".to_owned(),
    };
    if let Some(code) = result.exit_code {
        text.push_str(&format!(" Exit code {code}."));
    }
    let mut section = |title: &str, body: &str| {
        if !body.is_empty() {
            text.push_str(&format!(
                "\n--- {title} ---\n{}",
                body.trim_end_matches('\n')
            ));
        }
    };
    section("stdout", &result.stdout);
    section("stderr", &result.stderr);
    if let Some(value) = &result.value {
        section("value", &value.repr);
    }
    if let Some(error) = &result.error {
        section("error", &error.traceback);
        if let Some(hint) = &error.hint {
            section("hint", &hint.message);
        }
    }
    let blocked: Vec<String> = result
        .blocked
        .iter()
        .map(|b| format!("{} (refused by {})", b.url, b.directive))
        .collect();
    section("blocked by the network policy", &blocked.join("\n"));
    if result.truncated.output {
        section(
            "note",
            &format!(
                "Output was cut: {} bytes were written in all.",
                result.truncated.output_bytes_total
            ),
        );
    }
    let files: Vec<String> = result
        .artifacts
        .iter()
        .map(|a| format!("{} ({} bytes, {})", a.path, a.size, a.mime))
        .collect();
    section("files written", &files.join("\n"));
    text
}

/// What `check_python` found, one line per import.
pub fn check_summary(report: &CheckReport) -> String {
    if let Some(error) = &report.syntax_error {
        let line = error
            .line
            .map(|l| format!(" on line {l}"))
            .unwrap_or_default();
        return format!(
            "The code does not compile{line}: {}: {}\n{}",
            error.kind, error.message, error.traceback
        );
    }
    let mut text = "The code compiles.".to_owned();
    if report.imports.is_empty() {
        text.push_str(" It imports nothing.");
    }
    for plan in &report.imports {
        let availability = serde_json::to_value(plan.availability)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        text.push_str(&format!(
            "\n{} (line {}): {availability}. {}",
            plan.module, plan.line, plan.message
        ));
    }
    text
}

const URI_PREFIX: &str = "sandpit://sessions/";

/// The URI of a file in a session's working directory, as resources name it.
pub fn file_uri(session: &str, path: &str) -> String {
    let path: Vec<String> = path.split('/').map(encode).collect();
    format!("{URI_PREFIX}{}/files/{}", encode(session), path.join("/"))
}

/// The session and path a [`file_uri`] names.
pub fn parse_file_uri(uri: &str) -> Option<(String, String)> {
    let rest = uri.strip_prefix(URI_PREFIX)?;
    let (session, path) = rest.split_once("/files/")?;
    let parts: Option<Vec<String>> = path.split('/').map(decode).collect();
    Some((decode(session)?, parts?.join("/")))
}

/// Percent-encodes everything but unreserved characters (RFC 3986).
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().filter(|s| !s.is_empty())
}

/// Whether a MIME type is text a model can read inline.
pub fn is_text(mime: &str) -> bool {
    mime.starts_with("text/")
        || ["application/json", "application/xml", "image/svg+xml"].contains(&mime)
        || mime.ends_with("+json")
}

fn base64_of(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Base64 that decodes to UTF-8 text, as text.
pub fn decode_utf8(encoded: &str) -> Option<String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    String::from_utf8(bytes).ok()
}
