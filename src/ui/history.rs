//! The run history kept in this browser, beyond the runs the page shows:
//! browsed a page at a time, newest first, each run one line that opens
//! into the run as the page shows it.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::run_view::RunView;
use crate::app::drawn::drawn;
use crate::app::{KEPT_RUNS, STORED_RUNS};
use crate::store::records::{StoredOutcome, StoredRun};
use crate::store::workspace::{earlier_entry, Persistence};

/// Runs read from the history per page.
const PAGE_RUNS: u32 = 100;

/// Says how many runs this browser keeps beyond those shown, and lets the
/// person browse them.
#[component]
pub fn HistoryPanel(persistence: Persistence) -> impl IntoView {
    let open = RwSignal::new(false);
    // Runs read so far, newest first, with their keys; and how many are older.
    let read = RwSignal::new(Vec::<(f64, StoredRun)>::new());
    let older = RwSignal::new(None::<u32>);
    let failed = RwSignal::new(None::<String>);
    let loading = RwSignal::new(false);
    // As drawn: the count follows a model's calls in quick succession ten times a second.
    let stored = drawn(persistence.stored_runs(), PartialEq::eq, |_, _| false);
    let more = move || {
        if loading.get_untracked() {
            return;
        }
        loading.set(true);
        let before = read.with_untracked(|runs| runs.last().map(|(key, _)| *key));
        spawn_local(async move {
            match persistence.history_page(before, PAGE_RUNS).await {
                Ok(page) => {
                    read.update(|runs| runs.extend(page.runs));
                    older.set(Some(page.older));
                    failed.set(None);
                }
                Err(error) => failed.set(Some(error.to_string())),
            }
            loading.set(false);
        });
    };
    let toggle = move |_| {
        open.update(|open| *open = !*open);
        if open.get_untracked() && older.get_untracked().is_none() {
            more();
        }
    };
    let lines = move || {
        read.with(|runs| {
            runs.iter()
                .map(|(key, run)| history_item(*key, run.clone()).into_any())
                .collect_view()
        })
    };
    let older_button = move || {
        let count = older.get().unwrap_or(0).min(PAGE_RUNS);
        (count > 0).then(|| {
            view! {
                <button type="button" data-testid="history-older" prop:disabled=move || loading.get() on:click=move |_| more()>
                    {format!("Show {count} older runs")}
                </button>
            }.into_any()
        })
    };
    view! {
        <section class="history" data-testid="history" hidden=move || stored.get() <= KEPT_RUNS>
            <p class="run-note" data-testid="runs-capped">
                {move || {
                    format!(
                        "The page shows the latest {KEPT_RUNS} runs; this browser keeps {} (up to {STORED_RUNS}). ",
                        stored.get(),
                    )
                }}
                <button
                    type="button"
                    class="disclosure"
                    data-testid="history-toggle"
                    aria-expanded=move || open.get().to_string()
                    on:click=toggle
                >
                    "Browse them"
                </button>
            </p>
            <div hidden=move || !open.get()>
                <ol class="history-list" data-testid="history-list" aria-label="Runs kept in this browser, newest first">
                    {move || lines()}
                </ol>
                {move || failed.get().map(|why| view! { <p class="status-error">{format!("Could not read the history: {why}")}</p> }.into_any())}
                {move || older_button()}
            </div>
        </section>
    }
}

/// One run of the history: a line, opened into the run as the page shows it.
fn history_item(key: f64, run: StoredRun) -> impl IntoView {
    let open = RwSignal::new(false);
    let status = match &run.outcome {
        StoredOutcome::Finished(result) => result.status.wire_name(),
        StoredOutcome::Failed(_) => "failed",
    };
    let line = format!(
        "{} · {status} · {}",
        run.session,
        run.code.lines().next().unwrap_or_default()
    );
    let stored = StoredValue::new(run);
    // Numbered from the top of the range down: never the id of a run on the page.
    let shown = move || {
        open.get().then(|| {
            view! { <RunView entry=earlier_entry(usize::MAX - key as usize, stored.get_value()) /> }
        })
    };
    view! {
        <li data-testid="history-run" data-status=status>
            <button
                type="button"
                class="disclosure history-line"
                aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|open| *open = !*open)
            >
                {line}
            </button>
            {move || shown()}
        </li>
    }
}
