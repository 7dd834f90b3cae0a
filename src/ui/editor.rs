//! The code area and its Run button.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

/// A textarea bound to `code`; the Run button and Ctrl/Cmd+Enter call `on_run`.
#[component]
pub fn Editor<F>(code: RwSignal<String>, on_run: F) -> impl IntoView
where
    F: Fn() + Copy + 'static,
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
                <span class="hint">"Ctrl+Enter runs"</span>
            </div>
        </section>
    }
}
