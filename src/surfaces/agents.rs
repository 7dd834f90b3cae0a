//! The standalone page's tools for agents, through www/agents.js: WebMCP
//! (browser agents call them on `document.modelContext`) and, when the page
//! is opened with `?relay` or `?relay=<port>`, desktop MCP clients through
//! the local relay of `@mcp-b/webmcp-local-relay` or Sandpit's own MCP server
//! (mcp-server/), which also wants the pairing token it gave the person:
//! `?relay=<port>&pair=<token>`. Calls run like any other run: they show in
//! the page's run list.

use gloo_events::EventListener;
use leptos::logging::warn;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

use super::tool_host::ToolHost;
use crate::js::bulk::{to_js, Json};
use crate::mcp::bridge::CallBudget;
use crate::mcp::content::call_result;
use crate::mcp::ToolOutcome;
use crate::names::WEB_MCP_STORAGE_KEY;
use crate::protocol::StreamName;
use crate::runtime::RunEvent;
use crate::tools::{Tool, ToolCall};

#[wasm_bindgen(module = "/www/agents.js")]
extern "C" {
    #[wasm_bindgen(js_name = registerWebMcp)]
    fn register_web_mcp(
        tools: &JsValue,
        execute: &js_sys::Function,
        signal: &AbortSignal,
    ) -> js_sys::Promise;

    #[wasm_bindgen(js_name = connectRelay)]
    fn connect_relay(
        port: u16,
        tools: &JsValue,
        execute: &js_sys::Function,
        on_state: &js_sys::Function,
        token: Option<String>,
        budget: &JsValue,
    ) -> js_sys::Function;
}

/// The relay's port when the page is opened with no number: the relay's default.
const DEFAULT_RELAY_PORT: u16 = 9333;

/// Where the page stands with the local relay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayState {
    /// "connecting", "connected" or "disconnected".
    pub state: String,
    /// Where, or why not.
    pub detail: String,
}

/// What the page offers agents, for the page to show and switch.
#[derive(Clone, Copy)]
pub struct Offer {
    /// Where the page stands with the local relay; `None` when the page was
    /// not asked to connect to one.
    pub relay: RwSignal<Option<RelayState>>,
    /// Whether the tools are registered for browser agents (WebMCP), as the
    /// person chose (kept across reloads); they are by default.
    pub web_mcp: RwSignal<bool>,
}

/// What agents.js's `connectRelay` needs to keep calls within the local
/// relay's limit (see [`CallBudget`]).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RelayBudget {
    /// When, after a call arrived, the page stops its run.
    stop_after_ms: u32,
    /// The tool whose description says so.
    tool: &'static str,
    /// What that description adds through the relay.
    tool_note: String,
}

/// The JS function agents.js calls for each tool call: `(name, args,
/// signal, bridged, onOutput)`, resolving to a CallToolResult.
type Execute =
    dyn Fn(String, JsValue, AbortSignal, bool, Option<js_sys::Function>) -> js_sys::Promise;

/// What the page hands agents: the closures JavaScript calls, kept for as
/// long as the page's owner lives, and the WebMCP registration in force.
struct Offered {
    execute: Closure<Execute>,
    _relay: Option<RelayLink>,
    /// Aborting it unregisters the WebMCP tools.
    registered: Option<AbortController>,
}

impl Drop for Offered {
    fn drop(&mut self) {
        if let Some(registration) = &self.registered {
            registration.abort();
        }
    }
}

/// The relay connection: its state callback, and the function that ends it.
struct RelayLink {
    _on_state: Closure<dyn Fn(String, String)>,
    disconnect: js_sys::Function,
}

impl Drop for RelayLink {
    fn drop(&mut self) {
        let _ = self.disconnect.call0(&JsValue::NULL);
    }
}

