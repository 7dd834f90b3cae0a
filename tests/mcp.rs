//! The MCP server's decisions and the tool definitions, as plain JSON: what
//! each message gets back, how arguments are checked, and the content blocks
//! a run's result becomes. The browser tests drive the same code through
//! postMessage with the official SDK.

use base64::Engine;
use sandpit::js::bulk::Json;
use sandpit::mcp::content::{call_result, file_uri, parse_file_uri};
use sandpit::mcp::{Reply, Server, ToolOutcome};
use sandpit::names::{ERROR_CODE_META, ERROR_INTERNAL, ERROR_INVALID_PARAMS};
use sandpit::protocol::{RunResult, DEFAULT_SESSION};
use sandpit::tools::{Tool, ToolCall};
use serde_json::{json, Value};

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

#[test]
fn initialize_agrees_on_a_protocol_version_and_lists_capabilities() {
    let mut server = Server::new();
    let known = sent(server.handle(&request(
        "initialize",
        json!({"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    )));
    assert_eq!(known["result"]["protocolVersion"], "2025-03-26");
    assert_eq!(known["result"]["serverInfo"]["name"], "sandpit");
    assert!(known["result"]["capabilities"]["tools"].is_object());
    let unknown = sent(server.handle(&request(
        "initialize",
        json!({"protocolVersion": "1999-01-01"}),
    )));
    assert_eq!(unknown["result"]["protocolVersion"], "2025-11-25");
}

const SHIPPED_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/tools.json");

#[test]
fn the_shipped_tool_descriptors_match_the_rust_types() {
    let generated = Value::Array(Tool::ALL.map(Tool::generated_descriptor).to_vec());
    let text = serde_json::to_string_pretty(&generated).expect("serialisable") + "\n";
    if std::env::var_os("SANDPIT_BLESS").is_some() {
        // The build embedded the old file: the next build ships the new one.
        std::fs::write(SHIPPED_FILE, &text).expect("src/tools.json is writable");
        return;
    }
    assert!(
        std::fs::read_to_string(SHIPPED_FILE).unwrap_or_default() == text,
        "src/tools.json is out of date with src/tools.rs; regenerate it with `make schema`"
    );
    assert_eq!(value(Tool::descriptors()), generated);
}

#[test]
fn tools_list_derives_every_schema_from_the_rust_types() {
    let listed = sent(Server::new().handle(&request("tools/list", json!({}))));
    let tools = listed["result"]["tools"].as_array().expect("a list");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["run_python", "check_python", "reset_session"]);
    let run = &tools[0];
    assert_eq!(run["inputSchema"]["type"], "object");
    assert_eq!(run["inputSchema"]["required"], json!(["code"]));
    assert!(run["inputSchema"]["properties"]["files"].is_object());
    assert_eq!(run["outputSchema"]["type"], "object");
    assert_eq!(tools[1]["annotations"]["readOnlyHint"], true);
    // Portable schemas: no draft marker, no numeric formats strict validators reject.
    let text = serde_json::to_string(tools).expect("serialisable");
    assert!(!text.contains("$schema"), "{text}");
    assert!(!text.contains("\"uint32\""), "numeric formats are stripped");
    for tool in Tool::ALL {
        assert_eq!(Tool::named(tool.name()), Some(tool));
    }
}

#[test]
fn run_python_arguments_become_the_run_request() {
    let call = ToolCall::parse(
        "run_python",
        &Json::from(json!({"code": "print(open('a.txt').read())", "session": "s1", "timeout_seconds": 2.5,
               "files": [{"path": "a.txt", "text": "hé"}, {"path": "b.bin", "content_base64": "AAE="}],
               "packages": ["sympy"]})),
    )
    .expect("valid");
    let ToolCall::RunPython(request) = call else {
        panic!("{call:?}")
    };
    assert_eq!(request.session, "s1");
    assert_eq!(request.timeout_ms, Some(2500));
    assert_eq!(request.packages, ["sympy"]);
    assert_eq!(request.files[0].content_base64, b64("hé"));
    assert_eq!(request.files[1].content_base64, "AAE=");

    let defaults = ToolCall::parse("run_python", &Json::from(json!({"code": "1"}))).expect("valid");
    let ToolCall::RunPython(request) = defaults else {
        panic!()
    };
    assert_eq!(request.session, DEFAULT_SESSION);
    assert_eq!(request.timeout_ms, Some(30_000));
    let unlimited = ToolCall::parse(
        "run_python",
        &Json::from(json!({"code": "1", "timeout_seconds": 0})),
    );
    assert!(matches!(unlimited, Ok(ToolCall::RunPython(r)) if r.timeout_ms.is_none()));
}

#[test]
fn bad_arguments_are_a_tool_error_the_model_can_read_and_unknown_tools_a_protocol_error() {
    let mut server = Server::new();
    for (arguments, expected) in [
        (json!({}), "missing field `code`"),
        (
            json!({"code": "1", "colour": "red"}),
            "unknown field `colour`",
        ),
        (
            json!({"code": "1", "timeout_seconds": -1}),
            "timeout_seconds must be 0",
        ),
        (
            json!({"code": "1", "files": [{"path": "x", "text": "a", "content_base64": "YQ=="}]}),
            "exactly one",
        ),
        (
            json!({"code": "1", "files": [{"path": "x", "content_base64": "not base64!"}]}),
            "not base64",
        ),
        (
            json!({"code": "1", "session": " "}),
            "session must not be empty",
        ),
    ] {
        let handled = server.handle(&request(
            "tools/call",
            json!({"name": "run_python", "arguments": arguments}),
        ));
        let reply = answered(&mut server, handled);
        assert_eq!(reply["id"], 1);
        assert_eq!(reply["result"]["isError"], true, "{reply}");
        // Programs read why from the code, under the one name JS shares.
        assert_eq!(
            reply["result"]["_meta"][ERROR_CODE_META],
            ERROR_INVALID_PARAMS
        );
        let text = reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains(expected), "{text:?} should say {expected:?}");
    }
    let unknown = sent(server.handle(&request("tools/call", json!({"name": "rm_rf"}))));
    assert_eq!(unknown["error"]["code"], -32602);
    assert!(unknown["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("run_python"));
}

#[test]
fn a_valid_call_is_handed_over_with_its_progress_token() {
    let reply = Server::new().handle(&Json::from(json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call",
        "params": {"name": "check_python", "arguments": {"code": "import numpy"}, "_meta": {"progressToken": 7}}})));
    assert_eq!(
        reply,
        Reply::Call {
            id: Json::from(json!("a")),
            call: ToolCall::CheckPython {
                code: "import numpy".into()
            },
            progress_token: Some(Json::from(json!(7))),
            stream_output: true,
            log_output: true,
        }
    );
}

/// Whether `server` would send a call's output as log messages.
fn logs_output(server: &mut Server) -> bool {
    let reply = server.handle(&request(
        "tools/call",
        json!({"name": "run_python", "arguments": {"code": "print(1)"}}),
    ));
    match reply {
        Reply::Call {
            log_output,
            stream_output,
            ..
        } => {
            assert!(stream_output);
            log_output
        }
        other => panic!("expected a call, got {other:?}"),
    }
}

#[test]
fn a_client_that_sets_a_log_level_above_info_gets_no_output_as_log_messages() {
    let mut server = Server::new();
    assert!(logs_output(&mut server), "output is logged at first");
    for (level, logged) in [
        ("warning", false),
        ("info", true),
        ("emergency", false),
        ("debug", true),
    ] {
        let answer = sent(server.handle(&request("logging/setLevel", json!({"level": level}))));
        assert_eq!(answer["result"], json!({}), "{answer}");
        assert_eq!(logs_output(&mut server), logged, "at level {level}");
    }
    let wrong = sent(server.handle(&request("logging/setLevel", json!({"level": "loud"}))));
    assert_eq!(wrong["error"]["code"], -32602);
    assert!(
        wrong["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("\"loud\" is not a log level"),
        "{wrong}"
    );
    assert!(logs_output(&mut server), "a bad level changes nothing");
}

#[test]
fn a_call_that_could_not_be_made_says_why_as_a_json_rpc_code() {
    let failed = value(call_result(&ToolOutcome::Failed(
        "Python failed to start".into(),
    )));
    assert_eq!(failed["isError"], true);
    assert_eq!(failed["_meta"][ERROR_CODE_META], ERROR_INTERNAL);
    assert_eq!(failed["content"][0]["text"], "Python failed to start");
    let ran = ran(json!({"status": "error"}));
    assert_eq!(
        ran["_meta"],
        Value::Null,
        "a run that raised has its result, not a code"
    );
}

#[test]
fn a_note_is_one_more_text_block_after_the_result() {
    let outcome = ToolOutcome::Ran {
        session: "main".into(),
        result: Box::new(result(json!({"stdout": "hi\n"}))),
    };
    let noted = value(call_result(&outcome).with_note("Note: lowered.".into()));
    let blocks = noted["content"].as_array().expect("blocks");
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[1], json!({"type": "text", "text": "Note: lowered."}));
    assert_eq!(noted["structuredContent"]["stdout"], "hi\n");
}

#[test]
fn a_call_can_decline_streamed_output_and_progress() {
    let reply = Server::new().handle(&Json::from(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "run_python", "arguments": {"code": "print(1)"},
            "_meta": {"sandpit/streamOutput": false}}}),
    ));
    let Reply::Call {
        progress_token,
        stream_output,
        ..
    } = reply
    else {
        panic!("expected a call, got {reply:?}");
    };
    assert_eq!(progress_token, None);
    assert!(!stream_output);
}

