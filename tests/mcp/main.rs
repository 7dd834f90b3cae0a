//! The MCP server's decisions and the tool definitions, as plain JSON: what
//! each message gets back, how arguments are checked, and the content blocks
//! a run's result becomes. The browser tests drive the same code through
//! postMessage with the official SDK.

use base64::Engine;
use sandpit::js::bulk::Json;
use sandpit::mcp::content::{call_result, file_uri, parse_file_uri};
use sandpit::mcp::{resources, Reply, Server, ToolOutcome};
use sandpit::names::{ERROR_CODE_META, ERROR_INTERNAL, ERROR_INVALID_PARAMS};
use sandpit::protocol::{RunResult, DEFAULT_SESSION};
use sandpit::tools::{Tool, ToolCall};
use serde_json::{json, Value};

mod content;
mod functions;
mod server;
mod summary;

fn request(method: &str, params: Value) -> Json {
    Json::from(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
}

/// `value` as a `serde_json::Value`, to look into.
fn value(value: impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("serialisable")
}

fn sent(reply: Reply) -> Value {
    match reply {
        Reply::Send(message) => value(message),
        other => panic!("expected a message to send, got {other:?}"),
    }
}

/// The response `server` gives for a call it answers without making it.
fn answered(server: &mut Server, reply: Reply) -> Value {
    match reply {
        Reply::Answer { id, outcome } => value(server.tool_response(&id, &outcome)),
        other => panic!("expected a tool result, got {other:?}"),
    }
}

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn result(value: Value) -> RunResult {
    let mut base = json!({
        "status": "ok", "stdout": "", "stderr": "", "output": [], "value": null, "displays": [],
        "error": null, "exit_code": null, "duration_ms": 12.0,
        "truncated": {"output": false, "output_bytes_total": 0, "displays": false},
        "blocked": [], "artifacts": [], "files": [], "restored": null
    });
    for (key, field) in value.as_object().expect("an object") {
        base[key] = field.clone();
    }
    serde_json::from_value(base).expect("a RunResult")
}

fn ran(value: Value) -> Value {
    let outcome = ToolOutcome::Ran {
        session: "main".into(),
        result: Box::new(result(value)),
    };
    serde_json::to_value(call_result(&outcome)).expect("serialisable")
}
