//! The parts of a finished run below its output: the files it wrote and
//! how its session was restored.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::app::SharedRuntime;
use crate::format;
use crate::js::bulk::Text;
use crate::protocol::{Artifact, Restoration};
use crate::ui::download;

/// A file the run wrote: a download link when its bytes came back with the
/// result; otherwise a button that reads it from the session first.
#[component]
pub(super) fn ArtifactItem(artifact: Artifact, session: String) -> impl IntoView {
    let label = format!(
        "{} ({}, {})",
        artifact.path,
        artifact.mime,
        format::bytes(artifact.size)
    );
    match artifact.content_base64 {
        Some(content) => {
            let file_name = download::file_name(&artifact.path).to_owned();
            let href = Text::from(format!("data:{};base64,", artifact.mime)).concat(&content);
            view! {
                <li data-testid="artifact" data-path=artifact.path.clone()>
                    <a prop:href=href.to_js() download=file_name>{label}</a>
                </li>
            }
            .into_any()
        }
        None => {
            let runtime = use_context::<SharedRuntime>();
            let failed = RwSignal::new(None::<String>);
            let (path, mime) = (artifact.path.clone(), artifact.mime.clone());
            let fetch_and_save = move |_| {
                let Some(pending) =
                    runtime.map(|runtime| runtime.with_value(|r| r.read_file(&session, &path)))
                else {
                    return;
                };
                let (path, mime) = (path.clone(), mime.clone());
                spawn_local(async move {
                    let saved = match pending.await {
                        Ok(content) => download::save(&path, &mime, &content),
                        Err(error) => Err(error.to_string()),
                    };
                    failed.set(saved.err());
                });
            };
            view! {
                <li data-testid="artifact" data-path=artifact.path.clone()>
                    {label}
                    " "
                    <button data-testid="download" on:click=fetch_and_save>"Download"</button>
                    {move || failed.get().map(|e| view! { <span class="status-error">{e}</span> }.into_any())}
                </li>
            }
            .into_any()
        }
    }
}

/// Says that the sandbox restarted and what came back.
#[component]
pub(super) fn RestoredNote(restored: Restoration) -> impl IntoView {
    let lost = restored.lost.len();
    let what = if restored.before_run == Some(true) {
        "Before this run, the session's worker was started again (it had been parked to make room, or had ended)"
    } else {
        "The sandbox restarted"
    };
    let text = if lost == 0 && restored.replayed == 0 {
        format!("{what}; the session had no earlier runs to replay.")
    } else if lost == 0 {
        format!(
            "{what}; session state was restored by replaying {} earlier run(s).",
            restored.replayed
        )
    } else {
        format!(
            "{what}; {} earlier run(s) replayed, {lost} could not be restored.",
            restored.replayed
        )
    };
    view! {
        <div class="restored" data-testid="restored" data-replayed=restored.replayed.to_string() data-lost=lost.to_string()>
            {text}
            <ul>
                {restored
                    .lost
                    .into_iter()
                    .map(|run| view! { <li>{format!("{}: {} ({})", run.session, run.code_start, run.reason)}</li> }.into_any())
                    .collect_view()}
            </ul>
        </div>
    }
}
