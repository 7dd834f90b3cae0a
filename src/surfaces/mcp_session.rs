//! One MCP client's conversation with the page: messages in, replies and
//! notifications out through `send`, tool calls carried out by the
//! [`ToolHost`]. The transport (postMessage for the widget) only moves JSON.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::task::spawn_local;
use serde::Serialize;
use wasm_bindgen::JsValue;

use super::tool_host::ToolHost;
use crate::format;
use crate::js::bulk::{to_js, Json, Text};
use crate::mcp::server::notification_message;
use crate::mcp::{Reply, Server};
use crate::protocol::{RunId, StreamName};
use crate::runtime::RunEvent;

/// Where a session's messages go, as JS data: a tool result's [`Text`]
/// goes out as it is, without a copy in wasm memory.
pub type Send = Rc<dyn Fn(JsValue)>;

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

/// The parameters of a `notifications/progress`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProgressParams<'a> {
    progress_token: &'a Json,
    progress: u32,
    message: String,
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
                (self.send)(to_js(&Server::sessions_response(&id, &states)));
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
            } => self.call(id, call, progress_token, stream_output),
            Reply::ReadFile {
                id,
                uri,
                session,
                path,
            } => {
                let send = self.send.clone();
                let read = self.host.read_file(&session, &path);
                spawn_local(async move {
                    send(to_js(&Server::resource_response(
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
    ) {
        let send = self.send.clone();
        let request_id = id.clone();
        let steps = Rc::new(RefCell::new(0_u32));
        let on_event = move |event: &RunEvent| {
            let message = match event {
                RunEvent::Output(_) if !stream_output => return,
                RunEvent::Output(chunk) => {
                    let logger = match chunk.stream {
                        StreamName::Stdout => "stdout",
                        StreamName::Stderr => "stderr",
                    };
                    let params = LogParams {
                        level: "info",
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
                    return;
                }
                RunEvent::Started => "running".to_owned(),
                RunEvent::Packages {
                    packages,
                    loaded,
                    total,
                } => format::package_progress(packages, *loaded, *total),
            };
            if let Some(token) = &progress_token {
                *steps.borrow_mut() += 1;
                let progress = *steps.borrow();
                let params = ProgressParams {
                    progress_token: token,
                    progress,
                    message,
                };
                send(to_js(&notification_message(
                    "notifications/progress",
                    params,
                )));
            }
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
