//! The Ask panel: the person states a task, a model writes the code, Sandpit
//! runs and checks it, the model repairs it. Each step shows the model's
//! text as it streams, the code it ran (a click opens it in the editor), the
//! result, and for a repair what changed; the final answer is marked
//! verified or not.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use super::download;
use super::run_view::{CodeListing, ResultView};
use crate::js::bulk::pretty_json;
use crate::model::agent::Phase;
use crate::model::conversation::{Answer, AnswerEnd, Entry, NoteKind, ToolUse};
use crate::model::diff::{diff, DiffLine};
use crate::model::notebook::{python_file, Notebook};
use crate::surfaces::ask::Ask;
use crate::tools::Tool;

/// The panel for the conversation of `session`; `code` is the editor's text.
#[component]
pub fn AskPanel(session: RwSignal<String>, code: RwSignal<String>) -> impl IntoView {
    let Some(ask) = use_context::<Ask>() else {
        return ().into_any();
    };
    let draft = RwSignal::new(String::new());
    let notice = RwSignal::new(None::<String>);
    let phase = move || {
        ask.with(&session.get(), |l| l.phase())
            .unwrap_or(Phase::Idle)
    };
    let busy = move || phase() != Phase::Idle;
    let count = move || {
        ask.with(&session.get(), |l| l.conversation.entries.len())
            .unwrap_or(0)
    };
    let send = move || {
        let text = draft.get_untracked();
        if text.trim().is_empty() || busy() {
            return;
        }
        // A question before the kept conversation is back would start over it.
        if !ask.loaded() {
            notice.set(Some(
                "The saved conversation is still loading; send again in a moment.".to_owned(),
            ));
            return;
        }
        if let Some(problem) = ask.settings.with_untracked(|s| s.problem()) {
            notice.set(Some(problem));
            return;
        }
        notice.set(None);
        draft.set(String::new());
        ask.ask(&session.get_untracked(), text.trim());
    };
    let on_keydown = move |event: KeyboardEvent| {
        // Enter sends, Shift+Enter is a new line (and IME composition is left alone).
        if event.key() == "Enter" && !event.shift_key() && !event.is_composing() {
            event.prevent_default();
            send();
        }
    };
    let resume = move |_| {
        if let Some(problem) = ask.settings.with_untracked(|s| s.problem()) {
            return notice.set(Some(problem));
        }
        notice.set(None);
        ask.resume(&session.get_untracked());
    };
    // Continue picks up after a stop, a failure, the step limit or a reload.
    let can_continue = move || {
        !busy()
            && ask
                .with(&session.get(), |l| {
                    matches!(l.conversation.entries.last(), Some(Entry::Note(note)) if note.kind != NoteKind::Waiting)
                })
                .unwrap_or(false)
    };
    let status = move || {
        let (phase, steps) = ask
            .with(&session.get(), |l| (l.phase(), l.steps()))
            .unwrap_or((Phase::Idle, 0));
        let limit = ask.settings.with(|s| s.steps());
        let step = format!(" (step {} of {limit})", steps.max(1).min(limit));
        match phase {
            Phase::Idle => String::new(),
            Phase::Requesting => format!("Asking the model…{step}"),
            Phase::Streaming => format!("The model is answering…{step}"),
            Phase::Running => format!("Running the model's call…{step}"),
            Phase::Waiting => "Waiting to try again (rate limited)…".to_owned(),
        }
    };
    let export_notebook = move |_| {
        let Some(notebook) = ask.with(&session.get_untracked(), |l| Notebook::of(&l.conversation))
        else {
            return;
        };
        let name = format!("sandpit-{}.ipynb", session.get_untracked());
        notice.set(
            download::save_text(&name, "application/x-ipynb+json", &pretty_json(&notebook)).err(),
        );
    };
    let export_python = move |_| {
        let file = ask
            .with(&session.get_untracked(), |l| python_file(&l.conversation))
            .flatten();
        let Some(file) = file else {
            return notice.set(Some("No code was run in this conversation yet.".to_owned()));
        };
        let name = format!("sandpit-{}.py", session.get_untracked());
        notice.set(download::save_text(&name, "text/x-python", &file.into()).err());
    };
    let model_line = move || {
        ask.settings.with(|s| {
            if s.model.is_empty() || s.endpoint.is_empty() {
                "No model chosen yet: pick one in Settings.".to_owned()
            } else {
                format!("{} at {}", s.model, s.endpoint)
            }
        })
    };
    view! {
        <section
            class="ask"
            aria-labelledby="ask-title"
            data-testid="ask-panel"
            data-phase=move || phase_name(phase()).to_owned()
            data-saving=move || ask.saving.get().to_string()
        >
            <div class="ask-head">
                <h2 id="ask-title">"Ask a model"</h2>
                <span class="ask-model" data-testid="ask-model">{move || model_line()}</span>
            </div>
            <ol class="ask-log" data-testid="ask-log" aria-busy=move || (!ask.loaded()).to_string()>
                <For
                    each=move || 0..count()
                    key=|index| *index
                    children=move |index| view! { <EntryView ask session index code /> }.into_any()
                />
            </ol>
            <p class="ask-status" data-testid="ask-status" role="status" aria-live="polite">{move || status()}</p>
            <textarea
                class="ask-input"
                data-testid="ask-input"
                aria-label="Ask the model: describe a task in words (Enter sends, Shift+Enter starts a new line)"
                placeholder="Describe a task; the model writes Python, Sandpit runs and checks it."
                rows="3"
                prop:value=move || draft.get()
                on:input=move |event| draft.set(event_target_value(&event))
                on:keydown=on_keydown
            ></textarea>
            <div class="ask-actions">
                <button
                    class="run-button"
                    data-testid="ask-send"
                    prop:disabled=move || busy() || draft.with(|d| d.trim().is_empty())
                    on:click=move |_| send()
                >
                    "Send"
                </button>
                <button
                    data-testid="ask-stop"
                    class="stop-button"
                    prop:disabled=move || !busy()
                    on:click=move |_| ask.stop(&session.get_untracked())
                >
                    "Stop"
                </button>
                {move || can_continue().then(|| view! { <button data-testid="ask-continue" on:click=resume>"Continue"</button> }.into_any())}
                <button data-testid="ask-export-notebook" prop:disabled=move || count() == 0 on:click=export_notebook>
                    "Save as notebook"
                </button>
                <button data-testid="ask-export-python" prop:disabled=move || count() == 0 on:click=export_python>
                    "Save code (.py)"
                </button>
                <button
                    data-testid="ask-clear"
                    prop:disabled=move || busy() || count() == 0
                    on:click=move |_| ask.clear(&session.get_untracked())
                >
                    "New conversation"
                </button>
            </div>
            {move || {
                notice
                    .get()
                    .or_else(|| ask.save_error.get().map(|e| format!("The conversation could not be kept: {e}")))
                    .map(|text| view! { <p class="notice status-error" data-testid="ask-notice">{text}</p> }.into_any())
            }}
        </section>
    }
    .into_any()
}

