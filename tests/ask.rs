//! The Ask panel's loop and what it sends and reads, natively: requests for
//! both APIs built from a conversation, streamed answers read event by
//! event, the loop's decisions for each turn of events (steps, the limit,
//! Stop, failures, bad tool calls), a reload, and the notebook export. The
//! browser test (tests/e2e/ask.test.mjs) drives the same code against a stub
//! model server.

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

#[test]
fn one_step_solves_it_and_the_answer_is_verified() {
    let settings = settings(Provider::OpenAi);
    let mut ask = AskLoop::new(Conversation::new("work"));
    assert_eq!(
        ask.start(Event::Ask("Add two numbers"), &settings),
        [Effect::Save, Effect::Request]
    );
    assert_eq!(ask.phase(), Phase::Requesting);
    assert!(ask.conversation.working);
    let args = r#"{"code": "def add(a, b):\n    return a + b", "tests": "assert add(2, 2) == 4"}"#;
    let (first, second) = args.split_at(20);
    let effects = answer(
        &mut ask,
        &openai_stream(
            &["I'll ", "write it."],
            &[("call_1", "run_python", &[first, second])],
            true,
        ),
    );
    assert_eq!(effects[0], Effect::Save);
    let ToolCall::RunPython(request) = run_call(&effects) else {
        panic!("a run")
    };
    assert_eq!(
        request.session, "work",
        "runs in the conversation's session"
    );
    assert_eq!(request.tests.as_deref(), Some("assert add(2, 2) == 4"));
    assert_eq!(ask.steps(), 1);
    let text = match &ask.conversation.entries[1] {
        Entry::Answer(answer) => answer.text.clone(),
        _ => panic!("an answer"),
    };
    assert_eq!(text, "I'll write it.");

    let effects = ask.handle(Event::ToolDone(reply(
        json!({"verification": passed_tests(1)}),
    )));
    assert_eq!(effects, [Effect::Save, Effect::Request]);
    let effects = answer(
        &mut ask,
        &openai_stream(&["add(a, b) returns a + b."], &[], true),
    );
    assert_eq!(effects, [Effect::Save]);
    assert_eq!(ask.phase(), Phase::Idle);
    assert!(!ask.conversation.working);
    assert_eq!(ask.conversation.verdict(2), Verdict::Verified(1));
    assert!(Verdict::Verified(1).text().starts_with("Verified"));
}

#[test]
fn the_next_request_carries_the_errors_type_line_and_hint_and_the_repair_passes() {
    let (settings, mut ask) = asked(Provider::OpenAi, "main", "Sum a list");
    let args = r#"{"code": "total = 0\nfor x in [1, 2]: total += x\nprint(totl)", "tests": "assert total == 3"}"#;
    answer(
        &mut ask,
        &openai_stream(&[], &[("call_a", "run_python", &[args])], true),
    );
    let mut failed = name_error_on_line_3();
    failed["error"]["hint"] =
        json!({"code": "module_not_found", "message": "a hint for the model"});
    assert_eq!(
        ask.handle(Event::ToolDone(reply(failed))),
        [Effect::Save, Effect::Request]
    );

    let sent = body(&ask, &settings);
    let messages = sent["messages"].as_array().expect("messages");
    assert_eq!(
        messages[0],
        json!({"role": "system", "content": INSTRUCTIONS})
    );
    assert_eq!(
        messages[1],
        json!({"role": "user", "content": "Sum a list"})
    );
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[2]["tool_calls"][0]["function"]["arguments"], args);
    let tool = &messages[3];
    assert_eq!(tool["role"], "tool");
    assert_eq!(tool["tool_call_id"], "call_a");
    let content = tool["content"].as_str().expect("text");
    assert!(
        content.starts_with("The code raised an exception."),
        "{content}"
    );
    assert!(
        content.contains("NameError: name 'totl' is not defined"),
        "{content}"
    );
    assert!(
        content.contains("--- hint ---\na hint for the model"),
        "{content}"
    );
    assert!(
        content.contains("\"line\":3"),
        "the structured result has the line: {content}"
    );
    assert_eq!(sent["tools"][0]["function"]["name"], "run_python");
    assert_eq!(sent["stream"], true);

    let repaired = r#"{"code": "total = 0\nfor x in [1, 2]: total += x\nprint(total)", "tests": "assert total == 3"}"#;
    let effects = answer(
        &mut ask,
        &openai_stream(
            &["Fixed the typo."],
            &[("call_b", "run_python", &[repaired])],
            true,
        ),
    );
    assert!(matches!(run_call(&effects), ToolCall::RunPython(_)));
    assert_eq!(
        ask.conversation.previous_code(2, 0).as_deref(),
        Some("total = 0\nfor x in [1, 2]: total += x\nprint(totl)"),
        "the repair is compared with the attempt before"
    );
    ask.handle(Event::ToolDone(reply(
        json!({"verification": passed_tests(1)}),
    )));
    answer(&mut ask, &openai_stream(&["It sums to 3."], &[], true));
    assert_eq!(ask.conversation.verdict(3), Verdict::Verified(1));
}

