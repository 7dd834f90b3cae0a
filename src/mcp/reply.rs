//! What the MCP server asks its caller to do about one incoming message:
//! send a reply it made itself, or carry out what needs Python first.

use super::content::ToolOutcome;
use crate::js::bulk::Json;
use crate::tools::ToolCall;

/// What to do about one incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Send this message back.
    Send(Json),
    /// Make this tool call, then send [`super::Server::tool_response`].
    Call {
        /// The request's id.
        id: Json,
        /// The checked call.
        call: ToolCall,
        /// Where to send progress notifications, if the client asked for them.
        progress_token: Option<Json>,
        /// Whether to send output while the code runs: as notifications/message
        /// (when [`Reply::Call::log_output`]) and, when the call has a progress
        /// token, in notifications/progress too. A client that only wants the
        /// result says `"sandpit/streamOutput": false` in the call's `_meta`:
        /// the result holds the same output, so each chunk would otherwise
        /// cross to the page twice.
        stream_output: bool,
        /// Whether output goes out as notifications/message: the client has
        /// not set a logging level above `info` (the level output is logged at).
        log_output: bool,
    },
    /// Send [`super::Server::tool_response`] for this outcome: a call that failed
    /// before it could be made (bad arguments are the model's to fix).
    Answer {
        /// The request's id.
        id: Json,
        /// Why it failed.
        outcome: ToolOutcome,
    },
    /// Read this file, then send [`super::resources::file_response`].
    ReadFile {
        /// The request's id.
        id: Json,
        /// The resource's URI.
        uri: String,
        /// The session.
        session: String,
        /// Path in its working directory.
        path: String,
    },
    /// Tell what each session is doing: send [`super::resources::sessions_response`].
    ReadSessions {
        /// The request's id.
        id: Json,
    },
    /// The client cancelled the request with this id.
    Cancel(Json),
    /// The client answered a request of ours (a host call): its `result`,
    /// or its `error`.
    Answered {
        /// The request's id.
        id: Json,
        /// The result, when it succeeded.
        result: Option<Json>,
        /// The error, when it failed.
        error: Option<Json>,
    },
    /// Nothing to send (a notification).
    Nothing,
}
