//! Tool outcomes as MCP `CallToolResult`s: text a model reads first, images
//! for figures, resources for files, and the whole structured result.

use base64::prelude::{Engine as _, BASE64_STANDARD};
use serde::Serialize;

use super::summary::{check_summary, run_summary};
use crate::format;
use crate::js::bulk::Text;
#[cfg(doc)]
use crate::names::ERROR_CODE_META;
use crate::names::{ERROR_INTERNAL, ERROR_INVALID_PARAMS, FILE_URI_TEMPLATE};
use crate::protocol::{Artifact, CheckReport, RunResult};
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
    /// The call could not be made: no Python, or the run ended without a result.
    Failed(String),
    /// The call's arguments did not fit the tool's schema: the model's to fix.
    Invalid(String),
}

/// Text files up to this size come back inline as embedded resources;
/// larger ones as links to read with `resources/read`.
const INLINE_TEXT_BYTES: u64 = 64 * 1024;

/// An MCP `CallToolResult`, typed rather than JSON so that the result's
/// [`Text`] (output, figures, files) reaches the client as it is: in the
/// browser it never passes through wasm memory on the way.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult<'a> {
    content: Vec<Block<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<Structured<'a>>,
    is_error: bool,
    /// For a call that failed without a result: why, as a JSON-RPC error
    /// code under [`ERROR_CODE_META`], for programs (a model reads the text).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<FailureMeta>,
}

/// The `_meta` of a failed call's result.
#[derive(Serialize, Debug)]
struct FailureMeta {
    #[serde(rename = "sandpit/errorCode")]
    error_code: i32,
}

impl CallToolResult<'_> {
    /// The same result with `note` as one more text block, for the model to read.
    pub fn with_note(mut self, note: String) -> Self {
        self.content.push(Block::Text { text: note.into() });
        self
    }
}

/// The whole outcome, for clients that read structure rather than text.
#[derive(Serialize, Debug)]
#[serde(untagged)]
enum Structured<'a> {
    Run(&'a RunResult),
    Check(&'a CheckReport),
    Reset(&'a SessionReset),
}

/// One content block of a tool result.
#[derive(Serialize, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: Text,
    },
    Image {
        data: Text,
        #[serde(rename = "mimeType")]
        mime_type: &'static str,
    },
    Resource {
        resource: Resource<'a>,
    },
    ResourceLink {
        uri: String,
        name: &'a str,
        #[serde(rename = "mimeType")]
        mime_type: &'a str,
        size: u64,
    },
}

/// An embedded file: its text, or else its bytes (base64); also what
/// `resources/read` answers.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Resource<'a> {
    /// The file's URI ([`file_uri`]).
    pub uri: String,
    /// Its MIME type.
    pub mime_type: &'a str,
    /// Its content, when that is UTF-8 text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<Text>,
    /// Otherwise its bytes, as base64.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<Text>,
}

/// The MCP `CallToolResult` for `outcome`.
pub fn call_result(outcome: &ToolOutcome) -> CallToolResult<'_> {
    let text = |text: String| Block::Text { text: text.into() };
    match outcome {
        ToolOutcome::Ran { session, result } => run_result(session, result),
        ToolOutcome::Checked(report) => CallToolResult {
            content: vec![text(check_summary(report))],
            structured_content: Some(Structured::Check(report)),
            is_error: false,
            meta: None,
        },
        ToolOutcome::Reset(reset) => CallToolResult {
            content: vec![text(format!(
                "Session {} was reset: its variables, imports and files are gone.",
                format::quoted(&reset.session)
            ))],
            structured_content: Some(Structured::Reset(reset)),
            is_error: false,
            meta: None,
        },
        ToolOutcome::Failed(message) => failure(message, ERROR_INTERNAL),
        ToolOutcome::Invalid(message) => failure(message, ERROR_INVALID_PARAMS),
    }
}

fn failure(message: &str, error_code: i32) -> CallToolResult<'static> {
    CallToolResult {
        content: vec![Block::Text {
            text: message.into(),
        }],
        structured_content: None,
        is_error: true,
        meta: Some(FailureMeta { error_code }),
    }
}

fn run_result<'a>(session: &str, result: &'a RunResult) -> CallToolResult<'a> {
    let mut content = vec![Block::Text {
        text: run_summary(result),
    }];
    for display in &result.displays {
        if let Some(png) = &display.png {
            content.push(Block::Image {
                data: png.clone(),
                mime_type: "image/png",
            });
        } else if let Some(svg) = &display.svg {
            content.push(Block::Image {
                data: svg.with_str(|svg| BASE64_STANDARD.encode(svg)).into(),
                mime_type: "image/svg+xml",
            });
        }
    }
    content.extend(result.artifacts.iter().map(|a| artifact_block(session, a)));
    CallToolResult {
        content,
        structured_content: Some(Structured::Run(result)),
        is_error: !result.succeeded(),
        meta: None,
    }
}

/// A file the run wrote: inline when its bytes came back (text as text),
/// else a link the client can read with `resources/read`.
fn artifact_block<'a>(session: &str, artifact: &'a Artifact) -> Block<'a> {
    let uri = file_uri(session, &artifact.path);
    let Some(content) = &artifact.content_base64 else {
        return Block::ResourceLink {
            uri,
            name: &artifact.path,
            mime_type: &artifact.mime,
            size: artifact.size,
        };
    };
    let text = (is_text(&artifact.mime) && artifact.size <= INLINE_TEXT_BYTES)
        .then(|| content.with_str(decode_utf8))
        .flatten();
    let blob = text.is_none().then(|| content.clone());
    Block::Resource {
        resource: Resource {
            uri,
            mime_type: &artifact.mime,
            text: text.map(Text::from),
            blob,
        },
    }
}

/// The URI of a file in a session's working directory, as resources name it
/// ([`FILE_URI_TEMPLATE`]). Encoded parts hold no braces, so the path is
/// never taken for a placeholder.
pub fn file_uri(session: &str, path: &str) -> String {
    let path: Vec<String> = path.split('/').map(encode).collect();
    FILE_URI_TEMPLATE
        .replace("{session}", &encode(session))
        .replace("{path}", &path.join("/"))
}

/// The session and path a [`file_uri`] names.
pub fn parse_file_uri(uri: &str) -> Option<(String, String)> {
    let (prefix, rest) = FILE_URI_TEMPLATE.split_once("{session}")?;
    let (between, _) = rest.split_once("{path}")?;
    let (session, path) = uri.strip_prefix(prefix)?.split_once(between)?;
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

/// Base64 that decodes to UTF-8 text, as text.
pub fn decode_utf8(encoded: &str) -> Option<String> {
    let bytes = BASE64_STANDARD.decode(encoded).ok()?;
    String::from_utf8(bytes).ok()
}
