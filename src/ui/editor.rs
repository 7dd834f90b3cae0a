//! The code area, its Run and Stop buttons, and the timeout.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

/// A textarea bound to `code`; the Run button and Ctrl/Cmd+Enter call
/// `on_run`, Stop calls `on_stop` and is enabled only while `can_stop`.
#[component]
pub fn Editor<F, G, P>(
    code: RwSignal<String>,
    timeout_s: RwSignal<f64>,
    packages: Signal<String>,
    set_packages: P,
    on_run: F,
    on_stop: G,
    can_stop: Signal<bool>,
) -> impl IntoView
where
    F: Fn() + Copy + 'static,
    G: Fn() + Copy + 'static,
    P: Fn(String) + Copy + 'static,
{
    let on_keydown = move |event: KeyboardEvent| {
        if event.key() == "Enter" && (event.ctrl_key() || event.meta_key()) {
            event.prevent_default();
            on_run();
        }
    };
    view! {
        <section class="editor">
            <textarea
                data-testid="code"
                aria-label="Python code"
                spellcheck="false"
                prop:value=move || code.get()
                on:input=move |event| code.set(event_target_value(&event))
                on:keydown=on_keydown
            ></textarea>
            <div class="editor-actions">
                <button data-testid="run" class="run-button" on:click=move |_| on_run()>
                    "Run"
                </button>
                <button
                    data-testid="stop"
                    class="stop-button"
                    prop:disabled=move || !can_stop.get()
                    on:click=move |_| on_stop()
                >
                    "Stop"
                </button>
                <label class="timeout">
                    "Timeout (s) "
                    <input
                        data-testid="timeout"
                        type="number"
                        min="0"
                        step="1"
                        title="0 means no limit"
                        prop:value=move || timeout_s.get()
                        on:change=move |event| timeout_s.set(seconds_in(&event))
                    />
                </label>
                <label class="timeout packages">
                    "Packages "
                    <input
                        data-testid="packages"
                        placeholder="loaded before each run of this session"
                        title="Imports load their packages by themselves; list here what the code loads dynamically"
                        prop:value=move || packages.get()
                        on:change=move |event| set_packages(event_target_value(&event))
                    />
                </label>
                <span class="hint">"Ctrl+Enter runs"</span>
            </div>
        </section>
    }
}

/// The seconds typed in a number field, 0 when it holds none. The browser
/// reads the number: the app's wasm then parses no floating-point text.
fn seconds_in(event: &leptos::ev::Event) -> f64 {
    let seconds = event_target::<web_sys::HtmlInputElement>(event).value_as_number();
    if seconds.is_nan() {
        0.0
    } else {
        seconds
    }
}
