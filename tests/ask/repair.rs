//! A turn that runs code: solved at once, repaired from its error, failing
//! tests sent back, bad tool calls answered with their error.

use super::*;

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
