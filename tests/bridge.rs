//! Calls through a bridge with a time limit of its own (the local relay's
//! 25 s): a run's timeout is lowered to fit, the result says so, and the page
//! stops a run before the bridge gives up.

use sandpit::js::bulk::Json;
use sandpit::mcp::bridge::CallBudget;
use sandpit::tools::ToolCall;
use serde_json::json;

fn run_python(arguments: serde_json::Value) -> ToolCall {
    ToolCall::parse("run_python", &Json::from(arguments)).expect("valid arguments")
}

fn timeout_ms(call: &ToolCall) -> Option<u32> {
    match call {
        ToolCall::RunPython(request) => request.timeout_ms,
        other => panic!("expected a run, got {other:?}"),
    }
}

#[test]
fn a_run_asking_for_more_than_the_relay_allows_is_lowered_and_says_so() {
    let relay = CallBudget::LOCAL_RELAY;
    assert_eq!(relay.call_ms, 25_000);
    assert_eq!(relay.code_timeout_ms(), 20_000);

    // The default (30 s) does not fit.
    let mut default = run_python(json!({"code": "1"}));
    let note = relay.clamp(&mut default).expect("a note");
    assert_eq!(timeout_ms(&default), Some(20_000));
    assert_eq!(
        note,
        "Note: the local relay gives each call 25 s, so this run's timeout was lowered from 30 s to 20 s."
    );

    // No limit (0) does not either.
    let mut unlimited = run_python(json!({"code": "1", "timeout_seconds": 0}));
    let note = relay.clamp(&mut unlimited).expect("a note");
    assert!(note.contains("from no limit to 20 s"), "{note}");
    assert_eq!(timeout_ms(&unlimited), Some(20_000));

    // A run that fits is left alone, and so is every other tool.
    let mut short = run_python(json!({"code": "1", "timeout_seconds": 2.5}));
    assert_eq!(relay.clamp(&mut short), None);
    assert_eq!(timeout_ms(&short), Some(2_500));
    let mut check =
        ToolCall::parse("check_python", &Json::from(json!({"code": "1"}))).expect("valid");
    assert_eq!(relay.clamp(&mut check), None);
}

#[test]
fn the_page_stops_a_run_before_the_relay_gives_up_and_the_description_says_the_limit() {
    let relay = CallBudget::LOCAL_RELAY;
    assert!(relay.stop_after_ms() < relay.call_ms);
    assert!(relay.stop_after_ms() > relay.code_timeout_ms());
    let note = relay.tool_note();
    assert!(note.contains("at most 25 s"), "{note}");
    assert!(note.contains("stopped after 20 s"), "{note}");
    assert!(relay.stopped_note().contains("25 s"));
}
