//! The code editor, its Run and Stop buttons, the timeout and the packages
//! to load.
//!
//! The editor is CodeMirror (www/editor/code-editor.js, loaded through
//! www/editor.js once the page says it may load, or at once when the person
//! focuses the plain text field that stands in until it has loaded). The
//! field stays, with a note, if it cannot load. The text is
//! the page's `code` signal: setting it from anywhere (an example, another
//! panel) puts the new text in the editor as one change the person can
//! undo. Each session keeps its own undo history while the page lives.

use leptos::ev::KeyboardEvent;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::app::assist::Assist;
use crate::editing::marks::Mark;
use crate::js::error as js_error;

#[wasm_bindgen(module = "/www/editor.js")]
extern "C" {
    /// A mounted CodeMirror editor (`CodeEditor` in www/editor/code-editor.js).
    type CodeEditor;

    #[wasm_bindgen(catch, js_name = loadEditor)]
    async fn load_editor() -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = openEditor)]
    #[allow(clippy::too_many_arguments)]
    fn open_editor(
        module: &JsValue,
        parent: &web_sys::HtmlElement,
        session: &str,
        code: &str,
        cursor: u32,
        focus: bool,
        changed: &Closure<dyn Fn(String, Option<String>, u32)>,
        run: &Closure<dyn Fn()>,
        lint: &Closure<dyn Fn(String, js_sys::Function)>,
        complete: &Closure<dyn Fn(String, u32, js_sys::Function)>,
    ) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, js_name = showSession)]
    fn show_session(this: &CodeEditor, session: &str, code: &str, cursor: u32);

    #[wasm_bindgen(method, js_name = setCode)]
    fn set_code(this: &CodeEditor, code: &str);

    #[wasm_bindgen(method)]
    fn flush(this: &CodeEditor);

    #[wasm_bindgen(method, js_name = keepSessions)]
    fn keep_sessions(this: &CodeEditor, names: Vec<String>);

    #[wasm_bindgen(method, js_name = markRunError)]
    fn mark_run_error(this: &CodeEditor, mark: &JsValue);

    #[wasm_bindgen(method)]
    fn destroy(this: &CodeEditor);
}

/// What the editor calls: kept as long as it lives. A question (lint,
/// complete) comes with the function its answer goes to.
struct Hooks {
    changed: Closure<dyn Fn(String, Option<String>, u32)>,
    run: Closure<dyn Fn()>,
    lint: Closure<dyn Fn(String, js_sys::Function)>,
    complete: Closure<dyn Fn(String, u32, js_sys::Function)>,
}

/// The mounted editor and its hooks, which go together: the editor first.
struct Mounted {
    editor: CodeEditor,
    _hooks: Hooks,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        self.editor.destroy();
    }
}

/// Where loading the editor is.
#[derive(Clone, PartialEq)]
enum Loading {
    Pending,
    Ready,
    Failed(String),
}

/// The editor's last report for the session it shows, so the page's own
/// changes to the text can be told from the editor's.
#[derive(Default)]
struct Shown {
    session: String,
    text: String,
}

/// The error a run of `session` ended with (`None`: it ended well), for the editor to mark.
pub type RunMark = (String, Option<Mark>);

