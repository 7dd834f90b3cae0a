//! The runs on the page, newest at the top, in groups of [`GROUP_RUNS`].

use std::time::Duration;

use leptos::prelude::*;

use super::run_view::RunView;
use crate::app::{RunEntry, KEPT_RUNS};
use crate::runtime::now_ms;

/// Runs per group. A group out of view is skipped whole by the browser
/// (`content-visibility: auto` on `.run-group`, see style.css), so a frame
/// after a run walks the groups and the runs of the groups in view, not
/// every run, though a new run at the top moves every older one down.
const GROUP_RUNS: usize = 10;

/// The runs so far, oldest first in the DOM; style.css shows them newest
/// first. Unless `history` says the older runs are kept elsewhere (the
/// page's [`super::history::HistoryPanel`]), a note says they are let go.
/// `runs` are the runs as drawn (see [`drawn`]).
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

/// `runs` as the list draws them, brought up to date at most once per
/// `every_ms` (and never within the task that changed them): runs that a
/// caller's calls in quick succession start and end in between are drawn
/// once, as they are by then, rather than queued, then running, then
/// finished, and no reply waits for a run to be drawn. A timer, not an
/// animation frame, so that a frame the browser does not render (out of
/// view, hidden) still keeps its list up to date.
pub fn drawn(runs: RwSignal<Vec<RunEntry>>, every_ms: u32) -> ReadSignal<Vec<RunEntry>> {
    let (drawn, set_drawn) = signal(runs.get_untracked());
    let due = StoredValue::new(false);
    let last_ms = StoredValue::new(f64::NEG_INFINITY);
    Effect::new(move |_| {
        runs.track();
        if due.get_value() {
            return;
        }
        due.set_value(true);
        let wait_ms = last_ms.get_value() + f64::from(every_ms) - now_ms();
        let draw = move || {
            // The list may be gone by then.
            if due.try_set_value(false).is_none() {
                last_ms.set_value(now_ms());
                if let Some(now) = runs.try_get_untracked() {
                    set_drawn.try_set(now);
                }
            }
        };
        // Whole milliseconds, never below zero (`as` saturates).
        set_timeout(draw, Duration::from_millis(wait_ms as u64));
    });
    drawn
}

/// Runs are grouped by submission order: a group fills up, then the next begins.
fn group_of(seq: usize) -> usize {
    seq / GROUP_RUNS
}
