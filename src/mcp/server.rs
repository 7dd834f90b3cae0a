//! What each JSON-RPC message asks of the MCP server, and the replies it
//! gets. Tool calls and file reads need Python, so they come back as
//! [`Reply`] variants for the caller to carry out and answer with
//! [`Server::tool_response`] and [`super::resources::file_response`].

use litemap::LiteMap;

use super::content::{self, CallToolResult, ToolOutcome};
use super::functions::Offer;
use super::jsonrpc::{error, response, response_of, string, Response, JSONRPC};
use super::reply::Reply;
use super::{resources, results};
use crate::format::quoted;
use crate::js::bulk::Json;
use crate::names::{
    ERROR_INVALID_PARAMS, FRESH_RUN_META, MCP_PROTOCOL_VERSIONS, STREAM_OUTPUT_META,
};
use crate::protocol::FileEntry;
use crate::tools::{Tool, ToolCall, ToolError};

/// JSON-RPC error codes.
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = ERROR_INVALID_PARAMS as i64;

/// One client's connection state.
#[derive(Debug, Default)]
pub struct Server {
    /// Files each session had after its last run, for `resources/list`.
    files: LiteMap<String, Vec<FileEntry>>,
    /// How many sessions the runtime runs at once, told at `initialize`.
    max_workers: Option<u32>,
    /// The least severe log level the client wants (`logging/setLevel`), as
    /// an index into [`LOG_LEVELS`]; 0 (everything) until it sets one.
    log_threshold: usize,
    /// The functions the client offers to the code it runs.
    offer: Offer,
}

/// MCP's log levels (RFC 5424's), least severe first.
const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The level output is logged at.
pub const OUTPUT_LOG_LEVEL: &str = "info";

impl Server {
    /// A server waiting for `initialize`.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same server, telling clients at `initialize` that the runtime
    /// runs `max_workers` sessions at once.
    pub fn with_max_workers(mut self, max_workers: u32) -> Self {
        self.max_workers = Some(max_workers);
        self
    }

    /// Decides what `message` (one JSON-RPC message) asks for.
    pub fn handle(&mut self, message: &Json) -> Reply {
        if !message.is_object() {
            let why = if message.is_array() {
                "batches are not supported: send one message at a time"
            } else {
                "a JSON-RPC message must be an object"
            };
            return Reply::Send(error(None, INVALID_REQUEST, why));
        }
        let id = message.get("id");
        if string(message, "jsonrpc").as_deref() != Some(JSONRPC) {
            let why = "\"jsonrpc\" must be \"2.0\"";
            return Reply::Send(error(id.as_ref(), INVALID_REQUEST, why));
        }
        let Some(method) = string(message, "method") else {
            // A response: to a host call, or to something we never asked.
            return match id {
                Some(id) => Reply::Answered {
                    id,
                    result: message.get("result"),
                    error: message.get("error"),
                },
                None => Reply::Nothing,
            };
        };
        // No params read as no fields.
        let params = message.get("params").unwrap_or_else(Json::empty_object);
        match id {
            Some(id) => self.request(id, &method, &params),
            None => notification(&method, &params),
        }
    }

    fn request(&mut self, id: Json, method: &str, params: &Json) -> Reply {
        let result = match method {
            "initialize" => {
                let capabilities = params
                    .get("capabilities")
                    .unwrap_or_else(Json::empty_object);
                match Offer::read(&capabilities) {
                    Ok(offer) => self.offer = offer,
                    Err(why) => return Reply::Send(error(Some(&id), INVALID_PARAMS, &why)),
                }
                Json::of(&initialize(
                    string(params, "protocolVersion"),
                    self.max_workers,
                ))
            }
            "ping" => Json::empty_object(),
            "logging/setLevel" => return self.set_level(&id, params),
            "tools/list" => Json::of(&results::Tools {
                tools: Tool::descriptors_offering(&self.offer.for_session_any()),
            }),
            "tools/call" => return self.call(id, params),
            "resources/list" => Json::of(&results::Resources {
                resources: resources::list(&self.files),
            }),
            "resources/templates/list" => Json::of(&results::TEMPLATES),
            "resources/read" => return resources::read(id, params),
            _ => {
                let message = format!("method {} is not supported", quoted(method));
                return Reply::Send(error(Some(&id), METHOD_NOT_FOUND, &message));
            }
        };
        Reply::Send(response(&id, result))
    }

