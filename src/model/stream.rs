//! A model's streamed answer, event by event: the text as it grows, the
//! tool calls as their pieces arrive, and whether the answer came whole.

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
        let mut text = String::new();
        for choice in items(&json, "choices") {
            if choice
                .get("finish_reason")
                .is_some_and(|reason| !reason.is_null())
            {
                // Some servers end with this and no `[DONE]`.
                self.complete = true;
            }
            let Some(delta) = choice.get("delta") else {
                continue;
            };
            text.push_str(&string(&delta, "content").unwrap_or_default());
            for piece in items(&delta, "tool_calls") {
                let index = piece
                    .get("index")
                    .and_then(|i| i.as_f64())
                    .map_or(self.calls.len().saturating_sub(1), |i| i as usize);
                if self.calls.len() <= index {
                    self.calls.resize(index + 1, PartialCall::default());
                }
                let call = &mut self.calls[index];
                if let Some(id) = string(&piece, "id") {
                    call.id = id;
                }
                if let Some(function) = piece.get("function") {
                    call.name
                        .push_str(&string(&function, "name").unwrap_or_default());
                    call.arguments
                        .push_str(&string(&function, "arguments").unwrap_or_default());
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
        let index = json
            .get("index")
            .and_then(|i| i.as_f64())
            .unwrap_or_default() as u32;
        match string(&json, "type").unwrap_or_default().as_str() {
            "error" => {
                let error = json.get("error").unwrap_or_else(Json::empty_object);
                Err(StreamError::Provider(error_message(&error)))
            }
            "content_block_start" => {
                let block = json.get("content_block").unwrap_or_else(Json::empty_object);
                if string(&block, "type").as_deref() == Some("tool_use") {
                    self.block_calls.push((index, self.calls.len()));
                    self.calls.push(PartialCall {
                        id: string(&block, "id").unwrap_or_default(),
                        name: string(&block, "name").unwrap_or_default(),
                        arguments: String::new(),
                    });
                }
                Ok(Update::Nothing)
            }
            "content_block_delta" => {
                let delta = json.get("delta").unwrap_or_else(Json::empty_object);
                if let Some(text) = string(&delta, "text").filter(|t| !t.is_empty()) {
                    return Ok(Update::Text(text));
                }
                if let Some(json) = string(&delta, "partial_json") {
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

/// Field `name` of `json` when it is a string.
fn string(json: &Json, name: &str) -> Option<String> {
    json.get(name)?.as_string()
}

/// The items of field `name` of `json` (none when it is not an array).
fn items(json: &Json, name: &str) -> Vec<Json> {
    json.get(name)
        .map(|value| value.items())
        .unwrap_or_default()
}

/// A provider's error object (`{"message": ...}`, or a bare string) as a sentence.
pub fn error_message(error: &Json) -> String {
    error
        .as_string()
        .or_else(|| error.get("message")?.as_string())
        .unwrap_or_else(|| error.compact().to_string())
}