#[test]
fn malformed_messages_get_json_rpc_errors_and_notifications_get_nothing() {
    let mut server = Server::new();
    assert_eq!(
        sent(server.handle(&Json::from(json!([1, 2]))))["error"]["code"],
        -32600
    );
    assert_eq!(
        sent(server.handle(&Json::from(json!("hello"))))["error"]["code"],
        -32600
    );
    assert_eq!(
        sent(server.handle(&Json::from(json!({"id": 3, "method": "ping"}))))["error"]["code"],
        -32600
    );
    let unknown = sent(server.handle(&request("sampling/createMessage", json!({}))));
    assert_eq!(unknown["error"]["code"], -32601);
    assert_eq!(unknown["id"], 1);
    assert_eq!(
        server.handle(&Json::from(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )),
        Reply::Nothing
    );
    assert_eq!(
        server.handle(&Json::from(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}))),
        Reply::Cancel(Json::from(json!(9)))
    );
    assert_eq!(
        sent(server.handle(&request("ping", Value::Null)))["result"],
        json!({})
    );
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

#[test]
fn a_successful_run_is_text_with_its_output_and_value_plus_the_structured_result() {
    let content =
        ran(json!({"stdout": "hi\n", "value": {"repr": "42", "json": 42, "truncated": false}}));
    assert_eq!(content["isError"], false);
    let text = content["content"][0]["text"].as_str().expect("text");
    assert!(text.contains("--- stdout ---\nhi"), "{text}");
    assert!(text.contains("--- value ---\n42"), "{text}");
    assert_eq!(content["structuredContent"]["value"]["json"], 42);
}

