//! Each API in its own words: Anthropic's answers and tool results, OpenAI's
//! figures after the tool messages.

use super::*;

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
