//! The Ask panel's loop and what it sends and reads, natively: requests for
//! both APIs built from a conversation, streamed answers read event by
//! event, the loop's decisions for each turn of events (steps, the limit,
//! Stop, failures, bad tool calls), a reload, and the notebook export. The
//! browser tests (tests/e2e/ask-*.test.mjs) drive the same code against a
//! stub model server.

use sandpit::js::bulk::Json;
use sandpit::mcp::content::call_result;
use sandpit::mcp::ToolOutcome;
use sandpit::model::agent::{AskLoop, Effect, Event, Phase};
use sandpit::model::conversation::{AnswerEnd, Conversation, Entry, NoteKind, Verdict};
use sandpit::model::failure::HttpFailure;
use sandpit::model::notebook::{python_file, Notebook};
use sandpit::model::request::{build, INSTRUCTIONS};
use sandpit::model::settings::{KeyBinding, ModelSettings, Provider};
use sandpit::protocol::RunResult;
use sandpit::tools::{Tool, ToolCall};
use serde_json::{json, Value};

mod keeping;
mod providers;
mod repair;
mod stopping;

fn settings(provider: Provider) -> ModelSettings {
    ModelSettings {
        provider,
        endpoint: "http://127.0.0.1:9/v1".into(),
        model: "stub".into(),
        ..ModelSettings::default()
    }
}

/// A loop in `session` that was just asked `question`, and its settings.
fn asked(provider: Provider, session: &str, question: &str) -> (ModelSettings, AskLoop) {
    let settings = settings(provider);
    let mut ask = AskLoop::new(Conversation::new(session));
    assert_eq!(
        ask.start(Event::Ask(question), &settings),
        [Effect::Save, Effect::Request]
    );
    (settings, ask)
}

/// An OpenAI stream: text pieces, then tool calls `(id, name, argument pieces)`, then the end.
fn openai_stream(text: &[&str], calls: &[(&str, &str, &[&str])], done: bool) -> String {
    let mut out = String::new();
    let mut event = |delta: Value, finish: Value| {
        let chunk = json!({"id": "c", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        out.push_str(&format!("data: {chunk}\n\n"));
    };
    event(json!({"role": "assistant", "content": ""}), Value::Null);
    for piece in text {
        event(json!({"content": piece}), Value::Null);
    }
    for (index, (id, name, pieces)) in calls.iter().enumerate() {
        event(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
        );
        for piece in *pieces {
            event(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                Value::Null,
            );
        }
    }
    if done {
        let reason = if calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        };
        event(json!({}), json!(reason));
        out.push_str("data: [DONE]\n\n");
    }
    out
}

fn anthropic_stream(text: &str, call: Option<(&str, &str, &[&str])>) -> String {
    let mut out = String::new();
    let mut event =
        |name: &str, data: Value| out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}),
    );
    event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    event("ping", json!({"type": "ping"}));
    event(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
    );
    event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    if let Some((id, name, pieces)) = call {
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
        );
        for piece in pieces {
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": piece}}),
            );
        }
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        );
    }
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    out
}

/// A run's result with `fields` set, as the runner reports it.
fn run_result(fields: Value) -> RunResult {
    let mut base = json!({
        "status": "ok", "stdout": "", "stderr": "", "output": [], "value": null, "displays": [],
        "error": null, "exit_code": null, "duration_ms": 3.0,
        "truncated": {"output": false, "output_bytes_total": 0, "displays": false},
        "blocked": [], "artifacts": [], "files": [], "restored": null, "verification": null
    });
    for (key, value) in fields.as_object().expect("an object") {
        base[key] = value.clone();
    }
    serde_json::from_value(base).expect("a RunResult")
}

fn reply(fields: Value) -> Json {
    Json::of(&call_result(&ToolOutcome::Ran {
        session: "main".into(),
        result: Box::new(run_result(fields)),
    }))
}

fn passed_tests(count: usize) -> Value {
    let tests: Vec<Value> = (0..count)
        .map(|n| json!({"name": format!("test_{n}"), "line": n + 1, "passed": true, "error": null, "explanation": null, "compared": null}))
        .collect();
    json!({"passed": true, "tests": tests, "not_run": null})
}

fn name_error_on_line_3() -> Value {
    json!({"status": "error", "error": {
        "type": "NameError", "message": "name 'totl' is not defined", "line": 3, "column": 7, "end_column": 11,
        "source": [{"line": 3, "text": "print(totl)"}],
        "traceback": "Traceback (most recent call last):\n  File \"<run-1>\", line 3, in <module>\nNameError: name 'totl' is not defined. Did you mean: 'total'?\n",
        "hint": null},
        "verification": {"passed": false, "tests": [], "not_run": "The code raised NameError, so no test ran."}})
}

/// Feeds a whole streamed answer; returns the effects of its end.
fn answer(ask: &mut AskLoop, stream: &str) -> Vec<Effect> {
    assert_eq!(ask.handle(Event::Responded), []);
    for piece in stream.as_bytes().chunks(37) {
        let piece = std::str::from_utf8(piece).expect("ASCII");
        assert_eq!(ask.handle(Event::Chunk(piece)), [], "no effect mid-stream");
    }
    ask.handle(Event::Ended)
}

fn body(ask: &AskLoop, settings: &ModelSettings) -> Value {
    let request = build(
        settings,
        Some("sk-test"),
        &ask.conversation,
        &Tool::descriptors(),
    );
    serde_json::to_value(&request.body).expect("JSON")
}

fn run_call(effects: &[Effect]) -> ToolCall {
    match effects.last() {
        Some(Effect::Run(call)) => call.clone(),
        other => panic!("expected a run, got {}", other.is_some()),
    }
}
