//! What each JSON-RPC message asks of the MCP server, and the replies it
//! gets. Tool calls and file reads need Python, so they come back as
//! [`Reply`] variants for the caller to carry out and answer with
//! [`Server::tool_response`] and [`Server::resource_response`].

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::content::{self, parse_file_uri, CallToolResult, ToolOutcome};
use crate::protocol::FileEntry;
use crate::tools::{Tool, ToolCall, ToolError};

/// Protocol revisions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC error codes.
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
/// MCP's code for a resource that does not exist.
const RESOURCE_NOT_FOUND: i64 = -32002;

/// What to do about one incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Send this message back.
    Send(Value),
    /// Make this tool call, then send [`Server::tool_response`].
    Call {
        /// The request's id.
        id: Value,
        /// The checked call.
        call: ToolCall,
        /// Where to send progress notifications, if the client asked for them.
        progress_token: Option<Value>,
        /// Whether to send output as notifications/message while the code runs.
        /// A client that only wants the result says `"sandpit/streamOutput": false`
        /// in the call's `_meta`: the result holds the same output, so each
        /// chunk would otherwise cross to the page twice.
        stream_output: bool,
    },
    /// Send [`Server::tool_response`] for this outcome: a call that failed
    /// before it could be made (bad arguments are the model's to fix).
    Answer {
        /// The request's id.
        id: Value,
        /// Why it failed.
        outcome: ToolOutcome,
    },
    /// Read this file, then send [`Server::resource_response`].
    ReadFile {
        /// The request's id.
        id: Value,
        /// The resource's URI.
        uri: String,
        /// The session.
        session: String,
        /// Path in its working directory.
        path: String,
    },
    /// The client cancelled the request with this id.
    Cancel(Value),
    /// Nothing to send (a notification).
    Nothing,
}

/// One client's connection state.
#[derive(Debug, Default)]
pub struct Server {
    /// Files each session had after its last run, for `resources/list`.
    files: BTreeMap<String, Vec<FileEntry>>,
}

impl Server {
    /// A server waiting for `initialize`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Decides what `message` (one JSON-RPC message) asks for.
    pub fn handle(&mut self, message: &Value) -> Reply {
        let Some(object) = message.as_object() else {
            let why = if message.is_array() {
                "batches are not supported: send one message at a time"
            } else {
                "a JSON-RPC message must be an object"
            };
            return Reply::Send(error(&Value::Null, INVALID_REQUEST, why));
        };
        let id = object.get("id").cloned();
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            let id = id.unwrap_or(Value::Null);
            return Reply::Send(error(&id, INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\""));
        }
        let Some(method) = object.get("method").and_then(Value::as_str) else {
            // A response to something we never ask: nothing to do.
            return Reply::Nothing;
        };
        let params = object.get("params").cloned().unwrap_or(Value::Null);
        match id {
            Some(id) => self.request(id, method, &params),
            None => notification(method, &params),
        }
    }

    fn request(&mut self, id: Value, method: &str, params: &Value) -> Reply {
        let result = match method {
            "initialize" => initialize(params),
            "ping" | "logging/setLevel" => json!({}),
            "tools/list" => json!({"tools": Tool::ALL.map(Tool::descriptor)}),
            "tools/call" => return call(id, params),
            "resources/list" => json!({"resources": self.resources()}),
            "resources/templates/list" => json!({"resourceTemplates": [{
                "uriTemplate": "sandpit://sessions/{session}/files/{path}",
                "name": "session-file",
                "title": "A file in a Python session's working directory",
            }]}),
            "resources/read" => return read(id, params),
            _ => {
                let message = format!("method {method:?} is not supported");
                return Reply::Send(error(&id, METHOD_NOT_FOUND, &message));
            }
        };
        Reply::Send(response(&id, result))
    }

    fn resources(&self) -> Vec<Value> {
        self.files
            .iter()
            .flat_map(|(session, files)| {
                files.iter().map(move |file| {
                    json!({
                        "uri": content::file_uri(session, &file.path),
                        "name": file.path,
                        "title": format!("{} (session {session})", file.path),
                        "size": file.size,
                    })
                })
            })
            .collect()
    }

    /// The response to tool call `id`; also remembers the files a run left.
    pub fn tool_response<'a>(
        &mut self,
        id: &'a Value,
        outcome: &'a ToolOutcome,
    ) -> Response<'a, CallToolResult<'a>> {
        if let ToolOutcome::Ran { session, result } = outcome {
            self.files.insert(session.clone(), result.files.clone());
        }
        Response {
            jsonrpc: JSONRPC,
            id,
            result: content::call_result(outcome),
        }
    }

    /// The response to `resources/read` request `id`: the file's bytes, or why not.
    pub fn resource_response(
        id: &Value,
        uri: &str,
        path: &str,
        read: Result<String, String>,
    ) -> Value {
        match read {
            Ok(content_base64) => {
                let mime = mime_of(path);
                let text = content::is_text(mime)
                    .then(|| content::decode_utf8(&content_base64))
                    .flatten();
                let contents = match text {
                    Some(text) => json!({"uri": uri, "mimeType": mime, "text": text}),
                    None => json!({"uri": uri, "mimeType": mime, "blob": content_base64}),
                };
                response(id, json!({"contents": [contents]}))
            }
            Err(why) => error(id, RESOURCE_NOT_FOUND, &format!("{uri}: {why}")),
        }
    }
}

fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked
        .filter(|v| PROTOCOL_VERSIONS.contains(v))
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {
            "tools": {"listChanged": false},
            "resources": {"listChanged": false},
            "logging": {},
        },
        "serverInfo": {
            "name": "sandpit",
            "title": "Sandpit",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "instructions": "Python runs in a sandbox in the user's browser. Use run_python to \
            run code (sessions keep variables between calls), check_python to check code \
            and its imports without running it, reset_session to start a session afresh. \
            While code runs, its output arrives as notifications/message with logger \
            \"stdout\" or \"stderr\" (unless the call's _meta has \"sandpit/streamOutput\": \
            false); the result holds all of it.",
    })
}

fn call(id: Value, params: &Value) -> Reply {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Reply::Send(error(
            &id,
            INVALID_PARAMS,
            "tools/call needs a tool \"name\"",
        ));
    };
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    let meta = params.get("_meta");
    let progress_token = meta.and_then(|meta| meta.get("progressToken")).cloned();
    let stream_output = meta
        .and_then(|meta| meta.get("sandpit/streamOutput"))
        .and_then(Value::as_bool)
        != Some(false);
    match ToolCall::parse(name, arguments) {
        Ok(call) => Reply::Call {
            id,
            call,
            progress_token,
            stream_output,
        },
        Err(unknown @ ToolError::Unknown(_)) => {
            Reply::Send(error(&id, INVALID_PARAMS, &unknown.to_string()))
        }
        // Bad arguments are the model's to fix: a tool error it can read.
        Err(invalid) => Reply::Answer {
            id,
            outcome: ToolOutcome::Failed(invalid.to_string()),
        },
    }
}

fn read(id: Value, params: &Value) -> Reply {
    let uri = params
        .get("uri")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match parse_file_uri(uri) {
        Some((session, path)) => Reply::ReadFile {
            id,
            uri: uri.to_owned(),
            session,
            path,
        },
        None => {
            let message = format!(
                "{uri:?} is not a Sandpit file URI (sandpit://sessions/<session>/files/<path>)"
            );
            Reply::Send(error(&id, RESOURCE_NOT_FOUND, &message))
        }
    }
}

fn notification(method: &str, params: &Value) -> Reply {
    match (method, params.get("requestId")) {
        ("notifications/cancelled", Some(request)) => Reply::Cancel(request.clone()),
        _ => Reply::Nothing,
    }
}

/// The MIME type of a file name, for the few kinds a model reads.
fn mime_of(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("txt" | "log" | "py" | "md") => "text/plain",
        Some("csv") => "text/csv",
        Some("json") => "application/json",
        Some("html" | "htm") => "text/html",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("pdf") => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// The JSON-RPC version every message names.
const JSONRPC: &str = "2.0";

/// A successful JSON-RPC response with a result of any serialisable type.
#[derive(Serialize, Debug)]
pub struct Response<'a, T> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: T,
}

/// A JSON-RPC notification with parameters of any serialisable type.
#[derive(Serialize, Debug)]
pub struct Notification<'a, T> {
    jsonrpc: &'static str,
    method: &'a str,
    params: T,
}

/// A successful JSON-RPC response.
pub fn response(id: &Value, result: Value) -> Value {
    json!(Response {
        jsonrpc: JSONRPC,
        id,
        result
    })
}

/// A JSON-RPC error response.
pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": JSONRPC, "id": id, "error": {"code": code, "message": message}})
}

/// A JSON-RPC notification.
pub fn notification_message<T: Serialize>(method: &str, params: T) -> Notification<'_, T> {
    Notification {
        jsonrpc: JSONRPC,
        method,
        params,
    }
}