#[test]
fn failing_tests_are_sent_back_and_the_answer_is_not_verified_until_they_pass() {
    let (settings, mut ask) = asked(Provider::OpenAi, "main", "add");
    answer(
        &mut ask,
        &openai_stream(
            &[],
            &[(
                "c1",
                "run_python",
                &[r#"{"code": "def add(a, b): return a - b", "tests": "assert add(2, 2) == 4"}"#],
            )],
            true,
        ),
    );
    let failed = json!({"passed": false, "not_run": null, "tests": [{"name": "assert add(2, 2) == 4", "line": 1, "passed": false,
        "error": {"type": "AssertionError", "message": "", "line": 1, "column": null, "end_column": null, "source": [], "traceback": "", "hint": null},
        "explanation": "assert 0 == 4\n +  where 0 = add(2, 2)", "compared": {"left": "0", "op": "==", "right": "4"}}]});
    ask.handle(Event::ToolDone(reply(json!({"verification": failed}))));
    let sent = body(&ask, &settings);
    let content = sent["messages"][3]["content"].as_str().expect("text");
    assert!(
        content.contains("assert 0 == 4\n +  where 0 = add(2, 2)"),
        "{content}"
    );
    // Had the model stopped here, its answer would not be verified.
    answer(&mut ask, &openai_stream(&["Done."], &[], true));
    assert_eq!(ask.conversation.verdict(2), Verdict::TestsFailed);
}

#[test]
fn malformed_arguments_and_unknown_tools_get_their_error_as_the_result() {
    let (settings, mut ask) = asked(Provider::OpenAi, "main", "go");
    let effects = answer(
        &mut ask,
        &openai_stream(
            &[],
            &[
                ("bad", "run_python", &["{\"code\": \"1\"  "]),
                ("odd", "run_shell", &["{}"]),
                ("ok", "check_python", &["{\"code\": \"1\"}"]),
            ],
            true,
        ),
    );
    assert!(
        matches!(run_call(&effects), ToolCall::CheckPython { .. }),
        "the valid call runs"
    );
    let Some(Entry::Answer(turn)) = ask.conversation.entries.last() else {
        panic!("an answer")
    };
    assert!(turn.calls[0].failed());
    let bad = turn.calls[0].reply_text().expect("text").to_string();
    assert!(
        bad.starts_with("The arguments of run_python are not valid JSON ("),
        "{bad}"
    );
    assert!(
        bad.ends_with("Send the call again with its arguments as one JSON object."),
        "{bad}"
    );
    let odd = turn.calls[1].reply_text().expect("text").to_string();
    assert!(odd.contains("there is no tool \"run_shell\""), "{odd}");
    let checked = Json::of(&call_result(&ToolOutcome::Failed("no Python".into())));
    assert_eq!(
        ask.handle(Event::ToolDone(checked)),
        [Effect::Save, Effect::Request]
    );
    let sent = body(&ask, &settings);
    let tools: Vec<&Value> = sent["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tools.len(), 3, "every call has its result");
    assert!(tools[0]["content"]
        .as_str()
        .expect("text")
        .contains("not valid JSON"));
}

#[test]
fn the_step_limit_stops_the_loop_and_says_so() {
    let mut settings = settings(Provider::OpenAi);
    settings.step_limit = 2;
    let mut ask = AskLoop::new(Conversation::new("main"));
    ask.start(Event::Ask("loop forever"), &settings);
    for step in 1..=2 {
        let effects = answer(
            &mut ask,
            &openai_stream(&[], &[("c", "check_python", &["{\"code\": \"x\"}"])], true),
        );
        assert!(
            matches!(run_call(&effects), ToolCall::CheckPython { .. }),
            "check_python counts as a step"
        );
        assert_eq!(ask.steps(), step);
        let effects = ask.handle(Event::ToolDone(Json::of(&call_result(
            &ToolOutcome::Failed("x".into()),
        ))));
        if step == 1 {
            assert_eq!(effects, [Effect::Save, Effect::Request]);
        } else {
            assert_eq!(effects, [Effect::Save], "no third request");
        }
    }
    assert_eq!(ask.phase(), Phase::Idle);
    let Some(Entry::Note(note)) = ask.conversation.entries.last() else {
        panic!("a note")
    };
    assert_eq!(note.kind, NoteKind::StepLimit);
    assert!(
        note.text
            .starts_with("Stopped after 2 steps: that is the step limit (Settings)."),
        "{}",
        note.text
    );
    assert_eq!(
        ask.start(Event::Continue, &settings),
        [Effect::Save, Effect::Request],
        "Continue gives it more steps"
    );
    assert_eq!(ask.steps(), 0);
}

#[test]
fn stop_mid_stream_keeps_the_text_and_drops_the_half_call() {
    let (_, mut ask) = asked(Provider::OpenAi, "main", "go");
    ask.handle(Event::Responded);
    let stream = openai_stream(
        &["Thinking about"],
        &[("c", "run_python", &["{\"code\": "])],
        false,
    );
    ask.handle(Event::Chunk(&stream));
    assert_eq!(ask.handle(Event::Stop), [Effect::Abort, Effect::Save]);
    assert_eq!(ask.phase(), Phase::Idle);
    assert_eq!(
        ask.handle(Event::Chunk("data: {}\n\n")),
        [],
        "late chunks are ignored"
    );
    assert_eq!(ask.handle(Event::Ended), []);
    let Entry::Answer(partial) = &ask.conversation.entries[1] else {
        panic!("an answer")
    };
    assert_eq!(
        (partial.text.as_str(), partial.end, partial.calls.len()),
        ("Thinking about", AnswerEnd::Stopped, 0)
    );
    assert!(matches!(&ask.conversation.entries[2], Entry::Note(n) if n.kind == NoteKind::Stopped));
}

#[test]
fn stop_while_a_tool_runs_waits_for_its_result_and_runs_no_more() {
    let (_, mut ask) = asked(Provider::OpenAi, "main", "go");
    answer(
        &mut ask,
        &openai_stream(
            &[],
            &[
                ("a", "run_python", &["{\"code\": \"while True: pass\"}"]),
                ("b", "reset_session", &["{}"]),
            ],
            true,
        ),
    );
    assert_eq!(ask.handle(Event::Stop), [Effect::Cancel]);
    assert_eq!(
        ask.phase(),
        Phase::Running,
        "the run reports its cancellation"
    );
    let effects = ask.handle(Event::ToolDone(reply(json!({"status": "cancelled"}))));
    assert_eq!(effects, [Effect::Save]);
    assert_eq!(ask.phase(), Phase::Idle);
    let Entry::Answer(turn) = &ask.conversation.entries[1] else {
        panic!("an answer")
    };
    assert_eq!(
        turn.calls[1].reply_text().expect("text").to_string(),
        "Not run: the person pressed Stop."
    );
}

#[test]
fn a_stream_cut_midway_is_said_and_nothing_runs() {
    let (settings, mut ask) = asked(Provider::OpenAi, "main", "go");
    let effects = answer(
        &mut ask,
        &openai_stream(
            &["Let me"],
            &[("c", "run_python", &["{\"code\": \"1\"}"])],
            false,
        ),
    );
    assert_eq!(effects, [Effect::Save]);
    let Some(Entry::Note(note)) = ask.conversation.entries.last() else {
        panic!("a note")
    };
    assert!(
        note.text
            .starts_with("The model's answer was cut off midway"),
        "{}",
        note.text
    );
    let Entry::Answer(cut) = &ask.conversation.entries[1] else {
        panic!("an answer")
    };
    assert_eq!(
        (cut.text.as_str(), cut.end, cut.calls.len()),
        ("Let me", AnswerEnd::Cut, 0)
    );

    let mut broken = AskLoop::new(Conversation::new("main"));
    broken.start(Event::Ask("go"), &settings);
    broken.handle(Event::Responded);
    assert_eq!(
        broken.handle(Event::Chunk("data: {not json}\n\n")),
        [Effect::Abort, Effect::Save]
    );
    assert_eq!(broken.phase(), Phase::Idle);
}

#[test]
fn http_failures_wait_or_stop_with_a_clear_note() {
    let (settings, mut ask) = asked(Provider::Anthropic, "main", "go");
    let limited = HttpFailure {
        status: 429,
        retry_after: Some("1".into()),
        body: String::new(),
    };
    assert_eq!(
        ask.handle(Event::Refused(limited)),
        [Effect::Save, Effect::Wait(1000)]
    );
    assert_eq!(ask.phase(), Phase::Waiting);
    assert!(
        matches!(ask.conversation.entries.last(), Some(Entry::Note(n)) if n.kind == NoteKind::Waiting && n.text.contains("waiting 1 s"))
    );
    assert_eq!(ask.handle(Event::RetryDue), [Effect::Request]);
    let refused = HttpFailure { status: 401, retry_after: None, body: r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#.into() };
    assert_eq!(ask.handle(Event::Refused(refused)), [Effect::Save]);
    let Some(Entry::Note(note)) = ask.conversation.entries.last() else {
        panic!("a note")
    };
    assert!(
        note.text.contains("check the key in Settings") && note.text.contains("invalid x-api-key"),
        "{}",
        note.text
    );

    ask.start(Event::Continue, &settings);
    ask.handle(Event::Unreachable("Failed to fetch".into()));
    let Some(Entry::Note(note)) = ask.conversation.entries.last() else {
        panic!("a note")
    };
    assert!(
        note.text
            .starts_with("Could not reach the model at http://127.0.0.1:9/v1 (Failed to fetch)"),
        "{}",
        note.text
    );

    ask.start(Event::Continue, &settings);
    ask.handle(Event::Refused(HttpFailure {
        status: 429,
        retry_after: Some("5".into()),
        body: String::new(),
    }));
    assert_eq!(ask.handle(Event::Stop), [Effect::CancelWait, Effect::Save]);
    assert_eq!(ask.phase(), Phase::Idle);
}

#[test]
fn anthropic_answers_are_read_and_tool_results_sent_back_in_its_words() {
    let (settings, mut ask) = asked(Provider::Anthropic, "main", "plot");
    let effects = answer(
        &mut ask,
        &anthropic_stream(
            "Running it.",
            Some(("toolu_1", "run_python", &["{\"code\": \"x", " = 1\"}"])),
        ),
    );
    let ToolCall::RunPython(request) = run_call(&effects) else {
        panic!("a run")
    };
    assert_eq!(request.code, "x = 1");
    let figure = json!({"displays": [{"text/plain": "<Figure>", "image/png": "iVBORw0KGgo="}], "status": "error",
        "error": {"type": "ValueError", "message": "bad", "line": 1, "column": null, "end_column": null, "source": [], "traceback": "ValueError: bad", "hint": null}});
    ask.handle(Event::ToolDone(reply(figure)));
    ask.handle(Event::Responded);
    ask.handle(Event::Ended);

    let request = build(
        &settings,
        Some("sk-ant"),
        &ask.conversation,
        &Tool::descriptors(),
    );
    assert_eq!(request.url, "http://127.0.0.1:9/v1/messages");
    let headers: Vec<(&str, &str)> = request
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert!(headers.contains(&("x-api-key", "sk-ant")));
    assert!(headers.contains(&("anthropic-dangerous-direct-browser-access", "true")));
    assert!(headers.contains(&("anthropic-version", "2023-06-01")));
    let sent = serde_json::to_value(&request.body).expect("JSON");
    assert_eq!(sent["system"], INSTRUCTIONS);
    assert_eq!(sent["tools"][0]["name"], "run_python");
    assert!(sent["tools"][0]["input_schema"]["properties"]["tests"].is_object());
    let messages = sent["messages"].as_array().expect("messages");
    assert_eq!(
        messages[1]["content"][0],
        json!({"type": "text", "text": "Running it."})
    );
    assert_eq!(
        messages[1]["content"][1],
        json!({"type": "tool_use", "id": "toolu_1", "name": "run_python", "input": {"code": "x = 1"}})
    );
    let result = &messages[2]["content"][0];
    assert_eq!(
        (
            result["type"].as_str(),
            result["tool_use_id"].as_str(),
            result["is_error"].as_bool()
        ),
        (Some("tool_result"), Some("toolu_1"), Some(true))
    );
    assert_eq!(
        result["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}})
    );
    let text = result["content"][0]["text"].as_str().expect("text");
    assert!(text.contains("structuredContent: "), "{text}");
    assert!(
        !text.contains("iVBORw0KGgo="),
        "the image goes once, as an image: {text}"
    );
    assert_eq!(messages.len(), 3, "the empty last answer is not sent");
}

#[test]
fn openai_figures_follow_the_tool_messages_as_images_unless_turned_off() {
    let mut settings = settings(Provider::OpenAi);
    let mut ask = AskLoop::new(Conversation::new("main"));
    ask.start(Event::Ask("plot"), &settings);
    answer(
        &mut ask,
        &openai_stream(&[], &[("c", "run_python", &["{\"code\": \"fig\"}"])], true),
    );
    ask.handle(Event::ToolDone(reply(
        json!({"displays": [{"text/plain": "<Figure>", "image/png": "AAAA"}]}),
    )));
    let sent = body(&ask, &settings);
    let figures = &sent["messages"][4];
    assert_eq!(figures["role"], "user");
    assert_eq!(
        figures["content"][1],
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}})
    );
    let request = build(
        &settings,
        Some("sk-1"),
        &ask.conversation,
        &Tool::descriptors(),
    );
    assert_eq!(request.url, "http://127.0.0.1:9/v1/chat/completions");
    assert!(request
        .headers
        .contains(&("authorization".into(), "Bearer sk-1".into())));
    assert!(
        build(&settings, None, &ask.conversation, &Tool::descriptors())
            .headers
            .iter()
            .all(|(k, _)| k != "authorization")
    );
    settings.send_images = false;
    assert_eq!(
        body(&ask, &settings)["messages"]
            .as_array()
            .expect("messages")
            .len(),
        4
    );
}

#[test]
fn a_reload_mid_loop_keeps_the_conversation_and_asks_to_continue() {
    let (settings, mut ask) = asked(Provider::OpenAi, "main", "go");
    answer(
        &mut ask,
        &openai_stream(
            &["Step one."],
            &[
                ("a", "run_python", &["{\"code\": \"1\"}"]),
                ("b", "run_python", &["{\"code\": \"2\"}"]),
            ],
            true,
        ),
    );
    ask.handle(Event::ToolDone(reply(json!({}))));
    // What was saved, read back after the reload.
    let saved: Conversation =
        serde_json::from_value(serde_json::to_value(&ask.conversation).expect("JSON"))
            .expect("a conversation");
    assert!(saved.working);
    let mut restored = saved;
    restored.after_reload();
    assert!(!restored.working);
    let Entry::Answer(turn) = &restored.entries[1] else {
        panic!("an answer")
    };
    assert!(
        !turn.calls[0].failed(),
        "the call that ran keeps its result"
    );
    assert!(turn.calls[1]
        .reply_text()
        .expect("text")
        .to_string()
        .starts_with("Not run: the page was reloaded"));
    assert!(
        matches!(restored.entries.last(), Some(Entry::Note(n)) if n.kind == NoteKind::Reloaded)
    );
    let mut resumed = AskLoop::new(restored);
    assert_eq!(
        resumed.start(Event::Continue, &settings),
        [Effect::Save, Effect::Request]
    );
}

#[test]
fn the_key_is_sent_only_where_it_was_entered() {
    let settings = settings(Provider::OpenAi);
    let binding = KeyBinding::new("http://127.0.0.1:9/v1", "sk-secret");
    let conversation = Conversation::new("main");
    let to = |endpoint: &str| {
        let mut moved = settings.clone();
        moved.endpoint = endpoint.into();
        build(
            &moved,
            binding.key_for(endpoint),
            &conversation,
            &Tool::descriptors(),
        )
    };
    assert!(to("http://127.0.0.1:9/v1")
        .headers
        .iter()
        .any(|(_, v)| v.contains("sk-secret")));
    let elsewhere = to("https://other.example/v1");
    assert!(elsewhere
        .headers
        .iter()
        .all(|(_, v)| !v.contains("sk-secret")));
    assert!(
        !serde_json::to_string(&serde_json::to_value(&elsewhere.body).expect("JSON"))
            .expect("text")
            .contains("sk-secret")
    );
}

#[test]
fn the_notebook_has_markdown_for_words_and_code_cells_with_outputs() {
    let (_, mut ask) = asked(Provider::OpenAi, "main", "Plot and sum");
    answer(
        &mut ask,
        &openai_stream(
            &["Here goes."],
            &[(
                "a",
                "run_python",
                &[
                    r#"{"code": "print('hi')\n6 * 7", "tests": "def test_it():\n    assert 6 * 7 == 42"}"#,
                ],
            )],
            true,
        ),
    );
    ask.handle(Event::ToolDone(reply(json!({
        "output": [{"stream": "stdout", "text": "hi\n"}],
        "value": {"repr": "42", "json": 42, "truncated": false},
        "displays": [{"text/plain": "<Figure>", "image/png": "AAAA"}],
        "verification": passed_tests(1)}))));
    answer(&mut ask, &openai_stream(&["The answer is 42."], &[], true));
    let notebook = serde_json::to_value(Notebook::of(&ask.conversation)).expect("JSON");
    assert_eq!(
        (
            notebook["nbformat"].as_u64(),
            notebook["nbformat_minor"].as_u64()
        ),
        (Some(4), Some(5))
    );
    let cells = notebook["cells"].as_array().expect("cells");
    let kinds: Vec<&str> = cells
        .iter()
        .map(|c| c["cell_type"].as_str().expect("a type"))
        .collect();
    assert_eq!(kinds, ["markdown", "markdown", "code", "code", "markdown"]);
    assert_eq!(cells[0]["source"], "**Asked:** Plot and sum");
    assert_eq!(cells[2]["source"], "print('hi')\n6 * 7");
    assert_eq!(
        cells[2]["outputs"][0],
        json!({"output_type": "stream", "name": "stdout", "text": "hi\n"})
    );
    assert_eq!(cells[2]["outputs"][1]["data"]["image/png"], "AAAA");
    assert_eq!(
        cells[2]["outputs"][2],
        json!({"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": "42"}, "metadata": {}})
    );
    assert!(cells[3]["source"]
        .as_str()
        .expect("source")
        .starts_with("# Tests\ndef test_it():"));
    assert_eq!(
        cells[4]["source"],
        "The answer is 42.\n\n*Verified: the last run's test passed.*"
    );
    let ids: std::collections::BTreeSet<&str> = cells
        .iter()
        .map(|c| c["id"].as_str().expect("an id"))
        .collect();
    assert_eq!(ids.len(), cells.len(), "cell ids are unique");

    let file = python_file(&ask.conversation).expect("a file");
    assert!(
        file.starts_with(
            "print('hi')\n6 * 7\n\n\n# Tests\ndef test_it():\n    assert 6 * 7 == 42\n"
        ),
        "{file}"
    );
    assert!(
        file.contains("_test()"),
        "running the file calls the test functions: {file}"
    );
}