/// The phase's name, for the panel's `data-phase` (tests wait on it).
fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Idle => "idle",
        Phase::Requesting => "requesting",
        Phase::Streaming => "streaming",
        Phase::Running => "running",
        Phase::Waiting => "waiting",
    }
}

/// One entry of the conversation.
#[component]
fn EntryView(
    ask: Ask,
    session: RwSignal<String>,
    index: usize,
    code: RwSignal<String>,
) -> impl IntoView {
    let entry = Memo::new(move |_| {
        ask.with(&session.get(), |l| {
            l.conversation.entries.get(index).cloned()
        })
        .flatten()
    });
    view! {
        {move || match entry.get() {
            None => ().into_any(),
            Some(Entry::Asked(text)) => view! {
                <li class="ask-asked" data-testid="ask-asked"><span class="visually-hidden">"You asked: "</span>{text}</li>
            }
            .into_any(),
            Some(Entry::Note(note)) => {
                let kind = match note.kind {
                    NoteKind::Stopped => "stopped",
                    NoteKind::StepLimit => "step-limit",
                    NoteKind::Failed => "failed",
                    NoteKind::Waiting => "waiting",
                    NoteKind::Reloaded => "reloaded",
                };
                view! { <li class="ask-note" data-testid="ask-note" data-kind=kind>{note.text}</li> }.into_any()
            }
            Some(Entry::Answer(answer)) => view! { <AnswerView ask session index answer code /> }.into_any(),
        }}
    }
}