    /// `logging/setLevel`: from now on, only log messages at `level` or more severe.
    fn set_level(&mut self, id: &Json, params: &Json) -> Reply {
        let level = string(params, "level").unwrap_or_default();
        match LOG_LEVELS.iter().position(|known| *known == level) {
            Some(threshold) => {
                self.log_threshold = threshold;
                Reply::Send(response(id, Json::empty_object()))
            }
            None => {
                let message = format!(
                    "{} is not a log level (one of {})",
                    quoted(&level),
                    LOG_LEVELS.join(", ")
                );
                Reply::Send(error(Some(id), INVALID_PARAMS, &message))
            }
        }
    }

    /// Whether a message logged at `level` reaches the client.
    fn logs(&self, level: &str) -> bool {
        LOG_LEVELS
            .iter()
            .position(|known| *known == level)
            .is_some_and(|severity| severity >= self.log_threshold)
    }

    fn call(&self, id: Json, params: &Json) -> Reply {
        let Some(name) = string(params, "name") else {
            return Reply::Send(error(
                Some(&id),
                INVALID_PARAMS,
                "tools/call needs a tool \"name\"",
            ));
        };
        let arguments = params.get("arguments").unwrap_or_else(Json::empty_object);
        let meta = params.get("_meta");
        let progress_token = meta.as_ref().and_then(|meta| meta.get("progressToken"));
        let flag = |key: &str| meta.as_ref().and_then(|meta| meta.get(key)?.as_bool());
        let stream_output = flag(STREAM_OUTPUT_META) != Some(false);
        let fresh = flag(FRESH_RUN_META) == Some(true);
        match ToolCall::parse(&name, &arguments) {
            Ok(mut call) => {
                if let ToolCall::RunPython(request) = &mut call {
                    request.fresh |= fresh;
                    request.host_functions = self.offer.for_session(&request.session);
                }
                Reply::Call {
                    id,
                    call,
                    progress_token,
                    stream_output,
                    log_output: stream_output && self.logs(OUTPUT_LOG_LEVEL),
                }
            }
            Err(unknown @ ToolError::Unknown(_)) => {
                Reply::Send(error(Some(&id), INVALID_PARAMS, &unknown.to_string()))
            }
            // Bad arguments are the model's to fix: a tool error it can read.
            Err(invalid) => Reply::Answer {
                id,
                outcome: ToolOutcome::Invalid(invalid.to_string()),
            },
        }
    }

    /// The functions the client offers, with their schemas.
    pub fn offer(&self) -> &Offer {
        &self.offer
    }

    /// The response to tool call `id`; also remembers the files a run left.
    pub fn tool_response<'a>(
        &mut self,
        id: &'a Json,
        outcome: &'a ToolOutcome,
    ) -> Response<'a, CallToolResult<'a>> {
        if let ToolOutcome::Ran { session, result } = outcome {
            self.files.insert(session.clone(), result.files.clone());
        }
        response_of(id, content::call_result(outcome))
    }
}

fn initialize(asked: Option<String>, max_workers: Option<u32>) -> results::Initialize {
    let version = MCP_PROTOCOL_VERSIONS
        .into_iter()
        .find(|&known| asked.as_deref() == Some(known))
        .unwrap_or(MCP_PROTOCOL_VERSIONS[0]);
    let not_changing = || results::ListChanged {
        list_changed: false,
    };
    results::Initialize {
        protocol_version: version,
        capabilities: results::Capabilities {
            tools: not_changing(),
            resources: not_changing(),
            logging: Json::empty_object(),
            experimental: max_workers.map(|max_workers| results::Experimental {
                pool: results::Pool { max_workers },
            }),
        },
        server_info: results::ServerInfo {
            name: "sandpit",
            title: "Sandpit",
            version: env!("CARGO_PKG_VERSION"),
        },
        instructions: "Python runs in a sandbox in the user's browser. Use run_python to \
            run code (sessions keep variables between calls), check_python to check code \
            and its imports without running it, reset_session to start a session afresh. \
            While code runs, its output arrives as notifications/message with logger \
            \"stdout\" or \"stderr\" and, when the call has a progress token, as the \
            message of notifications/progress whose _meta names the stream under \
            \"sandpit/stream\" (neither when the call's _meta has \"sandpit/streamOutput\": \
            false); the result holds all of it.",
    }
}

fn notification(method: &str, params: &Json) -> Reply {
    match (method, params.get("requestId")) {
        ("notifications/cancelled", Some(request)) => Reply::Cancel(request),
        _ => Reply::Nothing,
    }
}
