//! Files in: attach by drag-and-drop or a picker (sent with the next run).
//! Files out: the session's working directory as the last run left it, as a
//! tree, each file with its size, a preview, a download, Delete (a run of
//! its own, so it is in the history and replayed like any run) and whether
//! it is kept across reloads.

use base64::prelude::{Engine as _, BASE64_STANDARD};
use leptos::ev::DragEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, FileList, HtmlInputElement};

use super::download;
use super::file_preview::{FilePreview, Preview};
use crate::format;
use crate::protocol::InputFile;
use crate::store::file_keeper::FileKeeper;
use crate::store::kept_files::{Keeping, KeptFile};

/// Attached files waiting for the next run, and the session's files.
#[component]
pub fn FilesPanel<D>(
    attached: RwSignal<Vec<InputFile>>,
    files: FileKeeper,
    session: RwSignal<String>,
    on_delete: D,
) -> impl IntoView
where
    D: Fn(String) + Copy + Send + Sync + 'static,
{
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
                            .into_any()
                        })
                        .collect_view()
                }}
            </ul>
            {move || error.get().map(|e| view! { <div class="status-error" data-testid="file-error">{e}</div> }.into_any())}
            <details class="session-files" open>
                <summary>"Session files"</summary>
                {move || files.restore_failure().map(|e| view! { <div class="status-error" data-testid="restore-failure">{e}</div> }.into_any())}
                <ul class="file-tree" data-testid="session-files">
                    {move || {
                        let name = session.get();
                        let rows = file_tree(files.files(&name));
                        if rows.is_empty() {
                            return view! { <li class="file-empty">"None yet: files the code writes show up here."</li> }.into_any();
                        }
                        rows.into_iter()
                            .map(|row| match row {
                                TreeRow::Dir { depth, name } => view! {
                                    <li class="file-dir" style:padding-left=indent(depth)>{format!("{name}/")}</li>
                                }
                                .into_any(),
                                TreeRow::File { depth, file } => view! {
                                    <SessionFile file depth session=name.clone() files on_delete />
                                }
                                .into_any(),
                            })
                            .collect_view()
                            .into_any()
                    }}
                </ul>
            </details>
        </section>
    }
}

/// A row of the file tree: a directory, or a file under the directories above it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TreeRow {
    Dir { depth: usize, name: String },
    File { depth: usize, file: KeptFile },
}

/// The session's files (in path order) as a tree: each directory once,
/// before the files and directories inside it.
fn file_tree(files: Vec<KeptFile>) -> Vec<TreeRow> {
    let mut rows = Vec::new();
    let mut open: Vec<String> = Vec::new();
    for file in files {
        let dirs: Vec<String> = file
            .path
            .split('/')
            .rev()
            .skip(1)
            .map(str::to_owned)
            .collect();
        let dirs: Vec<String> = dirs.into_iter().rev().collect();
        let shared = open.iter().zip(&dirs).take_while(|(a, b)| a == b).count();
        open.truncate(shared);
        for name in &dirs[shared..] {
            rows.push(TreeRow::Dir {
                depth: open.len(),
                name: name.clone(),
            });
            open.push(name.clone());
        }
        rows.push(TreeRow::File {
            depth: open.len(),
            file,
        });
    }
    rows
}

/// The indent of a tree row `depth` levels down.
fn indent(depth: usize) -> String {
    format!("{}rem", depth as f64 * 1.25)
}

/// Python that deletes `path` from the session's working directory.
fn delete_code(path: &str) -> String {
    let mut literal = String::from("\"");
    for c in path.chars() {
        match c {
            '"' | '\\' => {
                literal.push('\\');
                literal.push(c);
            }
            c if c.is_control() => literal.push_str(&format!("\\U{:08x}", u32::from(c))),
            c => literal.push(c),
        }
    }
    literal.push('"');
    format!("import os\nos.remove({literal})\n")
}

