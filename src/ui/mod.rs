//! The page: sessions, an editor, the runs so far, and a status line.
//!
//! Components only wire signals to the runtime client; they never see the
//! worker, the service worker or IndexedDB.
//!
//! Views that vary (list rows, optional and branch views, `<Show>`'s
//! children) are `.into_any()`, reactive parts are closures written inside
//! the view, and values in attributes are strings: each distinct view or
//! value type brings its own copy of Leptos's view code to the wasm
//! (docs/building.md, "Size").

mod agent_access;
mod ask;
mod download;
mod editor;
mod examples;
mod file_preview;
mod files;
mod history;
mod model_settings;
mod rich;
mod run_list;
mod run_view;
mod save_state;
mod sessions;
mod settings;
mod status_line;
pub(crate) mod theme;
mod update;
mod widget;

pub use save_state::SaveState;
pub use widget::{is_widget_page, Widget};

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::app::assist::Assist;
use crate::app::drawn::drawn;
use crate::app::launch::launch;
use crate::app::{start_runtime, EditorCode, RunEntry, RunPhase};
use crate::editing::marks;
use crate::protocol::{InputFile, RunStatus, DEFAULT_SESSION, DEFAULT_TIMEOUT_MS};
use crate::runtime::RuntimeStatus;
use crate::store::workspace::{PageState, Persistence};
use crate::surfaces::agents;
use crate::surfaces::ask::Ask;
use crate::surfaces::tool_host::ToolHost;
use crate::tools::{RunPythonArgs, ToolFile};
use ask::AskPanel;
use editor::{Editor, RunMark};
use examples::{Example, ExamplesMenu};
use files::FilesPanel;
use history::HistoryPanel;
use run_list::{new_run_by_person, same_runs, RunList};
use sessions::SessionBar;
use settings::Settings;
use status_line::{Activity, StatusLine};
use theme::ThemeSwitch;
use update::{watch_pwa, InstallButton, UpdatePrompt};

