//! Whether browser agents may call the page's tools (WebMCP): a switch in
//! Settings. Off, the tools are unregistered and an agent's run in progress stops.

use leptos::prelude::*;

/// The switch; `web_mcp` is [`crate::surfaces::agents::Offer::web_mcp`].
#[component]
pub fn AgentAccess(web_mcp: RwSignal<bool>) -> impl IntoView {
    view! {
        <label class="agent-access" data-testid="web-mcp-switch">
            <input
                type="checkbox"
                prop:checked=move || web_mcp.get()
                on:change=move |event| web_mcp.set(event_target_checked(&event))
            />
            " Browser agents may run Python on this page (WebMCP)"
        </label>
    }
}