#[test]
fn a_failed_run_is_an_error_result_with_the_traceback_and_hint() {
    let content = ran(json!({"status": "error", "error": {
        "type": "ModuleNotFoundError", "message": "No module named 'torch'", "line": 1, "column": 1,
        "end_column": null, "source": [], "traceback": "Traceback ...\nModuleNotFoundError: No module named 'torch'",
        "hint": {"code": "package_unavailable", "message": "use numpy"}}}));
    assert_eq!(content["isError"], true);
    let text = content["content"][0]["text"].as_str().expect("text");
    assert!(text.contains("raised an exception"), "{text}");
    assert!(text.contains("No module named 'torch'"), "{text}");
    assert!(text.contains("--- hint ---\nuse numpy"), "{text}");
}

#[test]
fn a_failed_test_makes_the_call_an_error_and_the_text_shows_the_compared_values() {
    let failed = json!({"name": "assert add(2, 2) == 5", "line": 1, "passed": false,
        "error": {"type": "AssertionError", "message": "", "line": 1, "column": null, "end_column": null,
                  "source": [], "traceback": "Traceback ...\nAssertionError\n", "hint": null},
        "explanation": "assert 4 == 5\n +  where 4 = add(2, 2)",
        "compared": {"left": "4", "op": "==", "right": "5"}});
    let passed = json!({"name": "test_zero", "line": 3, "passed": true, "error": null,
        "explanation": null, "compared": null});
    let content =
        ran(json!({"verification": {"passed": false, "tests": [failed, passed], "not_run": null}}));
    assert_eq!(content["isError"], true, "the code ran, but a test failed");
    let text = content["content"][0]["text"].as_str().expect("text");
    assert!(
        text.ends_with(
            "--- tests ---\n1 test(s) failed, 1 passed.\nFAILED assert add(2, 2) == 5 (line 1 of the tests)\n\
             assert 4 == 5\n +  where 4 = add(2, 2)"
        ),
        "{text}"
    );
    assert_eq!(
        content["structuredContent"]["verification"]["tests"][0]["compared"]["left"],
        "4"
    );

    let all_passed =
        ran(json!({"verification": {"passed": true, "tests": [passed], "not_run": null}}));
    assert_eq!(all_passed["isError"], false);
    let text = all_passed["content"][0]["text"].as_str().expect("text");
    assert!(
        text.ends_with("--- tests ---\nAll 1 test(s) passed."),
        "{text}"
    );

    let not_run = ran(
        json!({"status": "error", "verification": {"passed": false, "tests": [],
        "not_run": "The code raised NameError, so no test ran."}}),
    );
    let text = not_run["content"][0]["text"].as_str().expect("text");
    assert!(
        text.ends_with("0 test(s) failed, 0 passed.\nThe code raised NameError, so no test ran."),
        "{text}"
    );
}