/// Offers the tools to agents for as long as the calling component lives.
pub fn offer_tools(host: ToolHost) -> Offer {
    let relay = RwSignal::new(None);
    let web_mcp = RwSignal::new(stored_choice() != Some(false));
    let tools = to_js(&Tool::descriptors());
    let execute = Closure::<Execute>::new(
        move |name: String,
              args: JsValue,
              signal: AbortSignal,
              bridged: bool,
              on_output: Option<js_sys::Function>| {
            let budget = bridged.then_some(CallBudget::LOCAL_RELAY);
            wasm_bindgen_futures::future_to_promise(async move {
                Ok(call(host, &name, args, signal, budget, on_output).await)
            })
        },
    );
    let connected = relay_port().map(|port| {
        let on_state = Closure::<dyn Fn(String, String)>::new(move |state, detail| {
            relay.set(Some(RelayState { state, detail }));
        });
        let budget = CallBudget::LOCAL_RELAY;
        let budget = to_js(&RelayBudget {
            stop_after_ms: budget.stop_after_ms(),
            tool: Tool::RunPython.name(),
            tool_note: budget.tool_note(),
        });
        let disconnect = connect_relay(
            port,
            &tools,
            execute.as_ref().unchecked_ref(),
            on_state.as_ref().unchecked_ref(),
            crate::app::query_param("pair").filter(|token| !token.is_empty()),
            &budget,
        );
        RelayLink {
            _on_state: on_state,
            disconnect,
        }
    });
    let offered = StoredValue::new_local(Offered {
        execute,
        _relay: connected,
        registered: None,
    });
    // Registered while the person allows it; switched off, the signal of
    // the registration in force unregisters the tools and stops their runs.
    Effect::new(move |_| {
        let wanted = web_mcp.get();
        offered.update_value(|offered| {
            if let Some(registration) = offered.registered.take() {
                registration.abort();
            }
            if wanted {
                offered.registered = register(&tools, offered.execute.as_ref().unchecked_ref());
            }
        });
        keep_choice(wanted);
    });
    Offer { relay, web_mcp }
}

/// Registers the tools on the page's model context; `None` when the browser
/// cannot make the AbortController that would unregister them.
fn register(tools: &JsValue, execute: &js_sys::Function) -> Option<AbortController> {
    let registration = AbortController::new().ok()?;
    let registered = register_web_mcp(tools, execute, &registration.signal());
    spawn_local(async move {
        if let Err(error) = wasm_bindgen_futures::JsFuture::from(registered).await {
            warn!(
                "sandpit: WebMCP registration failed: {}",
                crate::js::error::message(&error)
            );
        }
    });
    Some(registration)
}

/// The person's choice about WebMCP, if they made one on this origin.
fn stored_choice() -> Option<bool> {
    let storage = window().local_storage().ok().flatten()?;
    let stored = storage.get_item(WEB_MCP_STORAGE_KEY).ok().flatten()?;
    Some(stored != "off")
}

/// Keeps the choice: nothing is stored for the default (on).
fn keep_choice(on: bool) {
    let Some(storage) = window().local_storage().ok().flatten() else {
        return;
    };
    let _ = if on {
        storage.remove_item(WEB_MCP_STORAGE_KEY)
    } else {
        storage.set_item(WEB_MCP_STORAGE_KEY, "off")
    };
}

/// Carries out one call from an agent; the answer is an MCP `CallToolResult`.
/// `signal` stops the run (the agent or the bridge gave up, or the tools were
/// unregistered); `budget` keeps it within a bridge's limit; `on_output`
/// hears output as it is written, as `(stream, text)`.
async fn call(
    host: ToolHost,
    name: &str,
    args: JsValue,
    signal: AbortSignal,
    budget: Option<CallBudget>,
    on_output: Option<js_sys::Function>,
) -> JsValue {
    let mut parsed = match ToolCall::parse(name, &Json::from(args)) {
        Ok(call) => call,
        Err(why) => return to_js(&call_result(&ToolOutcome::Invalid(why.to_string()))),
    };
    let lowered = budget.and_then(|budget| budget.clamp(&mut parsed));
    let on_event = move |event: &RunEvent| {
        if let (Some(listener), RunEvent::Output(chunk)) = (&on_output, event) {
            let stream = match chunk.stream {
                StreamName::Stdout => "stdout",
                StreamName::Stderr => "stderr",
            };
            let _ = listener.call2(&JsValue::NULL, &stream.into(), &chunk.text.to_js());
        }
    };
    let (run, outcome) = host.start(parsed, on_event);
    let _stopping = run.map(|run| {
        if signal.aborted() {
            host.cancel(run);
        }
        EventListener::once(&signal, "abort", move |_| host.cancel(run))
    });
    let outcome = outcome.await;
    let mut result = call_result(&outcome);
    if let Some(note) = lowered {
        result = result.with_note(note);
    }
    if let Some(budget) = budget.filter(|_| signal.aborted()) {
        result = result.with_note(budget.stopped_note());
    }
    to_js(&result)
}

/// `?relay` -> the default port, `?relay=9400` -> 9400, else none.
fn relay_port() -> Option<u16> {
    let value = crate::app::query_param("relay")?;
    if value.is_empty() {
        return Some(DEFAULT_RELAY_PORT);
    }
    value.parse().ok().or_else(|| {
        warn!("sandpit: ?relay={value} is not a port number; not connecting");
        None
    })
}