/// One file of the session: its size, a preview, a download, Delete, and
/// whether it survives a reload.
#[component]
fn SessionFile<D>(
    file: KeptFile,
    depth: usize,
    session: String,
    files: FileKeeper,
    on_delete: D,
) -> impl IntoView
where
    D: Fn(String) + Copy + Send + Sync + 'static,
{
    let failed = RwSignal::new(None::<String>);
    let preview = RwSignal::new(None::<Preview>);
    let previewing = RwSignal::new(false);
    let confirming = RwSignal::new(false);
    let (state, note) = match &file.keeping {
        Keeping::Saving => ("saving", None),
        Keeping::Kept => ("kept", None),
        Keeping::NotKept(why) => ("not-kept", Some(format!("not kept across reloads: {why}"))),
        Keeping::Lost(why) => (
            "lost",
            Some(format!("not kept from the earlier visit: {why}")),
        ),
    };
    let name = file
        .path
        .rsplit('/')
        .next()
        .unwrap_or(&file.path)
        .to_owned();
    let label = format!("{name} ({})", format::bytes(file.size));
    let path = file.path.clone();
    let gone = matches!(file.keeping, Keeping::Lost(_));
    let (download_file, download_session) = (file.clone(), session.clone());
    let fetch_and_save = move |_| {
        let (file, session) = (download_file.clone(), download_session.clone());
        spawn_local(async move {
            let saved = match files.content(session, file.clone()).await {
                Ok(content) => download::save(&file.path, "application/octet-stream", &content),
                Err(error) => Err(error),
            };
            failed.set(saved.err());
        });
    };
    let toggle_preview = move |_| {
        previewing.update(|open| *open = !*open);
        if !previewing.get_untracked() || preview.with_untracked(Option::is_some) {
            return;
        }
        let (file, session) = (file.clone(), session.clone());
        spawn_local(async move {
            match files
                .content(session, file.clone())
                .await
                .and_then(|c| Preview::of(&file.path, &c))
            {
                Ok(found) => preview.set(Some(found)),
                Err(error) => failed.set(Some(error)),
            }
        });
    };
    let delete_path = path.clone();
    view! {
        <li class="session-file" data-testid="session-file" data-path=path data-keeping=state style:padding-left=indent(depth)>
            {label}
            {(!gone).then(|| view! {
                " "
                <button
                    class="file-download"
                    data-testid="preview-file"
                    aria-expanded=move || previewing.get().to_string()
                    on:click=toggle_preview
                >
                    "Preview"
                </button>
                " "
                <button class="file-download" data-testid="download-file" on:click=fetch_and_save>
                    "Download"
                </button>
                " "
                <button
                    class="file-download"
                    data-testid="delete-file"
                    title="Deletes it with a run of its own"
                    on:click=move |_| confirming.set(true)
                >
                    "Delete"
                </button>
                <Show when=move || confirming.get()>
                    {view! {
                        <span class="confirm" data-testid="confirm-delete-file">
                            <span role="alert">{format!(" Delete {}? ", delete_path)}</span>
                            <button data-testid="confirm-delete" on:click={
                                let path = delete_path.clone();
                                move |_| {
                                    // After this handler: the run changes the list this row is in.
                                    let code = delete_code(&path);
                                    request_animation_frame(move || on_delete(code));
                                    confirming.set(false);
                                }
                            }>"Delete"</button>
                            <button on:click=move |_| confirming.set(false)>"Cancel"</button>
                        </span>
                    }
                    .into_any()}
                </Show>
            }.into_any())}
            {note.map(|note| view! { " " <span class="file-note" data-testid="file-note">{note}</span> }.into_any())}
            {move || failed.get().map(|e| view! { " " <span class="status-error">{e}</span> }.into_any())}
            {move || previewing.get().then(|| preview.get().map(|preview| view! { <FilePreview preview /> })).flatten()}
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

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str) -> KeptFile {
        KeptFile::kept(path, 1)
    }

    #[test]
    fn the_tree_opens_each_directory_once() {
        let rows = file_tree(
            [
                "a.txt",
                "data/in/x.csv",
                "data/in/y.csv",
                "data/out.txt",
                "z.txt",
            ]
            .map(file)
            .into(),
        );
        let shown: Vec<String> = rows
            .iter()
            .map(|row| match row {
                TreeRow::Dir { depth, name } => format!("{depth}:{name}/"),
                TreeRow::File { depth, file } => format!("{depth}:{}", file.path),
            })
            .collect();
        assert_eq!(
            shown,
            [
                "0:a.txt",
                "0:data/",
                "1:in/",
                "2:data/in/x.csv",
                "2:data/in/y.csv",
                "1:data/out.txt",
                "0:z.txt"
            ]
        );
    }

    #[test]
    fn delete_code_quotes_any_path() {
        assert_eq!(delete_code("a.txt"), "import os\nos.remove(\"a.txt\")\n");
        assert_eq!(
            delete_code("say \"hi\"\\x"),
            "import os\nos.remove(\"say \\\"hi\\\"\\\\x\")\n"
        );
        assert_eq!(
            delete_code("a\nb"),
            "import os\nos.remove(\"a\\U0000000ab\")\n"
        );
    }
}
