//! The HTTP request that asks a model for its next answer: the
//! conversation and Sandpit's tools, in the words of the provider's API
//! (OpenAI's Chat Completions or Anthropic's Messages), streamed.
//!
//! Every tool result goes to the model as MCP clients get it: the text
//! first, the figures as images, and the structured result as JSON (its
//! images and file bytes left out there: they are sent as images, or listed).

use serde::Serialize;

use super::conversation::{Conversation, Entry, ToolUse};
use super::settings::{ModelSettings, Provider};
use crate::js::bulk::{Json, Text};
use crate::protocol::RunResult;
use crate::tools::Tool;

/// What the model is told before the conversation: what Sandpit is and how
/// the loop goes.
pub const INSTRUCTIONS: &str = "You work inside Sandpit, a sandbox that runs Python 3 \
(Pyodide) in the user's browser. Solve the user's task by writing Python and running it \
with the run_python tool. Always send `tests` with the code: top-level asserts or \
`def test_*` functions that check the result. When the run fails or a test fails, read the \
error (its type, line and hint) or the compared values, then call run_python again with \
repaired code and the same tests. Once the code runs and its tests pass, reply with a short \
final answer and call no tool. Variables and files persist between runs; the user may also \
edit and run the code themselves in between.";

/// Tokens an Anthropic answer may use (the API requires a cap).
const ANTHROPIC_MAX_TOKENS: u32 = 8192;
/// The Messages API version the requests are written for.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// An HTTP request to a model's API.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    /// Where it goes.
    pub url: String,
    /// Its headers (the key among them, when there is one).
    pub headers: Vec<(String, String)>,
    /// Its JSON body.
    pub body: Json,
}

/// The request for the model's next answer to `conversation`, offering
/// the tools `descriptors` (MCP `tools/list` entries); `key` is sent when given.
pub fn build(
    settings: &ModelSettings,
    key: Option<&str>,
    conversation: &Conversation,
    descriptors: &Json,
) -> HttpRequest {
    let base = super::settings::normal_endpoint(&settings.endpoint);
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    match settings.provider {
        Provider::OpenAi => {
            if let Some(key) = key {
                headers.push(("authorization".to_owned(), format!("Bearer {key}")));
            }
            HttpRequest {
                url: format!("{base}/chat/completions"),
                headers,
                body: Json::of(&openai_body(settings, conversation, descriptors)),
            }
        }
        Provider::Anthropic => {
            if let Some(key) = key {
                headers.push(("x-api-key".to_owned(), key.to_owned()));
            }
            headers.push(("anthropic-version".to_owned(), ANTHROPIC_VERSION.to_owned()));
            // Anthropic answers a browser's request only with this header.
            headers.push((
                "anthropic-dangerous-direct-browser-access".to_owned(),
                "true".to_owned(),
            ));
            HttpRequest {
                url: format!("{base}/messages"),
                headers,
                body: Json::of(&anthropic_body(settings, conversation, descriptors)),
            }
        }
    }
}

/// A tool's result as a model reads it: its text blocks and embedded text
/// files, then its structured result as JSON.
fn reply_text(call: &ToolUse) -> Text {
    let Some(reply) = &call.reply else {
        return Text::from("Not run.");
    };
    let mut text = Text::default();
    let mut add = |part: Text| {
        text = if text.is_empty() {
            part
        } else {
            text.concat(&Text::from("\n\n")).concat(&part)
        };
    };
    for block in reply.get("content").map(|c| c.items()).unwrap_or_default() {
        match block.get("type").and_then(|t| t.as_string()).as_deref() {
            Some("text") => add(block
                .get("text")
                .and_then(|t| t.as_text())
                .unwrap_or_default()),
            Some("resource") => {
                let resource = block.get("resource");
                let file = resource.as_ref().and_then(|r| r.get("text")?.as_text());
                let uri = resource.as_ref().and_then(|r| r.get("uri")?.as_string());
                if let (Some(file), Some(uri)) = (file, uri) {
                    add(Text::from(format!("--- file {uri} ---\n")).concat(&file));
                }
            }
            _ => {}
        }
    }
    if let Some(structured) = structured_for_model(call) {
        add(Text::from("structuredContent: ").concat(&structured.compact()));
    }
    text
}

