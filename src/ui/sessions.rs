//! The session picker: choose, add, reset and delete named sessions.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::app::{SessionStates, SharedRuntime};
use crate::protocol::DEFAULT_SESSION;
use crate::runtime::supervisor::SessionState;
use crate::store::file_keeper::FileKeeper;
use crate::store::kept_files::KeptFile;
use crate::surfaces::ask::Ask;

/// Sessions have isolated globals; runs go to the one picked here, from `names`.
/// Reset and Delete also drop the session's kept `files`, after asking.
#[component]
pub fn SessionBar(
    runtime: SharedRuntime,
    session: RwSignal<String>,
    names: RwSignal<Vec<String>>,
    files: FileKeeper,
) -> impl IntoView {
    let draft = RwSignal::new(String::new());
    let notice = RwSignal::new(None::<String>);
    // Reset (false) or Delete (true) waiting for the person to confirm.
    let confirming = RwSignal::new(None::<bool>);
    let states = use_context::<SessionStates>().map(|states| states.0);
    let phase_of = move |name: &str| {
        states.and_then(|states| {
            states.with(|all| all.iter().find(|state| state.name == name).cloned())
        })
    };

    let add = move || {
        let typed = draft.get_untracked().trim().to_owned();
        let name = if typed.is_empty() {
            next_free_name(&names.get_untracked())
        } else {
            typed
        };
        if !names.get_untracked().contains(&name) {
            names.update(|n| n.push(name.clone()));
        }
        draft.set(String::new());
        notice.set(None);
        session.set(name);
    };

    let ask = use_context::<Ask>();
    let clear = move |forget: bool| {
        confirming.set(None);
        let name = session.get_untracked();
        let pending = runtime.with_value(|runtime| runtime.clear_session(&name, forget));
        files.forget(&name);
        if forget {
            if let Some(ask) = ask {
                ask.forget(&name);
            }
            names.update(|n| n.retain(|s| *s != name));
            let first = names.with_untracked(|n| n.first().cloned());
            session.set(first.unwrap_or_else(|| DEFAULT_SESSION.to_owned()));
        }
        spawn_local(async move {
            notice.set(Some(match pending.await {
                Ok(()) if forget => format!("Session “{name}” was deleted."),
                Ok(()) => format!("Session “{name}” was reset: its variables and files are gone."),
                Err(error) => format!("Could not clear “{name}”: {error}"),
            }));
        });
    };

    view! {
        <section class="session-bar">
            <label>
                "Session "
                <select
                    data-testid="session"
                    prop:value=move || session.get()
                    on:change=move |event| {
                        notice.set(None);
                        session.set(event_target_value(&event));
                    }
                >
                    // Drawn again when the names change, not keyed by name: a <For>
                    // keyed by strings brings a keyed list's code of its own to the wasm.
                    {move || {
                        names
                            .get()
                            .into_iter()
                            .map(|name| {
                                let value = name.clone();
                                view! {
                                    <option value=value.clone() selected=move || session.get() == value>
                                        {name}
                                    </option>
                                }
                                .into_any()
                            })
                            .collect_view()
                    }}
                </select>
            </label>
            <input
                data-testid="new-session-name"
                placeholder="new session name"
                prop:value=move || draft.get()
                on:input=move |event| draft.set(event_target_value(&event))
                on:keydown=move |event| {
                    if event.key() == "Enter" {
                        add();
                    }
                }
            />
            <button data-testid="new-session" on:click=move |_| add()>
                "New"
            </button>
            <button data-testid="reset-session" on:click=move |_| confirming.set(Some(false))>
                "Reset"
            </button>
            <button
                data-testid="delete-session"
                title="Delete this session (at least one stays)"
                prop:disabled=move || names.with(|n| n.len() < 2)
                on:click=move |_| confirming.set(Some(true))
            >
                "Delete"
            </button>
            {move || {
                confirming
                    .get()
                    .map(|forget| {
                        let warning = session.with(|name| clear_warning(name, &files.files(name), forget));
                        view! {
                            <span class="confirm" role="group" data-testid="confirm-clear">
                                <span role="alert">{warning}</span>
                                " "
                                <button data-testid="confirm-clear-session" on:click=move |_| clear(forget)>
                                    {if forget { "Delete" } else { "Reset" }}
                                </button>
                                <button data-testid="cancel-clear-session" on:click=move |_| confirming.set(None)>
                                    "Cancel"
                                </button>
                            </span>
                        }.into_any()
                    })
            }}
            <span
                class="session-state"
                data-testid="session-state"
                data-phase=move || session.with(|name| phase_of(name).map_or("none", |s| s.phase.wire_name()).to_owned())
            >
                {move || session.with(|name| describe(phase_of(name).as_ref()))}
            </span>
            <span class="session-notice" data-testid="session-notice">
                {move || notice.get()}
            </span>
        </section>
    }
}

/// What the picked session is doing, in words.
fn describe(state: Option<&SessionState>) -> String {
    let Some(state) = state else {
        return "Not started: its first run starts Python for it.".to_owned();
    };
    let queued = match state.queued {
        0 => String::new(),
        n => format!(" {n} more queued."),
    };
    format!("{}{queued}", state.why)
}

/// What Reset (or Delete, with `forget`) of session `name` takes away.
fn clear_warning(name: &str, files: &[KeptFile], forget: bool) -> String {
    let listed = match files {
        [] => String::new(),
        [one] => format!(" and its file {}", one.path),
        many => {
            let shown: Vec<&str> = many.iter().take(3).map(|f| f.path.as_str()).collect();
            let more = many.len().saturating_sub(shown.len());
            let rest = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!(" and its {} files ({}{rest})", many.len(), shown.join(", "))
        }
    };
    if forget {
        format!("Delete session “{name}”? Its variables{listed}, its code and its conversation with the model are deleted.")
    } else {
        format!("Reset session “{name}”? Its variables{listed} are deleted; its code and run history stay.")
    }
}

/// `session-2`, `session-3`, ...: the first such name not taken.
fn next_free_name(taken: &[String]) -> String {
    (2..)
        .map(|n| format!("session-{n}"))
        .find(|name| !taken.contains(name))
        .unwrap_or_else(|| DEFAULT_SESSION.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str) -> KeptFile {
        KeptFile::kept(path, 1)
    }

    #[test]
    fn the_sessions_state_is_said_in_words() {
        let state = SessionState {
            name: "main".into(),
            phase: crate::runtime::supervisor::SessionPhase::Running,
            queued: 2,
            resident: true,
            why: "Its worker runs one of its calls.".into(),
        };
        assert_eq!(
            describe(Some(&state)),
            "Its worker runs one of its calls. 2 more queued."
        );
        assert!(describe(None).starts_with("Not started"));
    }

    #[test]
    fn the_warning_says_what_goes() {
        assert_eq!(
            clear_warning("main", &[], false),
            "Reset session “main”? Its variables are deleted; its code and run history stay."
        );
        assert_eq!(
            clear_warning("main", &[file("a.csv")], true),
            "Delete session “main”? Its variables and its file a.csv, its code and its conversation with the model are deleted."
        );
        let many: Vec<KeptFile> = ["a", "b", "c", "d", "e"].map(file).into();
        assert!(clear_warning("x", &many, false)
            .contains("its 5 files (a, b, c and 2 more) are deleted"));
    }
}
