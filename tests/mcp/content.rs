//! What a run's result becomes: text and the structured result, errors
//! with their hints, failed tests, images and file resources, sessions.

use super::*;

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

    let text = value(resources::file_response(
        &Json::from(json!(1)),
        &uri,
        "a.txt",
        Ok(b64("hello")),
    ));
    assert_eq!(text["result"]["contents"][0]["text"], "hello");
    let missing = value(resources::file_response(
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
    let states = [
        SessionState {
            name: "chat-42".into(),
            phase: SessionPhase::Running,
            queued: 1,
            resident: true,
            why: "Its worker runs one of its calls.".into(),
        },
        SessionState {
            name: "chat-7".into(),
            phase: SessionPhase::Queued,
            queued: 2,
            resident: true,
            why: "Waiting for a core.".into(),
        },
    ];
    let response = value(resources::sessions_response(&id, &states));
    let content = &response["result"]["contents"][0];
    assert_eq!(content["uri"], "sandpit://sessions");
    assert_eq!(content["mimeType"], "application/json");
    let listed: Value =
        serde_json::from_str(content["text"].as_str().expect("text")).expect("JSON");
    assert_eq!(
        listed,
        json!([
            {"name": "chat-42", "phase": "running", "queued": 1, "resident": true,
             "why": "Its worker runs one of its calls."},
            {"name": "chat-7", "phase": "queued", "queued": 2, "resident": true,
             "why": "Waiting for a core."},
        ])
    );
}
