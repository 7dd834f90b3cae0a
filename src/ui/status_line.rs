//! The status line: loading progress, readiness, the running run's clock, the last duration.

use std::time::Duration;

use leptos::prelude::*;

use super::{now_ms, RunEntry, RunPhase};
use crate::format;
use crate::protocol::LoadProgress;
use crate::runtime::RuntimeStatus;

/// How often the running clock updates.
const TICK: Duration = Duration::from_millis(100);

/// Shows what the runtime and the latest runs are doing.
#[component]
pub fn StatusLine(status: RwSignal<RuntimeStatus>, runs: RwSignal<Vec<RunEntry>>) -> impl IntoView {
    // Memos: the line reacts to what it shows, not to every change of every
    // run, and reads phases in place (a finished phase holds a whole result).
    let running = Memo::new(move |_| {
        runs.with(|runs| {
            runs.iter().find_map(|entry| {
                entry.phase.with(|phase| match phase {
                    RunPhase::Running { started_ms } => Some(*started_ms),
                    _ => None,
                })
            })
        })
    });
    let queued = Memo::new(move |_| {
        runs.with(|runs| {
            runs.iter()
                .filter(|entry| entry.phase.with(|phase| matches!(phase, RunPhase::Queued)))
                .count()
        })
    });
    let last_duration = Memo::new(move |_| {
        runs.with(|runs| {
            runs.iter().rev().find_map(|entry| {
                entry.phase.with(|phase| match phase {
                    RunPhase::Finished(result) => Some(result.duration_ms),
                    _ => None,
                })
            })
        })
    });
    // The clock ticks only while a run is running: an idle page draws nothing.
    let now = RwSignal::new(now_ms());
    let tick = move || {
        if running.with_untracked(Option::is_some) {
            now.set(now_ms());
        }
    };
    if let Ok(handle) = set_interval_with_handle(tick, TICK) {
        on_cleanup(move || handle.clear());
    }

    let runtime_view = move || match status.get() {
        RuntimeStatus::Loading(LoadProgress {
            stage,
            loaded,
            total,
        }) => view! {
            <span data-testid="runtime-state" data-state="loading">
                {format::loading(stage, loaded, total)}
            </span>
            <progress
                data-testid="load-progress"
                max=total.unwrap_or(0)
                value=loaded
            ></progress>
        }
        .into_any(),
        RuntimeStatus::Securing => view! {
            <span data-testid="runtime-state" data-state="securing">
                "Setting up the sandbox's protections (first visit to this site)"
            </span>
        }
        .into_any(),
        RuntimeStatus::Ready {
            python,
            pyodide,
            interrupts,
            snapshot,
        } => view! {
            <span
                data-testid="runtime-state"
                data-state="ready"
                data-interrupts=interrupts.to_string()
                data-snapshot=snapshot.status()
                title=format!(
                    "{}. {}",
                    if interrupts {
                        "Runs are stopped by interrupt: session state is kept"
                    } else {
                        "Runs are stopped by restarting Python: session state is replayed"
                    },
                    format::snapshot_use(&snapshot),
                )
            >
                {format!("Ready: Python {python} (Pyodide {pyodide})")}
            </span>
        }
        .into_any(),
        RuntimeStatus::Failed { message } => view! {
            <span data-testid="runtime-state" data-state="failed" class="status-error">
                {message}
            </span>
        }
        .into_any(),
    };
    let run_view = move || {
        let waiting = queued.get();
        let waiting = (waiting > 0).then(|| format!("{waiting} queued"));
        let activity = match running.get() {
            Some(started) => Some(format!(
                "Running {}",
                format::duration_ms((now.get() - started).max(0.0))
            )),
            None => last_duration
                .get()
                .map(|ms| format!("Last run took {}", format::duration_ms(ms))),
        };
        [activity, waiting]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" · ")
    };
    view! {
        <div class="status-line" role="status">
            {runtime_view}
            <span data-testid="run-state">{run_view}</span>
        </div>
    }
}
