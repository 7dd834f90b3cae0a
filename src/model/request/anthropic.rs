//! The request in the words of Anthropic's Messages: user and assistant in
//! turn, tool results as blocks of the user's turn, with their figures.

use serde::Serialize;

use super::content::{field, images, reply_text, INSTRUCTIONS};
use crate::js::bulk::{Json, Text};
use crate::model::conversation::{Conversation, Entry};
use crate::model::settings::ModelSettings;

/// Tokens an Anthropic answer may use (the API requires a cap).
const ANTHROPIC_MAX_TOKENS: u32 = 8192;
/// The Messages API version the requests are written for.
pub(super) const ANTHROPIC_VERSION: &str = "2023-06-01";

#[derive(Serialize)]
pub(super) struct AnthropicBody<'a> {
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

/// The body of the request for the model's next answer to `conversation`.
pub(super) fn body<'a>(
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
