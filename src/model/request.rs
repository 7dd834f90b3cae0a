//! The HTTP request that asks a model for its next answer: the
//! conversation and Sandpit's tools, in the words of the provider's API
//! (OpenAI's Chat Completions or Anthropic's Messages), streamed.
//!
//! Every tool result goes to the model as MCP clients get it: the text
//! first, the figures as images, and the structured result as JSON (its
//! images and file bytes left out there: they are sent as images, or listed).

mod anthropic;
mod content;
mod openai;

use super::conversation::Conversation;
use super::settings::{ModelSettings, Provider};
use crate::js::bulk::Json;
use anthropic::ANTHROPIC_VERSION;
pub use content::INSTRUCTIONS;

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
                body: Json::of(&openai::body(settings, conversation, descriptors)),
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
                body: Json::of(&anthropic::body(settings, conversation, descriptors)),
            }
        }
    }
}