#[test]
fn run_python_takes_tests_with_the_code() {
    let call = ToolCall::parse(
        "run_python",
        &Json::from(json!({"code": "x = 1", "tests": "assert x == 1"})),
    );
    assert!(
        matches!(call, Ok(ToolCall::RunPython(r)) if r.tests.as_deref() == Some("assert x == 1"))
    );
    let description = Tool::RunPython.description();
    assert!(
        description.contains("Send `tests` with the code"),
        "{description}"
    );
}

#[test]
fn figures_become_images_and_files_become_resources() {
    let svg = "<svg xmlns='http://www.w3.org/2000/svg'/>";
    let content = ran(json!({
    "displays": [{"text/plain": "<Figure>", "image/png": "iVBORw0KGgo="}, {"text/plain": "s", "image/svg+xml": svg}],
    "artifacts": [
        {"path": "out/table.csv", "size": 4, "mime": "text/csv", "content_base64": b64("a,b\n")},
        {"path": "pic.png", "size": 3, "mime": "image/png", "content_base64": "AAEC"},
        {"path": "big data.bin", "size": 9_000_000, "mime": "application/octet-stream", "content_base64": null}
    ]}));
    let blocks = content["content"].as_array().expect("blocks");
    assert_eq!(
        blocks[1],
        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
    );
    assert_eq!(blocks[2]["mimeType"], "image/svg+xml");
    assert_eq!(blocks[2]["data"], b64(svg));
    assert_eq!(blocks[3]["type"], "resource");
    assert_eq!(blocks[3]["resource"]["text"], "a,b\n");
    assert_eq!(
        blocks[3]["resource"]["uri"],
        "sandpit://sessions/main/files/out/table.csv"
    );
    assert_eq!(blocks[4]["resource"]["blob"], "AAEC");
    assert_eq!(blocks[5]["type"], "resource_link");
    assert_eq!(
        blocks[5]["uri"],
        "sandpit://sessions/main/files/big%20data.bin"
    );
    assert_eq!(blocks[5]["size"], 9_000_000);
}