/// An answer of the model: its text, each call with its code and result,
/// and for a final answer whether it is verified.
#[component]
fn AnswerView(
    ask: Ask,
    session: RwSignal<String>,
    index: usize,
    answer: Answer,
    code: RwSignal<String>,
) -> impl IntoView {
    let end = match answer.end {
        AnswerEnd::Streaming => "streaming",
        AnswerEnd::Complete => "complete",
        AnswerEnd::Cut => "cut",
        AnswerEnd::Stopped => "stopped",
    };
    let verdict = answer
        .is_final()
        .then(|| ask.with(&session.get_untracked(), |l| l.conversation.verdict(index)))
        .flatten();
    let mark = verdict.map(|verdict| {
        let verified = verdict.verified();
        view! {
            <p
                class="ask-verdict"
                class:status-ok=verified
                class:status-error=!verified
                data-testid="ask-verdict"
                data-verified=verified.to_string()
            >
                <span aria-hidden="true">{if verified { "✓ " } else { "✗ " }}</span>
                {verdict.text()}
            </p>
        }
        .into_any()
    });
    let calls = answer
        .calls
        .into_iter()
        .enumerate()
        .map(|(number, call)| {
            let before = ask
                .with(&session.get_untracked(), |l| {
                    l.conversation.previous_code(index, number)
                })
                .flatten();
            view! { <CallView call before code session=session.get_untracked() /> }
        })
        .collect_view();
    view! {
        <li class="ask-answer" data-testid="ask-answer" data-end=end>
            {(!answer.text.is_empty()).then(|| view! { <p class="ask-text" data-testid="ask-text">{answer.text}</p> }.into_any())}
            {calls}
            {mark}
        </li>
    }
}

/// One tool call: what it was asked to do, and what it came to.
#[component]
fn CallView(
    call: ToolUse,
    before: Option<String>,
    code: RwSignal<String>,
    session: String,
) -> impl IntoView {
    let source = call.code();
    let tests = call.tests();
    let is_run = call.name == Tool::RunPython.name();
    let changed = source
        .as_ref()
        .zip(before.filter(|_| is_run))
        .filter(|(now, before)| now != &before)
        .map(|(now, before)| diff(&before, now));
    let error_line = call.run_result().and_then(|r| r.error.and_then(|e| e.line));
    let listing = source.clone().map(|text| {
        let opened = text.clone();
        view! {
            <CodeListing code=text highlight=Signal::derive(move || error_line) />
            <button type="button" data-testid="ask-open-code" on:click=move |_| code.set(opened.clone())>
                "Open in the editor"
            </button>
        }.into_any()
    });
    let tests = tests.map(|tests| {
        view! {
            <details class="ask-tests">
                <summary>"Tests sent with the code"</summary>
                <pre data-testid="ask-call-tests">{tests}</pre>
            </details>
        }
        .into_any()
    });
    let diff_view = changed.map(|lines| view! { <DiffView lines /> });
    let result = match (call.run_result(), &call.reply) {
        (Some(result), _) => view! { <ResultView result session /> }.into_any(),
        (None, Some(_)) => {
            let text = call.reply_text().unwrap_or_default();
            view! { <pre class="ask-reply" data-testid="ask-reply" prop:textContent=text.to_js()></pre> }.into_any()
        }
        (None, None) => view! { <p class="run-note">"Running…"</p> }.into_any(),
    };
    view! {
        <div class="ask-call" data-testid="ask-call" data-tool=call.name.clone() data-failed=call.failed().to_string()>
            <div class="ask-call-head"><code>{call.name.clone()}</code></div>
            {diff_view}
            {listing}
            {tests}
            {result}
        </div>
    }
}

/// What a repair changed from the attempt before.
#[component]
fn DiffView(lines: Vec<DiffLine>) -> impl IntoView {
    view! {
        <details class="ask-diff" open>
            <summary>"Changed from the previous attempt"</summary>
            <pre data-testid="ask-diff">
                {lines
                    .into_iter()
                    .map(|line| {
                        let (class, text) = match line {
                            DiffLine::Same(text) => ("diff-same", format!("  {text}\n")),
                            DiffLine::Removed(text) => ("diff-removed", format!("- {text}\n")),
                            DiffLine::Added(text) => ("diff-added", format!("+ {text}\n")),
                            DiffLine::Folded(count) => ("diff-folded", format!("  … {count} unchanged line(s)\n")),
                        };
                        view! { <span class=class>{text}</span> }.into_any()
                    })
                    .collect_view()}
            </pre>
        </details>
    }
}
