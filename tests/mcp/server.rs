//! The JSON-RPC side: initialize, the tool descriptors and their schemas,
//! arguments checked, calls handed over, logging, errors and notifications.

use super::*;

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
