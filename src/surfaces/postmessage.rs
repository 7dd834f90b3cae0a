//! The widget's side of MCP over postMessage, in the wire format of the
//! iframe transport of `@mcp-b/transports` (so the official MCP SDK client
//! with that package's `IframeParentTransport` connects unchanged):
//!
//! `{channel, type, direction, payload}` (their values are
//! [`crate::names`]' `IFRAME_*`), where `payload` is a JSON-RPC message or
//! one of the handshake strings.
//!
//! Only the parent window is listened to, and only origins the deployment
//! lists (`embed.allow` in sandpit.config.json) are served; any other origin
//! gets a JSON-RPC error that says so.

use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Window};

use super::mcp_session::McpSession;
use super::tool_host::ToolHost;
use crate::js::bulk::{to_js, Json};
use crate::mcp::jsonrpc;
use crate::names::{
    CONFIG_FILE, ERROR_REFUSED, IFRAME_CHANNEL, IFRAME_CHECK_READY, IFRAME_MCP_TYPE,
    IFRAME_SERVER_READY, IFRAME_TO_CLIENT, IFRAME_TO_SERVER, WIDGET_EVENT_TYPE, WIDGET_PAGE,
    WIDGET_RESIZED,
};

/// Origins allowed to drive the widget, from the deployment's config.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct EmbedPolicy {
    /// Exact origins (`scheme://host[:port]`), or `"*"` for any.
    #[serde(default)]
    pub allow: Vec<String>,
}

impl EmbedPolicy {
    /// Whether the page at `origin` may drive the widget.
    pub fn allows(&self, origin: &str) -> bool {
        self.allow
            .iter()
            .any(|allowed| allowed == "*" || allowed == origin)
    }

    /// What a refused page is told: who may drive the widget, and the exact
    /// `embed` entry of the deployment's config that would let `origin` in.
    /// The widget reads the config each time it loads, so the change holds
    /// from the next load of the embedding page.
    pub fn refusal(&self, origin: &str) -> String {
        // Origins hold nothing `quoted` escapes differently from JSON.
        let quote = crate::format::quoted;
        let allowed: Vec<String> = self
            .allow
            .iter()
            .map(|allowed| quote(allowed))
            .chain([quote(origin)])
            .collect();
        format!(
            "Sandpit refuses requests from {origin}: this deployment lets only the pages \
             listed in embed.allow ({CONFIG_FILE}) drive its widget. To allow this page, add \
             {} to that list in the deployment's {CONFIG_FILE} (beside {WIDGET_PAGE}), so that \
             it reads: \"embed\": {{ \"allow\": [{}] }}. No rebuild is needed: the widget \
             reads the file each time it loads, so the page's next load is let in.",
            quote(origin),
            allowed.join(", ")
        )
    }
}

/// The widget's listeners while it serves: dropping this removes them.
pub struct Serving {
    on_message: Closure<dyn Fn(MessageEvent)>,
    resize: Option<(web_sys::ResizeObserver, Closure<dyn Fn()>)>,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = leptos::prelude::window().remove_event_listener_with_callback(
            "message",
            self.on_message.as_ref().unchecked_ref(),
        );
        if let Some((observer, _)) = &self.resize {
            observer.disconnect();
        }
    }
}

/// Serves MCP to the parent page until the returned [`Serving`] is dropped:
/// answers allowed origins, refuses the rest (`on_refused` hears why, for
/// each refused request), and tells the served page the widget's height whenever it changes.
pub fn serve(
    host: ToolHost,
    policy: EmbedPolicy,
    on_refused: impl Fn(String) + 'static,
) -> Option<Serving> {
    let window = leptos::prelude::window();
    let Some(parent) = window.parent().ok().flatten().filter(|p| !same(p, &window)) else {
        on_refused("this page is not inside a frame: nothing can drive it".into());
        return None;
    };
    let client: Rc<RefCell<Option<(String, McpSession)>>> = Rc::default();
    let on_message = {
        let parent = parent.clone();
        let client = client.clone();
        Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let from_parent = event.source().is_some_and(|s| same(&s, &parent));
            let Some(payload) = from_parent.then(|| envelope_payload(&event)).flatten() else {
                return;
            };
            let origin = event.origin();
            if payload.as_string().as_deref() == Some(IFRAME_CHECK_READY) {
                post(&parent, &origin, to_js(&IFRAME_SERVER_READY));
                return;
            }
            if !policy.allows(&origin) {
                let why = policy.refusal(&origin);
                if let Some(id) = payload
                    .get("id")
                    .filter(|_| payload.get("method").is_some())
                {
                    let refusal = jsonrpc::error(Some(&id), ERROR_REFUSED.into(), &why);
                    post(&parent, &origin, to_js(&refusal));
                }
                on_refused(why);
                return;
            }
            let session = connect(&client, &parent, host, &origin);
            session.receive(&payload);
        })
    };
    window
        .add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref())
        .expect("a window takes message listeners");
    // Announced to any origin, as the iframe transport does: it reveals nothing.
    post(&parent, "*", to_js(&IFRAME_SERVER_READY));
    Some(Serving {
        on_message,
        resize: watch_height(parent, client),
    })
}

