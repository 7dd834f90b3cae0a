//! The embeddable widget (widget.html): the runs an embedding page asks for,
//! shown compactly, with no editor. The page drives it over MCP through
//! postMessage (see [`crate::surfaces::postmessage`] and www/sandpit-client.js).
//!
//! The query string picks the look: `theme=light|dark` (default: the
//! system's), and `headless` shows nothing at all.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::run_list::RunList;
use super::status_line::{Activity, StatusLine};
use crate::app::{query_param, start_runtime, RunEntry};
use crate::names::{WIDGET_HEADLESS_PARAM, WIDGET_PAGE, WIDGET_THEME_PARAM};
use crate::surfaces::postmessage::{embed_policy, serve};
use crate::surfaces::tool_host::ToolHost;

/// The widget page.
#[component]
pub fn Widget() -> impl IntoView {
    let (status, runtime) = start_runtime();
    let runs = RwSignal::new(Vec::<RunEntry>::new());
    let refused = RwSignal::new(None::<String>);
    // Embedded runs are the embedding page's to keep: the widget stores nothing.
    let headless = query_param(WIDGET_HEADLESS_PARAM).is_some();
    let host = ToolHost {
        runtime,
        runs,
        shown: !headless,
        persistence: None,
    };
    // Serving lasts as long as the widget: the listeners go with this value.
    let serving = StoredValue::new_local(None);
    spawn_local(async move {
        match embed_policy().await {
            Ok(policy) => {
                let listening = serve(host, policy, move |origin| refused.set(Some(origin)));
                serving.set_value(listening);
            }
            Err(error) => refused.set(Some(error)),
        }
    });
    let theme = query_param(WIDGET_THEME_PARAM)
        .filter(|theme| ["light", "dark"].contains(&theme.as_str()))
        .unwrap_or_else(|| "system".to_owned());
    // The embedding page's pick holds for the whole widget page (its HTML outputs too).
    match theme.as_str() {
        "light" => super::theme::show("light"),
        "dark" => super::theme::show("dark"),
        _ => {}
    }
    // Headless, the status line still says whether Python is ready (pages
    // wait for that), but nobody sees it follow the runs: doing so would
    // only cost each run time.
    let activity = if headless {
        Memo::new(|_| Activity::default())
    } else {
        Activity::watch(runs)
    };

    view! {
        <main class="widget" data-theme=theme hidden=headless data-testid="widget">
            <StatusLine status activity />
            <Show when=move || refused.with(Option::is_some)>
                <p class="status-error" data-testid="widget-refused">
                    "Refused: " {move || refused.get()}
                </p>
            </Show>
            // Headless, nobody sees the runs: drawing them would only cost each run time.
            {(!headless).then(|| view! { <RunList runs /> })}
        </main>
    }
}

/// Whether this page is the widget rather than the full app.
pub fn is_widget_page() -> bool {
    window()
        .location()
        .pathname()
        .is_ok_and(|path| path.rsplit('/').next() == Some(WIDGET_PAGE))
}
