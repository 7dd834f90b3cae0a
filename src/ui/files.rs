//! Files in: attach by drag-and-drop or a picker (sent with the next run).
//! Files out: the session's working directory as the last run left it, each
//! file with a download and whether it is kept across reloads.

use base64::prelude::{Engine as _, BASE64_STANDARD};
use leptos::ev::DragEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, FileList, HtmlInputElement};

use super::download;
use crate::format;
use crate::protocol::InputFile;
use crate::store::file_keeper::FileKeeper;
use crate::store::kept_files::{Keeping, KeptFile};

/// Attached files waiting for the next run, and the session's files.
#[component]
pub fn FilesPanel(
    attached: RwSignal<Vec<InputFile>>,
    files: FileKeeper,
    session: RwSignal<String>,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let add_files = move |list: Option<FileList>| {
        let Some(list) = list else { return };
        let files: Vec<File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        spawn_local(async move {
            for file in files {
                match read_file(&file).await {
                    Ok(input) => attached.update(|a| {
                        a.retain(|f| f.path != input.path);
                        a.push(input);
                    }),
                    Err(message) => error.set(Some(message)),
                }
            }
        });
    };
    let on_drop = move |event: DragEvent| {
        event.prevent_default();
        add_files(event.data_transfer().and_then(|d| d.files()));
    };
    let on_pick = move |event: leptos::ev::Event| {
        let input = event
            .target()
            .and_then(|t| t.dyn_into::<HtmlInputElement>().ok());
        add_files(input.as_ref().and_then(HtmlInputElement::files));
        if let Some(input) = input {
            input.set_value("");
        }
    };

    view! {
        <section
            class="files"
            data-testid="drop-zone"
            on:dragover=move |event: DragEvent| event.prevent_default()
            on:drop=on_drop
        >
            <label class="file-pick">
                "Attach files "
                <input data-testid="file-input" type="file" multiple on:change=on_pick />
            </label>
            <span class="hint">"or drop them here; they go to the session's working directory with the next run"</span>
            <ul class="attached" data-testid="attached">
                {move || {
                    attached
                        .get()
                        .into_iter()
                        .map(|file| {
                            let path = file.path.clone();
                            view! {
                                <li>
                                    {format!("{} ({})", file.path, format::bytes(file.size()))}
                                    " "
                                    <button
                                        class="link-button"
                                        title="Remove"
                                        on:click=move |_| attached.update(|a| a.retain(|f| f.path != path))
                                    >
                                        "×"
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
            {move || error.get().map(|e| view! { <div class="status-error" data-testid="file-error">{e}</div> })}
            <details class="session-files" open>
                <summary>"Session files"</summary>
                {move || files.restore_failure().map(|e| view! { <div class="status-error" data-testid="restore-failure">{e}</div> })}
                <ul data-testid="session-files">
                    {move || {
                        let name = session.get();
                        files
                            .files(&name)
                            .into_iter()
                            .map(|file| view! { <SessionFile file session=name.clone() files /> })
                            .collect_view()
                    }}
                </ul>
            </details>
        </section>
    }
}

/// One file of the session: its size, a download, and whether it survives a reload.
#[component]
fn SessionFile(file: KeptFile, session: String, files: FileKeeper) -> impl IntoView {
    let failed = RwSignal::new(None::<String>);
    let (state, note) = match &file.keeping {
        Keeping::Saving => ("saving", None),
        Keeping::Kept => ("kept", None),
        Keeping::NotKept(why) => ("not-kept", Some(format!("not kept across reloads: {why}"))),
        Keeping::Lost(why) => (
            "lost",
            Some(format!("not kept from the earlier visit: {why}")),
        ),
    };
    let label = format!("{} ({})", file.path, format::bytes(file.size));
    let path = file.path.clone();
    let gone = matches!(file.keeping, Keeping::Lost(_));
    let fetch_and_save = move |_| {
        let (file, session) = (file.clone(), session.clone());
        spawn_local(async move {
            let saved = match files.content(session, file.clone()).await {
                Ok(content) => download::save(&file.path, "application/octet-stream", &content),
                Err(error) => Err(error),
            };
            failed.set(saved.err());
        });
    };
    view! {
        <li data-testid="session-file" data-path=path data-keeping=state>
            {label}
            {(!gone).then(|| view! {
                " "
                <button class="file-download" data-testid="download-file" on:click=fetch_and_save>
                    "Download"
                </button>
            })}
            {note.map(|note| view! { " " <span class="file-note" data-testid="file-note">{note}</span> })}
            {move || failed.get().map(|e| view! { " " <span class="status-error">{e}</span> })}
        </li>
    }
}

/// A picked or dropped file as a run's input file.
async fn read_file(file: &File) -> Result<InputFile, String> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| format!("could not read {}", file.name()))?;
    let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
    Ok(InputFile {
        path: file.name(),
        content_base64: BASE64_STANDARD.encode(bytes),
    })
}
