//! One MCP client's conversation with the page: messages in, replies and
//! notifications out through `send`, tool calls carried out by the
//! [`ToolHost`]. The transport (postMessage for the widget) only moves JSON.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::task::spawn_local;
use serde::Serialize;

use super::host_functions::{HostCallsOut, Send};
use super::tool_host::ToolHost;
use crate::format;
use crate::js::bulk::{to_js, Json, Text};
use crate::mcp::jsonrpc::notification_message;
use crate::mcp::server::OUTPUT_LOG_LEVEL;
use crate::mcp::{resources, Reply, Server};
use crate::protocol::{RunId, StreamName};
use crate::runtime::RunEvent;

/// The `data` of a `notifications/message` that carries output as it is written.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OutputData<'a> {
    request_id: &'a Json,
    stream: &'a str,
    text: &'a Text,
}

/// The parameters of a `notifications/message`.
#[derive(Serialize)]
struct LogParams<'a> {
    level: &'a str,
    logger: &'a str,
    data: OutputData<'a>,
}

/// The parameters of a `notifications/progress`: status, or (with
/// `_meta`) output as it is written.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProgressParams<'a> {
    progress_token: &'a Json,
    progress: u32,
    message: &'a Text,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<StreamMeta<'a>>,
}

/// The `_meta` of a progress notification that carries output: its stream.
#[derive(Serialize)]
struct StreamMeta<'a> {
    #[serde(rename = "sandpit/stream")]
    stream: &'a str,
}

/// A connected MCP client.
#[derive(Clone)]
pub struct McpSession {
    server: Rc<RefCell<Server>>,
    host: ToolHost,
    send: Send,
    /// Runs of tool calls in progress, by request id, for cancelling. A
    /// list of the few in progress, found by comparing ids (strings or
    /// numbers, compared by value): keying a map by the ids' JSON text would
    /// put a JSON writer in the app's wasm for that alone.
    running: Rc<RefCell<Vec<(Json, RunId)>>>,
    /// The code's calls to the client's own functions, waiting for its answers.
    host_calls: HostCallsOut,
}

impl McpSession {
    /// A session answering through `send`.
    pub fn new(host: ToolHost, send: Send) -> Self {
        Self {
            server: Rc::new(RefCell::new(
                Server::new().with_max_workers(host.max_workers()),
            )),
            host,
            send,
            running: Rc::default(),
            host_calls: HostCallsOut::default(),
        }
    }

    /// Handles one JSON-RPC message from the client.
    pub fn receive(&self, message: &Json) {
        let reply = self.server.borrow_mut().handle(message);
        match reply {
            Reply::Send(message) => (self.send)(to_js(&message)),
            Reply::Answer { id, outcome } => {
                let response = self.server.borrow_mut().tool_response(&id, &outcome);
                (self.send)(to_js(&response));
            }
            Reply::Nothing => {}
            Reply::ReadSessions { id } => {
                let states = self.host.session_states();
                (self.send)(to_js(&resources::sessions_response(&id, &states)));
            }
            Reply::Answered { id, result, error } => {
                self.host_calls.answered(&id, result, error, self.host);
            }
            Reply::Cancel(request) => {
                if let Some(run) = self.take_run(&request) {
                    self.host.cancel(run);
                }
            }
            Reply::Call {
                id,
                call,
                progress_token,
                stream_output,
                log_output,
            } => self.call(id, call, progress_token, stream_output, log_output),
            Reply::ReadFile {
                id,
                uri,
                session,
                path,
            } => {
                let send = self.send.clone();
                let read = self.host.read_file(&session, &path);
                spawn_local(async move {
                    send(to_js(&resources::file_response(
                        &id,
                        &uri,
                        &path,
                        read.await,
                    )));
                });
            }
        }
    }

    fn call(
        &self,
        id: Json,
        call: crate::tools::ToolCall,
        progress_token: Option<Json>,
        stream_output: bool,
        log_output: bool,
    ) {
        let send = self.send.clone();
        let request_id = id.clone();
        let steps = Rc::new(RefCell::new(0_u32));
        // Progress counts up with every notification, status and output alike.
        let progress = move |message: &Text, stream: Option<&str>| {
            let Some(token) = &progress_token else {
                return;
            };
            *steps.borrow_mut() += 1;
            let params = ProgressParams {
                progress_token: token,
                progress: *steps.borrow(),
                message,
                meta: stream.map(|stream| StreamMeta { stream }),
            };
            send(to_js(&notification_message(
                "notifications/progress",
                params,
            )));
        };
        let send = self.send.clone();
        let this = self.clone();
        let on_event = move |event: &RunEvent| match event {
            RunEvent::HostCall(call) => {
                let schema = this.server.borrow().offer().schema(&call.name).cloned();
                let sent = this.send.clone();
                this.host_calls.send(call.clone(), schema, this.host, sent);
            }
            RunEvent::HostCallCancelled(run, call) => this.host_calls.cancel(*run, *call, &send),
            RunEvent::Output(_) if !stream_output => {}
            RunEvent::Output(chunk) => {
                let logger = match chunk.stream {
                    StreamName::Stdout => "stdout",
                    StreamName::Stderr => "stderr",
                };
                if log_output {
                    let params = LogParams {
                        level: OUTPUT_LOG_LEVEL,
                        logger,
                        data: OutputData {
                            request_id: &request_id,
                            stream: logger,
                            text: &chunk.text,
                        },
                    };
                    send(to_js(&notification_message(
                        "notifications/message",
                        params,
                    )));
                }
                progress(&chunk.text, Some(logger));
            }
            RunEvent::Started => progress(&Text::from("running"), None),
            RunEvent::Packages {
                packages,
                loaded,
                total,
            } => progress(
                &format::package_progress(packages, *loaded, *total).into(),
                None,
            ),
        };
        let (run, outcome) = self.host.start(call, on_event);
        if let Some(run) = run {
            self.take_run(&id);
            self.running.borrow_mut().push((id.clone(), run));
        }
        let this = self.clone();
        spawn_local(async move {
            let outcome = outcome.await;
            this.take_run(&id);
            let response = this.server.borrow_mut().tool_response(&id, &outcome);
            (this.send)(to_js(&response));
        });
    }

    /// Forgets the run of request `id`, returning it if one was in progress.
    fn take_run(&self, id: &Json) -> Option<RunId> {
        let mut running = self.running.borrow_mut();
        let index = running.iter().position(|(request, _)| request == id)?;
        Some(running.swap_remove(index).1)
    }
}
