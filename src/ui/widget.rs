//! The embeddable widget (widget.html): the runs an embedding page asks for,
//! shown compactly, with no editor. The page drives it over MCP through
//! postMessage (see [`crate::surfaces::postmessage`] and www/sandpit-client.js).
//!
//! The query string picks the look: `theme=light|dark` (default: the
//! system's), `order=oldest-first` (default: the newest run on top),
//! `hide=code,json` (leave out each run's code listing, its result as JSON,
//! or both), and `headless` shows nothing at all.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::wasm_bindgen;

use super::run_list::{same_runs, RunList};
use super::status_line::{Activity, StatusLine};
use crate::app::drawn::drawn;
use crate::app::{query_param, start_runtime, RunEntry};
use crate::names::{
    WIDGET_HEADLESS_PARAM, WIDGET_HIDE_PARAM, WIDGET_ORDER_PARAM, WIDGET_PAGE, WIDGET_THEME_PARAM,
};
use crate::surfaces::postmessage::{embed_policy, serve};
use crate::surfaces::tool_host::ToolHost;

#[wasm_bindgen(module = "/www/thread-worker.js")]
extern "C" {
    /// Whether Python runs on a frame's own thread on this page (its origin
    /// is opaque, where no module worker starts); the module, imported before
    /// the app starts, arranged it.
    #[wasm_bindgen(js_name = threadMode)]
    fn thread_mode() -> bool;
}

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
                let listening = serve(host, policy, move |why| refused.set(Some(why)));
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
    // The runs and the status line follow what is drawn, at most ten times a second.
    let drawn = (!headless).then(|| drawn(runs.read_only(), |a, b| same_runs(a, b), |_, _| false));
    let activity = match drawn {
        Some(runs) => Activity::watch(runs),
        None => Memo::new(|_| Activity::default()),
    };
    let look = Look::from_params(
        query_param(WIDGET_ORDER_PARAM).as_deref(),
        query_param(WIDGET_HIDE_PARAM).as_deref(),
    );

    view! {
        <main
            class="widget"
            data-theme=theme
            data-order=look.oldest_first.then_some("oldest-first")
            data-hide-code=look.hide_code.then_some("")
            data-hide-json=look.hide_json.then_some("")
            hidden=headless
            data-testid="widget"
        >
            <StatusLine status activity />
            {thread_mode().then(|| view! {
                <p class="run-note" data-testid="thread-mode">
                    "Python runs on this frame's own thread: the page that embeds it does not let \
                     it start a worker. A run that does not pause holds the frame until it ends \
                     or reaches its timeout, which replaces Python here and runs the session's \
                     earlier code again."
                </p>
            }.into_any())}
            <Show when=move || refused.with(Option::is_some)>
                {view! {
                    <p class="status-error" data-testid="widget-refused">
                        "Refused: " {move || refused.get()}
                    </p>
                }
                .into_any()}
            </Show>
            // Headless, nobody sees the runs: drawing them would only cost each run time.
            {drawn.map(|runs| view! { <RunList runs /> })}
        </main>
    }
}

/// How the embedding page asked the widget to show its runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Look {
    /// The newest run at the bottom rather than the top.
    pub oldest_first: bool,
    /// No code listing above each run.
    pub hide_code: bool,
    /// No "Result as JSON" below each run.
    pub hide_json: bool,
}

impl Look {
    /// The look `order` and `hide` (the query's values) ask for; what neither
    /// knows is left as by default.
    pub fn from_params(order: Option<&str>, hide: Option<&str>) -> Self {
        let hidden: Vec<&str> = hide.unwrap_or_default().split(',').map(str::trim).collect();
        Self {
            oldest_first: order == Some("oldest-first"),
            hide_code: hidden.contains(&"code"),
            hide_json: hidden.contains(&"json"),
        }
    }
}

/// Whether this page is the widget rather than the full app.
pub fn is_widget_page() -> bool {
    window()
        .location()
        .pathname()
        .is_ok_and(|path| path.rsplit('/').next() == Some(WIDGET_PAGE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_picks_the_order_and_what_each_run_leaves_out() {
        assert_eq!(Look::from_params(None, None), Look::default());
        assert_eq!(
            Look::from_params(Some("oldest-first"), Some("code, json")),
            Look {
                oldest_first: true,
                hide_code: true,
                hide_json: true,
            }
        );
        let only_json = Look::from_params(Some("newest-first"), Some("json"));
        assert!(!only_json.oldest_first && !only_json.hide_code && only_json.hide_json);
        // Words it does not know change nothing.
        assert_eq!(
            Look::from_params(Some("sideways"), Some("everything")),
            Look::default()
        );
    }
}
