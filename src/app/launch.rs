//! Starting a run and showing it: the one path from a [`RunRequest`] to a
//! [`RunEntry`] in a run list, whoever asked (the Run button, a tool call
//! from a model, the embedding page).

use std::future::Future;

use leptos::prelude::*;

use super::{LiveBuffer, RunEntry, RunPhase, SharedRuntime, KEPT_RUNS};
use crate::protocol::RunRequest;
use crate::runtime::{now_ms, RunEvent};

/// Queues `request`, adds its entry to `runs`, and keeps the entry's phase
/// and live output up to date; `observe` also hears every event (a tool
/// call streams them to its caller). The returned future resolves once
/// the entry is final.
///
/// `by_person` says whether the person started it on this page (see
/// [`RunEntry::by_person`]). `shown` says whether `runs` is on screen. A
/// headless widget's is not: its runs' output is then not buffered for
/// drawing, which cost a timer and an animation frame request per burst of
/// output for nothing. The frame never even came: Chromium runs no
/// animation frames in a `display: none` cross-origin frame, so each such
/// run left its callback pending for as long as the widget lived.
pub fn launch(
    runtime: SharedRuntime,
    runs: RwSignal<Vec<RunEntry>>,
    request: RunRequest,
    by_person: bool,
    shown: bool,
    observe: impl Fn(&RunEvent) + 'static,
) -> (RunEntry, impl Future<Output = ()>) {
    let owner = Owner::new();
    let (entry, buffer, pending) = owner.with(|| {
        let live = RwSignal::new(Vec::new());
        let phase = RwSignal::new(RunPhase::Queued);
        let buffer = shown.then(|| LiveBuffer::new(live));
        let on_event = move |event: RunEvent| {
            observe(&event);
            match event {
                RunEvent::Packages {
                    packages,
                    loaded,
                    total,
                } => phase.set(RunPhase::LoadingPackages {
                    packages,
                    loaded,
                    total,
                }),
                RunEvent::Started => phase.set(RunPhase::Running {
                    started_ms: now_ms(),
                }),
                RunEvent::Output(chunk) => {
                    if let Some(buffer) = buffer {
                        buffer.push(chunk);
                    }
                }
                // The caller that offered the functions answers them, through `observe`.
                RunEvent::HostCall(_) | RunEvent::HostCallCancelled(..) => {}
            }
        };
        let code = StoredValue::new(request.code.clone());
        let session = StoredValue::new(request.session.clone());
        let inputs = StoredValue::new(request.files.iter().map(|f| f.path.clone()).collect());
        let (id, pending) = runtime.with_value(|runtime| runtime.run(request, on_event));
        let entry = RunEntry {
            seq: runs.with_untracked(|runs| runs.last().map_or(0, |last| last.seq + 1)),
            id,
            code,
            session,
            inputs,
            phase,
            live,
            earlier: false,
            by_person,
            owner: owner.clone(),
        };
        (entry, buffer, pending)
    });
    let phase = entry.phase;
    runs.update(|runs| {
        runs.push(entry.clone());
        forget_oldest(runs);
    });
    let finished = async move {
        phase.set(match pending.await {
            Ok(result) => RunPhase::Finished(result),
            Err(error) => RunPhase::Failed(error.to_string()),
        });
        if let Some(buffer) = buffer {
            buffer.clear();
        }
        // Runs that were still active when the list last grew may go now.
        if runs.with_untracked(|runs| runs.len() > KEPT_RUNS as usize) {
            runs.update(forget_oldest);
        }
    };
    (entry, finished)
}

/// Drops the oldest finished runs beyond what storage keeps
/// ([`KEPT_RUNS`]): the page shows what a reload would bring back, and a
/// long session's cost per run and memory stay flat.
fn forget_oldest(runs: &mut Vec<RunEntry>) {
    let mut excess = runs.len().saturating_sub(KEPT_RUNS as usize);
    runs.retain(|entry| {
        let drop = excess > 0 && !entry.phase.with_untracked(RunPhase::is_active);
        if drop {
            excess -= 1;
        }
        !drop
    });
}
