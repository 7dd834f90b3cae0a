//! The loop stopped: by its step limit, by Stop mid-stream or mid-run, by a
//! cut stream, by HTTP failures.

use super::*;

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