/// The structured result without what would only repeat as bytes: a run's
/// images (sent as images) and its files' contents (listed in the text).
fn structured_for_model(call: &ToolUse) -> Option<Json> {
    let structured = call.reply.as_ref()?.get("structuredContent")?;
    if call.name != Tool::RunPython.name() {
        return Some(structured);
    }
    let Ok(mut result) = structured.read_record::<RunResult>() else {
        return Some(structured);
    };
    for display in &mut result.displays {
        display.png = None;
        display.svg = None;
    }
    for artifact in &mut result.artifacts {
        artifact.content_base64 = None;
    }
    Some(Json::of(&result))
}

/// The PNG images of a result, base64 (SVG is not an image either API takes).
fn images(call: &ToolUse) -> Vec<Text> {
    let blocks = call
        .reply
        .as_ref()
        .and_then(|reply| reply.get("content"))
        .map(|c| c.items())
        .unwrap_or_default();
    blocks
        .into_iter()
        .filter(|block| {
            block.get("type").and_then(|t| t.as_string()).as_deref() == Some("image")
                && block.get("mimeType").and_then(|t| t.as_string()).as_deref() == Some("image/png")
        })
        .filter_map(|block| block.get("data")?.as_text())
        .collect()
}

// -- OpenAI's Chat Completions ------------------------------------------------

#[derive(Serialize)]
struct OpenAiBody<'a> {
    model: &'a str,
    stream: bool,
    messages: Vec<OpenAiMessage>,
    tools: Vec<OpenAiTool>,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
enum OpenAiMessage {
    System {
        content: &'static str,
    },
    User {
        content: OpenAiContent,
    },
    Assistant {
        content: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<OpenAiCall>,
    },
    Tool {
        tool_call_id: String,
        content: Text,
    },
}

#[derive(Serialize)]
#[serde(untagged)]
enum OpenAiContent {
    Text(String),
    Parts(Vec<OpenAiPart>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum OpenAiPart {
    Text { text: String },
    ImageUrl { image_url: OpenAiImage },
}

#[derive(Serialize)]
struct OpenAiImage {
    url: Text,
}

#[derive(Serialize)]
struct OpenAiCall {
    id: String,
    r#type: &'static str,
    function: OpenAiFunctionCall,
}

#[derive(Serialize)]
struct OpenAiFunctionCall {
    name: String,
    arguments: String,
}

#[derive(Serialize)]
struct OpenAiTool {
    r#type: &'static str,
    function: OpenAiFunction,
}

#[derive(Serialize)]
struct OpenAiFunction {
    name: Json,
    description: Json,
    parameters: Json,
}

fn openai_body<'a>(
    settings: &'a ModelSettings,
    conversation: &Conversation,
    descriptors: &Json,
) -> OpenAiBody<'a> {
    let mut messages = vec![OpenAiMessage::System {
        content: INSTRUCTIONS,
    }];
    for entry in &conversation.entries {
        match entry {
            Entry::Asked(text) => messages.push(OpenAiMessage::User {
                content: OpenAiContent::Text(text.clone()),
            }),
            Entry::Answer(answer) => {
                if answer.text.is_empty() && answer.calls.is_empty() {
                    continue;
                }
                let tool_calls = answer
                    .calls
                    .iter()
                    .map(|call| OpenAiCall {
                        id: call.id.clone(),
                        r#type: "function",
                        function: OpenAiFunctionCall {
                            name: call.name.clone(),
                            arguments: call.arguments.clone(),
                        },
                    })
                    .collect();
                messages.push(OpenAiMessage::Assistant {
                    content: (!answer.text.is_empty()).then(|| answer.text.clone()),
                    tool_calls,
                });
                let mut figures = Vec::new();
                for call in &answer.calls {
                    messages.push(OpenAiMessage::Tool {
                        tool_call_id: call.id.clone(),
                        content: reply_text(call),
                    });
                    if settings.send_images {
                        figures.extend(images(call));
                    }
                }
                // Tool messages carry text only: figures follow in a user message.
                if !figures.is_empty() {
                    let mut parts = vec![OpenAiPart::Text {
                        text: "The figures of the tool results above, in order.".to_owned(),
                    }];
                    parts.extend(figures.into_iter().map(|png| OpenAiPart::ImageUrl {
                        image_url: OpenAiImage {
                            url: Text::from("data:image/png;base64,").concat(&png),
                        },
                    }));
                    messages.push(OpenAiMessage::User {
                        content: OpenAiContent::Parts(parts),
                    });
                }
            }
            Entry::Note(_) => {}
        }
    }
    let tools = descriptors
        .items()
        .into_iter()
        .map(|tool| OpenAiTool {
            r#type: "function",
            function: OpenAiFunction {
                name: field(&tool, "name"),
                description: field(&tool, "description"),
                parameters: field(&tool, "inputSchema"),
            },
        })
        .collect();
    OpenAiBody {
        model: settings.model.trim(),
        stream: true,
        messages,
        tools,
    }
}

