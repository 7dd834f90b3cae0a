//! The request in the words of OpenAI's Chat Completions: tool results as
//! tool messages, their figures in a user message after them.

use serde::Serialize;

use super::content::{field, images, reply_text, INSTRUCTIONS};
use crate::js::bulk::{Json, Text};
use crate::model::conversation::{Conversation, Entry};
use crate::model::settings::ModelSettings;

#[derive(Serialize)]
pub(super) struct OpenAiBody<'a> {
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

/// The body of the request for the model's next answer to `conversation`.
pub(super) fn body<'a>(
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
