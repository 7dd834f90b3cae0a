//! The runs on the page, newest at the top, in groups of [`GROUP_RUNS`].

use leptos::prelude::*;

use super::run_view::RunView;
use crate::app::{RunEntry, KEPT_RUNS};

/// Runs per group. A group out of view is skipped whole by the browser
/// (`content-visibility: auto` on `.run-group`, see style.css), so a frame
/// after a run walks the groups and the runs of the groups in view, not
/// every run, though a new run at the top moves every older one down.
const GROUP_RUNS: usize = 10;

/// The runs so far, oldest first in the DOM; style.css shows them newest
/// first. Unless `history` says the older runs are kept elsewhere (the
/// page's [`super::history::HistoryPanel`]), a note says they are let go.
/// `runs` are the runs as drawn (see [`crate::app::drawn::drawn`]).
#[component]
pub fn RunList(runs: ReadSignal<Vec<RunEntry>>, #[prop(optional)] history: bool) -> impl IntoView {
    // Changes only when a group starts or empties, not with every run.
    let groups = Memo::new(move |_| {
        runs.with(|runs| {
            let mut groups: Vec<usize> = runs.iter().map(|entry| group_of(entry.seq)).collect();
            groups.dedup();
            groups
        })
    });
    let full = Memo::new(move |_| !history && runs.with(|runs| runs.len() >= KEPT_RUNS as usize));
    view! {
        <section class="runs" data-testid="runs">
            <For
                each=move || groups.get()
                key=|group| *group
                children=move |group| view! { <RunGroup runs group /> }.into_any()
            />
        </section>
        <Show when=move || full.get()>
            {view! {
                <p class="run-note" data-testid="runs-capped">
                    {format!(
                        "The page keeps the latest {KEPT_RUNS} runs, as a reload would; older ones are dropped. \
                         A session's variables and files stay."
                    )}
                </p>
            }
            .into_any()}
        </Show>
    }
}

/// The runs of one group, oldest first.
#[component]
fn RunGroup(runs: ReadSignal<Vec<RunEntry>>, group: usize) -> impl IntoView {
    // Which runs, by number: a run added to or dropped from another group
    // leaves this one's list alone, so it is not diffed again.
    let members = Memo::new(move |_| {
        runs.with(|runs| {
            runs.iter()
                .map(|entry| entry.seq)
                .filter(|seq| group_of(*seq) == group)
                .collect::<Vec<_>>()
        })
    });
    let entry = move |seq: usize| {
        runs.with_untracked(|runs| runs.iter().find(|entry| entry.seq == seq).cloned())
    };
    view! {
        <div class="run-group">
            <For
                each=move || members.get()
                key=|seq| *seq
                children=move |seq| entry(seq).map(|entry| view! { <RunView entry /> }).into_any()
            />
        </div>
    }
}

/// Whether two lists hold the same runs: what [`crate::app::drawn::drawn`]
/// compares (a run's changes of phase are drawn by the run itself).
pub fn same_runs(a: &[RunEntry], b: &[RunEntry]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.seq == b.seq)
}

/// Whether the newest run is one the person started and the list does not
/// show yet: drawn at once (see [`crate::app::drawn::drawn`]).
pub fn new_run_by_person(drawn: &[RunEntry], now: &[RunEntry]) -> bool {
    now.last().is_some_and(|newest| {
        newest.by_person && drawn.last().map(|shown| shown.seq) != Some(newest.seq)
    })
}

/// Runs are grouped by submission order: a group fills up, then the next begins.
fn group_of(seq: usize) -> usize {
    seq / GROUP_RUNS
}
