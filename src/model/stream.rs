//! A model's streamed answer, event by event: the text as it grows, the
//! tool calls as their pieces arrive, and whether the answer came whole.

use serde::Deserialize;

use super::conversation::ToolUse;
use super::settings::Provider;
use super::sse::SseEvent;
use crate::js::bulk::Json;

/// What an event of the stream added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    /// Text to append to the answer.
    Text(String),
    /// Nothing the person sees (a piece of a tool call, a ping).
    Nothing,
}

/// The stream said something went wrong, or sent what is not JSON.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The provider reported an error inside the stream.
    #[error("the model's endpoint reported an error while answering: {0}")]
    Provider(String),
    /// An event's data was not JSON.
    #[error("the model's stream sent data that is not JSON ({0})")]
    NotJson(String),
}

/// A tool call whose pieces are still arriving.
#[derive(Debug, Clone, Default, PartialEq)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// One answer, built from its stream's events.
#[derive(Debug)]
pub struct TurnBuilder {
    provider: Provider,
    calls: Vec<PartialCall>,
    /// Anthropic numbers content blocks; this maps them to calls.
    block_calls: Vec<(u32, usize)>,
    complete: bool,
}

/// An answer as it ended: its tool calls, and whether it came whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The tool calls, without results yet.
    pub calls: Vec<ToolUse>,
    /// Whether the stream said it was done.
    pub complete: bool,
}

impl TurnBuilder {
    /// An answer in `provider`'s words, with nothing yet.
    pub fn new(provider: Provider) -> Self {
        Self {
            provider,
            calls: Vec::new(),
            block_calls: Vec::new(),
            complete: false,
        }
    }

    /// Reads one event.
    pub fn event(&mut self, event: &SseEvent) -> Result<Update, StreamError> {
        match self.provider {
            Provider::OpenAi => self.openai(event),
            Provider::Anthropic => self.anthropic(event),
        }
    }

    /// Whether the stream has said the answer is whole.
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// The answer as it stands. Calls get an id when the provider gave none.
    pub fn finish(self) -> Turn {
        let calls = self
            .calls
            .into_iter()
            .enumerate()
            .map(|(n, call)| ToolUse {
                id: if call.id.is_empty() {
                    format!("call_{n}")
                } else {
                    call.id
                },
                name: call.name,
                arguments: call.arguments,
                reply: None,
            })
            .collect();
        Turn {
            calls,
            complete: self.complete,
        }
    }

    fn openai(&mut self, event: &SseEvent) -> Result<Update, StreamError> {
        if event.data.trim() == "[DONE]" {
            self.complete = true;
            return Ok(Update::Nothing);
        }
        let json = Json::parse(&event.data).map_err(StreamError::NotJson)?;
        if let Some(error) = json.get("error").filter(|e| !e.is_null()) {
            return Err(StreamError::Provider(error_message(&error)));
        }
        let chunk: OpenAiChunk = json
            .read()
            .map_err(|e| StreamError::NotJson(e.to_string()))?;
        let mut text = String::new();
        for choice in chunk.choices {
            if choice.finish_reason.is_some() {
                // Some servers end with this and no `[DONE]`.
                self.complete = true;
            }
            let Some(delta) = choice.delta else { continue };
            text.push_str(delta.content.as_deref().unwrap_or_default());
            for piece in delta.tool_calls.unwrap_or_default() {
                let index = piece
                    .index
                    .unwrap_or(self.calls.len().saturating_sub(1) as u32)
                    as usize;
                if self.calls.len() <= index {
                    self.calls.resize(index + 1, PartialCall::default());
                }
                let call = &mut self.calls[index];
                if let Some(id) = piece.id {
                    call.id = id;
                }
                if let Some(function) = piece.function {
                    call.name
                        .push_str(function.name.as_deref().unwrap_or_default());
                    call.arguments
                        .push_str(function.arguments.as_deref().unwrap_or_default());
                }
            }
        }
        Ok(if text.is_empty() {
            Update::Nothing
        } else {
            Update::Text(text)
        })
    }

    fn anthropic(&mut self, event: &SseEvent) -> Result<Update, StreamError> {
        let json = Json::parse(&event.data).map_err(StreamError::NotJson)?;
        let kind = json
            .get("type")
            .and_then(|t| t.as_string())
            .unwrap_or_default();
        if kind == "error" {
            let error = json.get("error").unwrap_or_else(Json::empty_object);
            return Err(StreamError::Provider(error_message(&error)));
        }
        let data: AnthropicEvent = json
            .read()
            .map_err(|e| StreamError::NotJson(e.to_string()))?;
        match kind.as_str() {
            "content_block_start" => {
                if let Some(block) = data.content_block.filter(|b| b.r#type == "tool_use") {
                    self.block_calls
                        .push((data.index.unwrap_or_default(), self.calls.len()));
                    self.calls.push(PartialCall {
                        id: block.id.unwrap_or_default(),
                        name: block.name.unwrap_or_default(),
                        arguments: String::new(),
                    });
                }
                Ok(Update::Nothing)
            }
            "content_block_delta" => {
                let Some(delta) = data.delta else {
                    return Ok(Update::Nothing);
                };
                if let Some(text) = delta.text.filter(|t| !t.is_empty()) {
                    return Ok(Update::Text(text));
                }
                if let Some(json) = delta.partial_json {
                    let index = data.index.unwrap_or_default();
                    if let Some((_, call)) = self.block_calls.iter().find(|(b, _)| *b == index) {
                        self.calls[*call].arguments.push_str(&json);
                    }
                }
                Ok(Update::Nothing)
            }
            "message_stop" => {
                self.complete = true;
                Ok(Update::Nothing)
            }
            _ => Ok(Update::Nothing),
        }
    }
}

/// A provider's error object (`{"message": ...}`, or a bare string) as a sentence.
pub fn error_message(error: &Json) -> String {
    error
        .as_string()
        .or_else(|| error.get("message")?.as_string())
        .unwrap_or_else(|| error.compact().to_string())
}

#[derive(Deserialize)]
struct OpenAiChunk {
    #[serde(default)]
    choices: Vec<OpenAiChoice>,
}

#[derive(Deserialize)]
struct OpenAiChoice {
    #[serde(default)]
    delta: Option<OpenAiDelta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct OpenAiDelta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<OpenAiCallPiece>>,
}

#[derive(Deserialize)]
struct OpenAiCallPiece {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<OpenAiFunctionPiece>,
}

#[derive(Deserialize)]
struct OpenAiFunctionPiece {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct AnthropicEvent {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    content_block: Option<AnthropicBlockStart>,
    #[serde(default)]
    delta: Option<AnthropicDelta>,
}

#[derive(Deserialize)]
struct AnthropicBlockStart {
    r#type: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct AnthropicDelta {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    partial_json: Option<String>,
}