#[test]
fn file_uris_round_trip_and_resources_read_asks_for_the_file() {
    let uri = file_uri("my session", "dir/naïve file.txt");
    assert_eq!(
        parse_file_uri(&uri),
        Some(("my session".into(), "dir/naïve file.txt".into()))
    );
    assert_eq!(parse_file_uri("https://example.com/x"), None);

    let mut server = Server::new();
    let reply = server.handle(&request("resources/read", json!({"uri": uri})));
    assert!(matches!(reply, Reply::ReadFile { ref path, .. } if path == "dir/naïve file.txt"));
    let bad = sent(server.handle(&request(
        "resources/read",
        json!({"uri": "file:///etc/passwd"}),
    )));
    assert_eq!(bad["error"]["code"], -32002);

    let text = value(Server::resource_response(
        &Json::from(json!(1)),
        &uri,
        "a.txt",
        Ok(b64("hello")),
    ));
    assert_eq!(text["result"]["contents"][0]["text"], "hello");
    let missing = value(Server::resource_response(
        &Json::from(json!(1)),
        &uri,
        "a.txt",
        Err("no such file".into()),
    ));
    assert!(missing["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("no such file"));
}

#[test]
fn resources_list_shows_the_files_each_session_had_after_its_last_run() {
    let mut server = Server::new();
    let outcome = ToolOutcome::Ran {
        session: "s".into(),
        result: Box::new(result(json!({"files": [{"path": "a.csv", "size": 3}]}))),
    };
    server.tool_response(&Json::from(json!(1)), &outcome);
    let listed = sent(server.handle(&request("resources/list", json!({}))));
    assert_eq!(
        listed["result"]["resources"][0]["uri"],
        "sandpit://sessions/s/files/a.csv"
    );
}

#[test]
fn a_run_can_ask_for_a_fresh_namespace_and_initialize_says_how_many_sessions_run_at_once() {
    let call = |meta: Value| {
        let reply = Server::new().handle(&Json::from(json!({"jsonrpc": "2.0", "id": 3,
            "method": "tools/call", "params": {"name": "run_python",
            "arguments": {"code": "1", "session": "lane-1"}, "_meta": meta}})));
        match reply {
            Reply::Call {
                call: ToolCall::RunPython(request),
                ..
            } => request.fresh,
            other => panic!("expected a run, got {other:?}"),
        }
    };
    assert!(call(json!({"sandpit/freshNamespace": true})));
    assert!(
        !call(json!({"sandpit/freshNamespace": "yes"})),
        "only true asks"
    );
    assert!(!call(json!({})));

    let init = json!({"protocolVersion": "2025-11-25"});
    let told = sent(
        Server::new()
            .with_max_workers(3)
            .handle(&request("initialize", init.clone())),
    );
    assert_eq!(
        told["result"]["capabilities"]["experimental"],
        json!({"sandpit/pool": {"maxWorkers": 3}})
    );
    let untold = sent(Server::new().handle(&request("initialize", init)));
    assert!(untold["result"]["capabilities"]
        .get("experimental")
        .is_none());
}

#[test]
fn the_sessions_resource_says_what_each_session_is_doing() {
    use sandpit::runtime::supervisor::{SessionPhase, SessionState};
    let reply = Server::new().handle(&request(
        "resources/read",
        json!({"uri": "sandpit://sessions"}),
    ));
    let Reply::ReadSessions { id } = reply else {
        panic!("expected the sessions to be read, got {reply:?}");
    };
    let states = [SessionState {
        name: "chat-42".into(),
        phase: SessionPhase::Running,
        queued: 1,
    }];
    let response = value(Server::sessions_response(&id, &states));
    let content = &response["result"]["contents"][0];
    assert_eq!(content["uri"], "sandpit://sessions");
    assert_eq!(content["mimeType"], "application/json");
    let listed: Value =
        serde_json::from_str(content["text"].as_str().expect("text")).expect("JSON");
    assert_eq!(
        listed,
        json!([{"name": "chat-42", "phase": "running", "queued": 1}])
    );
}