/// The session for `origin`, new if the parent page changed (or first talks).
fn connect(
    client: &Rc<RefCell<Option<(String, McpSession)>>>,
    parent: &Window,
    host: ToolHost,
    origin: &str,
) -> McpSession {
    let mut slot = client.borrow_mut();
    if let Some((known, session)) = slot.as_ref() {
        if known == origin {
            return session.clone();
        }
    }
    let (parent, target) = (parent.clone(), origin.to_owned());
    let session = McpSession::new(
        host,
        Rc::new(move |message| post(&parent, &target, message)),
    );
    *slot = Some((origin.to_owned(), session.clone()));
    session
}

/// Posts the widget's height to the page it serves whenever it changes, so
/// the page can size the iframe to its content; watches until the returned
/// observer is disconnected.
fn watch_height(
    parent: Window,
    client: Rc<RefCell<Option<(String, McpSession)>>>,
) -> Option<(web_sys::ResizeObserver, Closure<dyn Fn()>)> {
    let root = leptos::prelude::document().document_element()?;
    let last = RefCell::new(0);
    let measured = root.clone();
    let on_resize = Closure::<dyn Fn()>::new(move || {
        let height = measured.scroll_height();
        let origin = client.borrow().as_ref().map(|(origin, _)| origin.clone());
        if let Some(origin) = origin.filter(|_| *last.borrow() != height) {
            *last.borrow_mut() = height;
            let message = Resized {
                channel: IFRAME_CHANNEL,
                kind: WIDGET_EVENT_TYPE,
                event: WIDGET_RESIZED,
                height,
            };
            post_raw(&parent, &origin, &to_js(&message));
        }
    });
    let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
    observer.observe(&root);
    if let Some(body) = leptos::prelude::document().body() {
        observer.observe(&body);
    }
    Some((observer, on_resize))
}

/// Sandpit's own message to the page it serves: the widget's new height.
#[derive(Serialize)]
struct Resized {
    channel: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    event: &'static str,
    height: i32,
}

/// The payload of a message in the transport's envelope, client to server.
fn envelope_payload(event: &MessageEvent) -> Option<Json> {
    let data = Json::from(event.data());
    let says = |name, expected: &str| {
        data.get(name)
            .and_then(|value| value.as_string())
            .as_deref()
            == Some(expected)
    };
    let ours = says("channel", IFRAME_CHANNEL)
        && says("type", IFRAME_MCP_TYPE)
        && says("direction", IFRAME_TO_SERVER);
    ours.then(|| data.get("payload")).flatten()
}

/// The transport's envelope around a message from the server.
#[derive(Serialize)]
struct Envelope {
    channel: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    direction: &'static str,
    /// Already JS data: a tool result's text goes out as it is.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    payload: JsValue,
}

fn post(parent: &Window, origin: &str, payload: JsValue) {
    let envelope = Envelope {
        channel: IFRAME_CHANNEL,
        kind: IFRAME_MCP_TYPE,
        direction: IFRAME_TO_CLIENT,
        payload,
    };
    post_raw(parent, origin, &to_js(&envelope));
}

fn post_raw(parent: &Window, origin: &str, message: &JsValue) {
    // A page with an opaque origin (a sandboxed frame) is named "null", which
    // no target origin can say: only "*" reaches it, and only the parent is posted to.
    let target = if origin == "null" { "*" } else { origin };
    // A parent that navigated away makes this fail: nobody is listening.
    let _ = parent.post_message(message, target);
}

fn same(a: &JsValue, b: &JsValue) -> bool {
    js_sys::Object::is(a, b)
}

/// The deployment's embed policy (`embed` in sandpit.config.json); none when
/// the file says nothing, an error when it cannot be read.
pub async fn embed_policy() -> Result<EmbedPolicy, String> {
    #[derive(serde::Deserialize)]
    struct Config {
        #[serde(default)]
        embed: EmbedPolicy,
    }
    let config: Config = crate::js::fetch::json(CONFIG_FILE).await?;
    Ok(config.embed)
}
