//! A client's functions called from the code it runs, on the widget's side
//! of MCP: each host call's arguments are checked against the function's
//! JSON Schema (www/host-functions.js), then sent to the client as a
//! [`HOST_CALL_METHOD`] request; its answer goes back to the run, and a
//! call whose run stops is cancelled with the client.

use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::tool_host::ToolHost;
use crate::js::bulk::{to_js, Json, Text};
use crate::js::error::message;
use crate::mcp::jsonrpc::{notification_message, request_message};
use crate::names::HOST_CALL_METHOD;
use crate::protocol::{HostCallError, HostCallFailure, RunId};
use crate::runtime::events::HostCall;

#[wasm_bindgen(module = "/www/host-functions.js")]
extern "C" {
    /// `[arguments, why]`: the arguments' JSON text parsed, and why they do
    /// not match `schema` (null when they do).
    #[wasm_bindgen(js_name = checkArguments, catch)]
    async fn check_arguments(
        schema: &JsValue,
        arguments_json: &JsValue,
    ) -> Result<JsValue, JsValue>;
}

/// Where an MCP session's messages go, as JS data: a tool result's
/// [`Text`] goes out as it is, without a copy in wasm memory.
pub type Send = Rc<dyn Fn(JsValue)>;

/// The parameters of a host call request.
#[derive(Serialize)]
struct CallParams<'a> {
    name: &'a str,
    arguments: &'a Json,
}

/// The parameters of `notifications/cancelled`, for a host call.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Cancelled<'a> {
    request_id: u32,
    reason: &'a str,
}

/// The host calls sent to one client and not answered yet.
#[derive(Clone, Default)]
pub struct HostCallsOut {
    /// Our request id, the run and the call's number in it.
    waiting: Rc<RefCell<Vec<(u32, RunId, u32)>>>,
    last_id: Rc<RefCell<u32>>,
}

impl HostCallsOut {
    /// Checks `call`'s arguments against `schema` (that of the function
    /// the client offered under its name), then sends it to the client
    /// through `send`; `host` hears a refusal at once.
    pub fn send(&self, call: HostCall, schema: Option<Json>, host: ToolHost, send: Send) {
        let Some(schema) = schema else {
            let why = format!(
                "the page offers no function {}",
                crate::format::quoted(&call.name)
            );
            let error = HostCallError::new(HostCallFailure::Refused, why);
            return host.answer_host_call(call.run, call.call, Err(error));
        };
        let this = self.clone();
        leptos::task::spawn_local(async move {
            let checked = check_arguments(&to_js(&schema), &call.arguments.to_js()).await;
            let (arguments, why) = match checked {
                Ok(pair) => {
                    let pair = Json::from(pair);
                    let first = pair
                        .items()
                        .into_iter()
                        .next()
                        .unwrap_or_else(Json::empty_object);
                    let why = pair.items().get(1).and_then(Json::as_string);
                    (first, why)
                }
                Err(error) => {
                    let why = format!("the arguments could not be checked: {}", message(&error));
                    let error = HostCallError::new(HostCallFailure::Refused, why);
                    return host.answer_host_call(call.run, call.call, Err(error));
                }
            };
            if let Some(why) = why {
                let why = format!(
                    "host.{}: the arguments do not match its schema: {why}",
                    call.name
                );
                let error = HostCallError::new(HostCallFailure::InvalidArguments, why);
                return host.answer_host_call(call.run, call.call, Err(error));
            }
            let id = {
                let mut last = this.last_id.borrow_mut();
                *last += 1;
                *last
            };
            this.waiting.borrow_mut().push((id, call.run, call.call));
            let params = CallParams {
                name: &call.name,
                arguments: &arguments,
            };
            send(to_js(&request_message(id, HOST_CALL_METHOD, params)));
        });
    }

    /// The client answered request `id`: its `result` (`{value}`) or its
    /// `error` (whose message the code reads) goes to the run. An answer to
    /// nothing we wait for (a cancelled call's) is dropped.
    pub fn answered(&self, id: &Json, result: Option<Json>, error: Option<Json>, host: ToolHost) {
        let ours = id.as_f64();
        let Some((run, call)) = ours.and_then(|id| self.take(|waiting| f64::from(waiting.0) == id))
        else {
            return;
        };
        let answer = match (result, error) {
            (_, Some(error)) => {
                let said = error.get("message").and_then(|text| text.as_string());
                let said = said.unwrap_or_else(|| "the page's handler failed".to_owned());
                Err(HostCallError::new(HostCallFailure::Handler, said))
            }
            (result, None) => {
                let value = result.and_then(|result| result.get("value"));
                Ok(value.map_or_else(|| Text::from("null"), |value| value.compact()))
            }
        };
        host.answer_host_call(run, call, answer);
    }

    /// Call `call` of run `run` need not be answered any more: the client
    /// hears it is cancelled (its handler's signal aborts).
    pub fn cancel(&self, run: RunId, call: u32, send: &Send) {
        if let Some((id, _)) = self.take_entry(|waiting| waiting.1 == run && waiting.2 == call) {
            let params = Cancelled {
                request_id: id,
                reason: "the run was stopped",
            };
            send(to_js(&notification_message(
                "notifications/cancelled",
                params,
            )));
        }
    }

    fn take(&self, matches: impl Fn(&(u32, RunId, u32)) -> bool) -> Option<(RunId, u32)> {
        self.take_entry(matches).map(|(_, run_call)| run_call)
    }

    fn take_entry(
        &self,
        matches: impl Fn(&(u32, RunId, u32)) -> bool,
    ) -> Option<(u32, (RunId, u32))> {
        let mut waiting = self.waiting.borrow_mut();
        let at = waiting.iter().position(matches)?;
        let (id, run, call) = waiting.swap_remove(at);
        Some((id, (run, call)))
    }
}