fn field(tool: &Json, name: &str) -> Json {
    tool.get(name).unwrap_or_else(Json::empty_object)
}

// -- Anthropic's Messages ------------------------------------------------------

#[derive(Serialize)]
struct AnthropicBody<'a> {
    model: &'a str,
    max_tokens: u32,
    stream: bool,
    system: &'static str,
    messages: Vec<AnthropicMessage>,
    tools: Vec<AnthropicTool>,
}

#[derive(Serialize)]
struct AnthropicMessage {
    role: &'static str,
    content: Vec<AnthropicBlock>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum AnthropicBlock {
    Text {
        text: Text,
    },
    Image {
        source: AnthropicImage,
    },
    ToolUse {
        id: String,
        name: String,
        input: Json,
    },
    ToolResult {
        tool_use_id: String,
        is_error: bool,
        content: Vec<AnthropicBlock>,
    },
}

#[derive(Serialize)]
struct AnthropicImage {
    r#type: &'static str,
    media_type: &'static str,
    data: Text,
}

#[derive(Serialize)]
struct AnthropicTool {
    name: Json,
    description: Json,
    input_schema: Json,
}

/// Adds `content` as a turn of `role`, joined to the last turn when that
/// is the same role's (the API wants user and assistant in turn).
fn push_turn(
    messages: &mut Vec<AnthropicMessage>,
    role: &'static str,
    content: Vec<AnthropicBlock>,
) {
    if content.is_empty() {
        return;
    }
    match messages.last_mut() {
        Some(last) if last.role == role => last.content.extend(content),
        _ => messages.push(AnthropicMessage { role, content }),
    }
}

fn anthropic_body<'a>(
    settings: &'a ModelSettings,
    conversation: &Conversation,
    descriptors: &Json,
) -> AnthropicBody<'a> {
    let mut messages = Vec::new();
    for entry in &conversation.entries {
        match entry {
            Entry::Asked(text) => push_turn(
                &mut messages,
                "user",
                vec![AnthropicBlock::Text {
                    text: text.as_str().into(),
                }],
            ),
            Entry::Answer(answer) => {
                let mut said = Vec::new();
                // The API refuses empty text, and a last turn ending in white space.
                let text = answer.text.trim_end();
                if !text.is_empty() {
                    said.push(AnthropicBlock::Text { text: text.into() });
                }
                said.extend(answer.calls.iter().map(|call| {
                    AnthropicBlock::ToolUse {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        // Arguments that are not JSON cannot be sent back as they
                        // came; their result says what was wrong with them.
                        input: call
                            .parsed_arguments()
                            .unwrap_or_else(|_| Json::empty_object()),
                    }
                }));
                push_turn(&mut messages, "assistant", said);
                let results = answer
                    .calls
                    .iter()
                    .map(|call| {
                        let mut content = vec![AnthropicBlock::Text {
                            text: reply_text(call),
                        }];
                        if settings.send_images {
                            content.extend(images(call).into_iter().map(|data| {
                                AnthropicBlock::Image {
                                    source: AnthropicImage {
                                        r#type: "base64",
                                        media_type: "image/png",
                                        data,
                                    },
                                }
                            }));
                        }
                        AnthropicBlock::ToolResult {
                            tool_use_id: call.id.clone(),
                            is_error: call.failed(),
                            content,
                        }
                    })
                    .collect();
                push_turn(&mut messages, "user", results);
            }
            Entry::Note(_) => {}
        }
    }
    let tools = descriptors
        .items()
        .into_iter()
        .map(|tool| AnthropicTool {
            name: field(&tool, "name"),
            description: field(&tool, "description"),
            input_schema: field(&tool, "inputSchema"),
        })
        .collect();
    AnthropicBody {
        model: settings.model.trim(),
        max_tokens: ANTHROPIC_MAX_TOKENS,
        stream: true,
        system: INSTRUCTIONS,
        messages,
        tools,
    }
}