/// The editor for `session`'s `code` (one of `names`) with the cursor at
/// `cursor`, loaded once `may_load` (or once the person focuses the field
/// standing in); `on_edit` hears the editor's reports (a session's text when
/// it changed, and its cursor), `last_run` says how the latest run from it ended. The
/// Run button and Ctrl/Cmd+Enter call `on_run`, Stop calls `on_stop` and is
/// enabled only while `can_stop`.
#[component]
#[allow(clippy::too_many_arguments)]
pub fn Editor<F, G, P, E>(
    code: RwSignal<String>,
    cursor: RwSignal<u32>,
    session: RwSignal<String>,
    names: RwSignal<Vec<String>>,
    last_run: RwSignal<Option<RunMark>>,
    assist: Assist,
    on_edit: E,
    timeout_s: RwSignal<f64>,
    packages: Signal<String>,
    set_packages: P,
    on_run: F,
    on_stop: G,
    can_stop: Signal<bool>,
    may_load: Signal<bool>,
) -> impl IntoView
where
    F: Fn() + Copy + Send + Sync + 'static,
    G: Fn() + Copy + 'static,
    P: Fn(String) + Copy + 'static,
    E: Fn(String, Option<String>, u32) + Copy + 'static,
{
    let host = NodeRef::<html::Div>::new();
    let fallback = NodeRef::<html::Textarea>::new();
    let reached = RwSignal::new(false);
    let loading = RwSignal::new(Loading::Pending);
    let mounted = StoredValue::new_local(None::<Mounted>);
    let shown = StoredValue::new_local(Shown::default());
    on_cleanup(move || mounted.update_value(|slot| drop(slot.take())));

    // Before a run: whatever the editor has not reported yet.
    let flush = move || {
        mounted.with_value(|slot| {
            if let Some(m) = slot {
                m.editor.flush();
            }
        })
    };
    let run = move || {
        flush();
        on_run();
    };

    let hooks = move || Hooks {
        changed: Closure::new(move |from: String, text: Option<String>, at: u32| {
            if let Some(text) = &text {
                shown.update_value(|shown| {
                    if shown.session == from {
                        shown.text.clone_from(text);
                    }
                });
            }
            on_edit(from, text, at);
        }),
        run: Closure::new(on_run),
        lint: Closure::new(move |text: String, answer: js_sys::Function| {
            spawn_local(async move {
                let marks = assist.lint(text).await.unwrap_or_default();
                reply(&answer, to_js(&marks));
            })
        }),
        complete: Closure::new(move |text: String, at: u32, answer: js_sys::Function| {
            let from = shown.with_value(|shown| shown.session.clone());
            spawn_local(
                async move { reply(&answer, to_js(&assist.complete(from, text, at).await)) },
            )
        }),
    };

    Effect::new(move |started: Option<bool>| {
        let Some(parent) = host.get() else {
            return started.unwrap_or(false);
        };
        if started == Some(true) {
            return true;
        }
        if !(may_load.get() || reached.get()) {
            return false;
        }
        spawn_local(async move {
            let opened = async {
                let module = load_editor().await?;
                // The text, cursor and focus as they are once it has loaded:
                // the person may have typed in the field meanwhile.
                let (from, text) = (session.get_untracked(), code.get_untracked());
                let typing = fallback.get_untracked().filter(has_focus);
                let at = typing
                    .as_ref()
                    .and_then(|field| field.selection_start().ok().flatten())
                    .unwrap_or_else(|| cursor.get_untracked());
                let hooks = hooks();
                let editor = open_editor(
                    &module,
                    &parent,
                    &from,
                    &text,
                    at,
                    typing.is_some(),
                    &hooks.changed,
                    &hooks.run,
                    &hooks.lint,
                    &hooks.complete,
                )?;
                shown.set_value(Shown {
                    session: from,
                    text,
                });
                Ok::<_, JsValue>(Mounted {
                    editor: editor.unchecked_into(),
                    _hooks: hooks,
                })
            }
            .await;
            match opened {
                // Gone meanwhile: the editor is dropped, and so destroyed, at once.
                Ok(editor) => {
                    if mounted.try_set_value(Some(editor)).is_none() {
                        loading.try_set(Loading::Ready);
                    }
                }
                Err(error) => {
                    loading.try_set(Loading::Failed(js_error::message(&error)));
                }
            }
        });
        true
    });

    // The page's changes to the text (an example, a session switched) go
    // into the editor; the editor's own reports come back equal and stop here.
    Effect::new(move |_| {
        let text = code.get();
        if loading.with(|l| *l != Loading::Ready) {
            return;
        }
        let current = session.get_untracked();
        let (switched, changed) =
            shown.with_value(|shown| (shown.session != current, shown.text != text));
        mounted.with_value(|slot| {
            let Some(m) = slot else { return };
            if switched {
                m.editor
                    .show_session(&current, &text, cursor.get_untracked());
            } else if changed {
                m.editor.set_code(&text);
            }
        });
        shown.set_value(Shown {
            session: current,
            text,
        });
    });

    // A deleted session's undo history goes with it.
    Effect::new(move |_| {
        let kept = names.get();
        if loading.get() == Loading::Ready {
            mounted.with_value(|slot| {
                if let Some(m) = slot {
                    m.editor.keep_sessions(kept);
                }
            });
        }
    });

    // How the latest run from the editor ended, marked where it failed.
    Effect::new(move |_| {
        let Some((of, mark)) = last_run.get() else {
            return;
        };
        if loading.get() != Loading::Ready || of != session.get_untracked() {
            return;
        }
        if let Ok(mark) = to_js(&mark) {
            mounted.with_value(|slot| {
                if let Some(m) = slot {
                    m.editor.mark_run_error(&mark);
                }
            });
        }
    });

    let on_keydown = move |event: KeyboardEvent| {
        if event.key() == "Enter" && (event.ctrl_key() || event.meta_key()) {
            event.prevent_default();
            on_run();
        }
    };
    view! {
        <section class="editor">
            <div class="code-editor" node_ref=host></div>
            {move || {
                let failed = match loading.get() {
                    Loading::Ready => return None,
                    Loading::Pending => None,
                    Loading::Failed(why) => Some(format!("The code editor could not load ({why}); a plain text field stands in.")),
                };
                Some(view! {
                    <textarea
                        node_ref=fallback
                        class="code-fallback"
                        data-testid="code-fallback"
                        aria-label="Python code"
                        spellcheck="false"
                        prop:value=move || code.get()
                        on:input=move |event| code.set(event_target_value(&event))
                        on:keydown=on_keydown
                        on:focus=move |_| reached.set(true)
                    ></textarea>
                    {failed.map(|why| view! { <p class="notice status-error" data-testid="editor-failed">{why}</p> }.into_any())}
                }
                .into_any())
            }}
            <div class="editor-actions">
                <button data-testid="run" class="run-button" on:click=move |_| run()>
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
                <span class="hint">"Ctrl+Enter runs · Esc stops · Esc then Tab leaves the code"</span>
            </div>
        </section>
    }
}

/// Calls the editor's `answer` with `value` (`null` when it could not be made).
fn reply(answer: &js_sys::Function, value: Result<JsValue, JsValue>) {
    let _ = answer.call1(&JsValue::NULL, &value.unwrap_or(JsValue::NULL));
}

/// `value` as the editor reads it: plain objects, `None` as `null`.
fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(JsValue::from)
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

/// Whether `field` is where the person is typing.
fn has_focus(field: &web_sys::HtmlTextAreaElement) -> bool {
    let active = document().active_element();
    active.is_some_and(|active| active == ***field)
}
