//! The standalone page's tools for agents, through www/agents.js: WebMCP
//! (browser agents call them on `document.modelContext`) and, when the page
//! is opened with `?relay` or `?relay=<port>`, desktop MCP clients through
//! the local relay of `@mcp-b/webmcp-local-relay` or Sandpit's own MCP server
//! (mcp-server/), which also wants the pairing token it gave the person:
//! `?relay=<port>&pair=<token>`. Calls run like any other run: they show in
//! the page's run list.

use leptos::logging::warn;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;

use super::tool_host::ToolHost;
use crate::js::bulk::{to_js, Json};
use crate::mcp::content::call_result;
use crate::mcp::ToolOutcome;
use crate::tools::{Tool, ToolCall};

#[wasm_bindgen(module = "/www/agents.js")]
extern "C" {
    #[wasm_bindgen(js_name = registerWebMcp)]
    fn register_web_mcp(tools: &JsValue, execute: &js_sys::Function) -> js_sys::Promise;

    #[wasm_bindgen(js_name = connectRelay)]
    fn connect_relay(
        port: u16,
        tools: &JsValue,
        execute: &js_sys::Function,
        on_state: &js_sys::Function,
        token: Option<String>,
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

/// What the page hands agents: the closures JavaScript calls, kept for as
/// long as the page's owner lives.
struct Offered {
    _execute: Closure<dyn Fn(String, JsValue) -> js_sys::Promise>,
    _relay: Option<RelayLink>,
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

/// Offers the tools to agents for as long as the calling component lives;
/// returns the relay's state, `None` when the page was not asked to connect
/// to one.
pub fn offer_tools(host: ToolHost) -> RwSignal<Option<RelayState>> {
    let relay = RwSignal::new(None);
    let tools = to_js(&Tool::descriptors());
    let execute = Closure::<dyn Fn(String, JsValue) -> js_sys::Promise>::new(
        move |name: String, args: JsValue| {
            wasm_bindgen_futures::future_to_promise(
                async move { Ok(call(host, &name, args).await) },
            )
        },
    );
    let registered = register_web_mcp(&tools, execute.as_ref().unchecked_ref());
    spawn_local(async move {
        if let Err(error) = wasm_bindgen_futures::JsFuture::from(registered).await {
            warn!(
                "sandpit: WebMCP registration failed: {}",
                crate::js::error::message(&error)
            );
        }
    });
    let connected = relay_port().map(|port| {
        let on_state = Closure::<dyn Fn(String, String)>::new(move |state, detail| {
            relay.set(Some(RelayState { state, detail }));
        });
        let disconnect = connect_relay(
            port,
            &tools,
            execute.as_ref().unchecked_ref(),
            on_state.as_ref().unchecked_ref(),
            crate::app::query_param("pair").filter(|token| !token.is_empty()),
        );
        RelayLink {
            _on_state: on_state,
            disconnect,
        }
    });
    StoredValue::new_local(Offered {
        _execute: execute,
        _relay: connected,
    });
    relay
}

/// Carries out one call from an agent; the answer is an MCP `CallToolResult`.
async fn call(host: ToolHost, name: &str, args: JsValue) -> JsValue {
    let outcome = match ToolCall::parse(name, &Json::from(args)) {
        Ok(call) => host.start(call, |_| {}).1.await,
        Err(why) => ToolOutcome::Failed(why.to_string()),
    };
    to_js(&call_result(&outcome))
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