/// Code shown on first load, so the Run button does something useful at once.
const EXAMPLE: &str =
    "import sys\nprint(f\"Hello from Python {sys.version.split()[0]}\")\nsum(range(10))\n";

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    let (status, runtime) = start_runtime();
    let code = RwSignal::new(EXAMPLE.to_owned());
    let cursor = RwSignal::new(0);
    let timeout_s = RwSignal::new(f64::from(DEFAULT_TIMEOUT_MS) / 1000.0);
    let session = RwSignal::new(DEFAULT_SESSION.to_owned());
    // Packages to preload, per session: every run of that session asks for them.
    // A sorted vector (LiteMap) as the workspace's drafts are: a HashMap or a
    // BTreeMap would add their own hashing, table or tree code to the wasm.
    let session_packages = RwSignal::new(litemap::LiteMap::<String, String>::new());
    let packages = Signal::derive(move || {
        session_packages.with(|all| session.with(|s| all.get(s).cloned().unwrap_or_default()))
    });
    let set_packages = move |text: String| {
        session_packages.update(|all| {
            all.insert(session.get_untracked(), text);
        })
    };
    let names = RwSignal::new(vec![DEFAULT_SESSION.to_owned()]);
    let runs = RwSignal::new(Vec::<RunEntry>::new());
    let attached = RwSignal::new(Vec::new());
    let persistence = Persistence::start(
        PageState {
            code,
            cursor,
            session,
            names,
            runs,
        },
        runtime,
    );
    let files = persistence.files();
    let pwa = watch_pwa(status, runs);
    let host = ToolHost {
        runtime,
        runs,
        shown: true,
        persistence: Some(persistence),
    };
    let offer = agents::offer_tools(host);
    let relay = offer.relay;
    // The Ask panel's model: its settings and key from this browser, or the deployment's preset.
    let saved_model = crate::store::model_settings::load();
    let model_known = saved_model.is_some();
    let ask = Ask::start(
        host,
        saved_model.unwrap_or_default(),
        crate::store::model_settings::load_key(),
    );
    provide_context(ask);
    let model_refused = RwSignal::new(None::<String>);
    model_settings::apply_deployment_preset(ask, model_known, model_refused);
    // Why the last Run click did not start a run, if it did not.
    let notice = RwSignal::new(None::<String>);
    // How the latest run of the editor's code ended, for the editor to mark.
    let last_run = RwSignal::new(None::<RunMark>);

    // Runs `source` in the current session, with `files` sent along;
    // `from_editor`: the editor's code, whose error the editor marks.
    let start_run = move |source: String, files: Vec<InputFile>, from_editor: bool| {
        let args = RunPythonArgs {
            code: source,
            session: Some(session.get_untracked()),
            timeout_seconds: Some(timeout_s.get_untracked().max(0.0)),
            files: files.into_iter().map(ToolFile::from).collect(),
            packages: package_list(&packages.get_untracked()),
            ..RunPythonArgs::default()
        };
        let request = match args.into_request() {
            Ok(request) => request,
            Err(reason) => {
                notice.set(Some(reason));
                return;
            }
        };
        notice.set(None);
        let (entry, finished) = launch(runtime, runs, request, true, true, |_| {});
        run_view::reveal_run(entry.seq);
        spawn_local(async move {
            finished.await;
            persistence.record_run(&entry);
            if from_editor {
                last_run.set(Some((entry.session.get_value(), run_mark(&entry))));
            }
        });
    };
    let submit = move || {
        let files = attached.try_update(std::mem::take).unwrap_or_default();
        start_run(code.get_untracked(), files, true);
    };
    let delete_file = move |source: String| start_run(source, Vec::new(), false);

    // Stop the running run, or else the oldest queued one: the picked
    // session's first (sessions run side by side), then any session's.
    let stop = move || {
        let picked = session.get_untracked();
        let target = runs.with_untracked(|runs| {
            let active = |e: &&RunEntry| e.phase.with_untracked(RunPhase::is_active);
            let running =
                |e: &&RunEntry| matches!(e.phase.get_untracked(), RunPhase::Running { .. });
            let here = |e: &&RunEntry| e.session.with_value(|name| *name == picked);
            let first = |wanted: &dyn Fn(&&RunEntry) -> bool| runs.iter().find(|e| wanted(e));
            first(&|e| here(e) && running(e))
                .or_else(|| first(&|e| here(e) && active(e)))
                .or_else(|| first(&running))
                .or_else(|| first(&active))
                .map(|e| e.id)
        });
        if let Some(id) = target {
            runtime.with_value(|runtime| runtime.cancel(id));
        }
    };
    let editor = EditorCode {
        code,
        session,
        names,
    };
    // Runs' fixes go into the editor of the session they ran in.
    provide_context(editor);
    // An example opens in its own session: a new one gets the example's
    // code, one opened before keeps its edits.
    let open_example = move |example: &'static Example| {
        let name = example.slug.to_owned();
        let new = names.with_untracked(|n| !n.contains(&name));
        editor.open(name, new.then(|| example.code.to_owned()));
    };
    // The runs and the status line follow what is drawn, at most ten times a second.
    let drawn_runs = drawn(
        runs.read_only(),
        |a, b| same_runs(a, b),
        |a, b| new_run_by_person(a, b),
    );
    let activity = Activity::watch(drawn_runs);
    let can_stop = Signal::derive(move || activity.with(|a| a.active));
    // Python is asked about the code only when no run waits for it.
    let busy = Signal::derive(move || {
        !status.with(|s| matches!(s, RuntimeStatus::Ready { .. })) || activity.with(|a| a.active)
    });
    let assist = Assist::new(runtime, busy);
    // The code editor's bundle loads once Python's start is over and no run
    // is under way, so that on a first visit it does not compete with them.
    let editor_may_load = Signal::derive(move || {
        status.with(RuntimeStatus::start_over) && !activity.with(|a| a.active)
    });
    let on_edit = move |session: String, text: Option<String>, at: u32| {
        persistence.edited(&session, text, at)
    };
    // Esc stops a run, unless something focused used it (closing a menu or a search).
    let _esc = window_event_listener(leptos::ev::keydown, move |event| {
        if event.key() == "Escape" && !event.default_prevented() && can_stop.get_untracked() {
            stop();
        }
    });

    view! {
        <main class="app">
            <header class="app-header">
                <h1>"Sandpit"</h1>
                <span class="tagline">"Python in your browser, nothing leaves the page"</span>
                {move || {
                    relay
                        .get()
                        .map(|relay| {
                            view! {
                                <span
                                    class="relay"
                                    data-testid="relay-state"
                                    data-state=relay.state.clone()
                                    title=relay.detail.clone()
                                >
                                    {format!("Desktop MCP relay: {}", relay.state)}
                                </span>
                            }
                            .into_any()
                        })
                }}
                <InstallButton pwa />
                <ThemeSwitch />
                <Settings pwa web_mcp=offer.web_mcp model_refused />
            </header>
            <UpdatePrompt pwa />
            // The editor appears once the saved work is back, so nothing typed is overwritten.
            <Show when=move || persistence.restored()>
                {view! {
                    <div class="toolbar">
                        <ExamplesMenu on_pick=open_example />
                        <SessionBar runtime session names files />
                    </div>
                    <div class="workbench">
                        <Editor
                            code
                            cursor
                            session
                            names
                            last_run
                            assist
                            on_edit
                            timeout_s
                            packages
                            set_packages
                            on_run=submit
                            on_stop=stop
                            can_stop
                            may_load=editor_may_load
                        />
                        <AskPanel session code />
                    </div>
                    <Show when=move || notice.with(Option::is_some)>
                        {view! {
                            <p class="notice status-error" data-testid="run-notice">
                                {move || notice.get()}
                            </p>
                        }
                        .into_any()}
                    </Show>
                    <FilesPanel attached files session on_delete=delete_file />
                    <SaveState persistence />
                    <StatusLine status activity />
                    <RunList runs=drawn_runs history=true />
                    <HistoryPanel persistence />
                }
                .into_any()}
            </Show>
        </main>
    }
}

/// The mark for the error `entry`'s run ended with, if it failed in the code.
fn run_mark(entry: &RunEntry) -> Option<marks::Mark> {
    entry.phase.with_untracked(|phase| match phase {
        RunPhase::Finished(result) if result.status == RunStatus::Error => {
            result.error.as_ref().and_then(marks::from_run_error)
        }
        _ => None,
    })
}

/// `"sympy, tabulate"` -> `["sympy", "tabulate"]`.
fn package_list(text: &str) -> Vec<String> {
    text.split([',', ' '])
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}
