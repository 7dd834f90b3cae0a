//! What is kept and where it goes: a reload mid-loop, the key, the notebook
//! and .py exports.

use super::*;

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
