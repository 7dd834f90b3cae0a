//! The status line: loading progress, readiness, the running run's clock, the last duration.

use std::time::Duration;

use leptos::prelude::*;

use crate::app::{RunEntry, RunPhase, SessionStates};
use crate::format;
use crate::protocol::{LoadProgress, LoadStage, SnapshotUse};
use crate::runtime::supervisor::{SessionPhase, SessionState};
use crate::runtime::{now_ms, RuntimeStatus};

/// How often the running clock updates.
const TICK: Duration = Duration::from_millis(100);

/// What the runs are doing, found in one pass over the list: what the
/// status line shows, and whether Stop has anything to stop.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Activity {
    /// When the running run started (page clock), if one is running.
    pub running: Option<f64>,
    /// Runs waiting for Python or for the run before them.
    pub queued: usize,
    /// Whether any run may still be stopped.
    pub active: bool,
    /// How long the latest finished run took.
    pub last_duration: Option<f64>,
}

impl Activity {
    /// Follows `runs`. Only runs that have not ended are subscribed to: an
    /// ended run's phase never changes again, and subscribing to the whole
    /// history would make every change of any run re-read all of it.
    pub fn watch(runs: ReadSignal<Vec<RunEntry>>) -> Memo<Self> {
        Memo::new(move |_| runs.with(|runs| Self::of(runs)))
    }

    fn of(runs: &[RunEntry]) -> Self {
        let mut activity = Self::default();
        for entry in runs {
            // Read in place: a finished phase holds a whole result.
            let note = |phase: &RunPhase| {
                activity.active |= phase.is_active();
                match phase {
                    RunPhase::Running { started_ms } => {
                        activity.running.get_or_insert(*started_ms);
                    }
                    RunPhase::Queued => activity.queued += 1,
                    RunPhase::Finished(result) => activity.last_duration = Some(result.duration_ms),
                    RunPhase::LoadingPackages { .. } | RunPhase::Failed(_) => {}
                }
            };
            if entry.phase.with_untracked(RunPhase::is_active) {
                entry.phase.with(note);
            } else {
                entry.phase.with_untracked(note);
            }
        }
        activity
    }
}

/// Shows what the runtime and the latest runs are doing.
#[component]
pub fn StatusLine(status: RwSignal<RuntimeStatus>, activity: Memo<Activity>) -> impl IntoView {
    let running = Memo::new(move |_| activity.with(|a| a.running));
    let queued = Memo::new(move |_| activity.with(|a| a.queued));
    let last_duration = Memo::new(move |_| activity.with(|a| a.last_duration));
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
                {loading(stage, loaded, total)}
            </span>
            <progress
                data-testid="load-progress"
                max=total.unwrap_or(0).to_string()
                value=loaded.to_string()
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
                data-snapshot=snapshot.wire_name()
                title=format!(
                    "{}. {}",
                    if interrupts {
                        "Runs are stopped by interrupt: session state is kept"
                    } else {
                        "Runs are stopped by restarting Python: session state is replayed"
                    },
                    snapshot_use(&snapshot),
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
    let states = use_context::<SessionStates>().map(|states| states.0);
    let sessions_view = move || states.and_then(|states| states.with(|all| sessions_summary(all)));
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
            {move || runtime_view()}
            <span data-testid="run-state">{move || run_view()}</span>
            <span data-testid="sessions-summary">{move || sessions_view()}</span>
        </div>
    }
}

/// The status line while Python loads, e.g. `"Downloading Python: 3.2 MB of 12.1 MB"`.
pub fn loading(stage: LoadStage, loaded: u64, total: Option<u64>) -> String {
    match (stage, total) {
        (LoadStage::Download, Some(total)) => {
            format!(
                "Downloading Python: {} of {}",
                format::bytes(loaded),
                format::bytes(total)
            )
        }
        (LoadStage::Download, None) => format!("Downloading Python: {}", format::bytes(loaded)),
        (LoadStage::Start, _) => "Starting the interpreter".to_owned(),
        (LoadStage::Runner, _) => "Installing the runner".to_owned(),
    }
}

/// What the sessions' workers do, when there are several: e.g.
/// `"Sessions: 2 running, 1 idle, 1 parked"`.
pub fn sessions_summary(states: &[SessionState]) -> Option<String> {
    if states.len() < 2 {
        return None;
    }
    let count =
        |phases: &[SessionPhase]| states.iter().filter(|s| phases.contains(&s.phase)).count();
    let parts = [
        (
            count(&[
                SessionPhase::Running,
                SessionPhase::Restoring,
                SessionPhase::Starting,
            ]),
            "running",
        ),
        (count(&[SessionPhase::Queued]), "waiting for a core"),
        (count(&[SessionPhase::Waiting]), "waiting for a worker"),
        (count(&[SessionPhase::Idle]), "idle"),
        (count(&[SessionPhase::Parked]), "parked"),
    ];
    let said: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    Some(format!("Sessions: {}", said.join(", ")))
}

/// How Python started, for the status line's tooltip.
pub fn snapshot_use(snapshot: &SnapshotUse) -> String {
    match snapshot {
        SnapshotUse::Used => "Python was restored from its start-up snapshot".to_owned(),
        SnapshotUse::Absent => {
            "Python started from scratch (no start-up snapshot stored yet)".to_owned()
        }
        SnapshotUse::Rejected { reason } => {
            format!(
                "Python started from scratch: the stored start-up snapshot was not used, {reason}"
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_sessions_are_summed_up_by_what_they_do() {
        let state = |name: &str, phase| SessionState {
            name: name.into(),
            phase,
            queued: 0,
            resident: phase != SessionPhase::Parked,
            why: String::new(),
        };
        assert_eq!(sessions_summary(&[state("main", SessionPhase::Idle)]), None);
        let states = [
            state("a", SessionPhase::Running),
            state("b", SessionPhase::Starting),
            state("c", SessionPhase::Parked),
            state("d", SessionPhase::Queued),
        ];
        assert_eq!(
            sessions_summary(&states).as_deref(),
            Some("Sessions: 2 running, 1 waiting for a core, 1 parked")
        );
    }

    #[test]
    fn snapshot_use_says_why_a_snapshot_was_not_used() {
        assert_eq!(
            snapshot_use(&SnapshotUse::Used),
            "Python was restored from its start-up snapshot"
        );
        let rejected = SnapshotUse::Rejected {
            reason: "its bytes do not match their sha256".into(),
        };
        assert!(snapshot_use(&rejected).ends_with("not used, its bytes do not match their sha256"));
    }

    #[test]
    fn loading_text_shows_bytes_when_downloading() {
        assert_eq!(
            loading(LoadStage::Download, 3_200_000, Some(12_100_000)),
            "Downloading Python: 3.2 MB of 12.1 MB"
        );
        assert_eq!(
            loading(LoadStage::Download, 500, None),
            "Downloading Python: 500 B"
        );
        assert_eq!(
            loading(LoadStage::Runner, 1, Some(1)),
            "Installing the runner"
        );
    }
}
