//! What a session is doing, as the page and the clients are told: where it
//! stands (resident, running, queued, parked...) and why, in words.

use super::line::{Line, WAIT_BEHIND_AT_MOST};
use super::sessions::{ParkedFor, Session, Sessions, Turn};
use super::workers::{Stage, Workers};
use crate::format::{mebibytes, quoted};
use crate::runtime::events::{SessionPhase, SessionState};
use crate::runtime::pool::PoolLimits;

/// Every session's state, with `workers` as they are, within `limits`.
pub(super) fn states(
    sessions: &Sessions,
    workers: &Workers,
    limits: PoolLimits,
) -> Vec<SessionState> {
    let line = &sessions.line;
    let each = sessions.iter();
    each.map(|(name, session)| state(name, session, line, workers, limits))
        .collect()
}

/// Session `name`'s state, with `line` and `workers` as they are, within `limits`.
fn state(
    name: &str,
    session: &Session,
    line: &Line,
    workers: &Workers,
    limits: PoolLimits,
) -> SessionState {
    let stage = session.worker.and_then(|worker| workers.stage(worker));
    let in_line = line.contains(name);
    let phase = match stage {
        None if in_line => SessionPhase::Waiting,
        None => SessionPhase::Parked,
        Some(Stage::Created | Stage::Starting) => SessionPhase::Starting,
        Some(Stage::Ready) if session.scheduler.replaying() => SessionPhase::Restoring,
        Some(Stage::Ready) if session.scheduler.in_flight().is_some() => SessionPhase::Running,
        Some(Stage::Ready) if in_line && session.turn() == Turn::Core => SessionPhase::Queued,
        Some(Stage::Ready) => SessionPhase::Idle,
    };
    SessionState {
        name: name.to_owned(),
        phase,
        queued: session.scheduler.waiting(),
        resident: stage.is_some(),
        why: why(phase, session, line.ahead_of(name), limits),
    }
}

/// Why a session in `phase` is there, in a sentence; `ahead` sessions are
/// ahead of it in line.
fn why(phase: SessionPhase, session: &Session, ahead: usize, limits: PoolLimits) -> String {
    let budget = || {
        format!(
            "the memory budget holds {} workers of {} each",
            limits.resident,
            mebibytes(limits.memory_bytes)
        )
    };
    match phase {
        SessionPhase::Idle => "Its worker is ready, with nothing to run.".to_owned(),
        SessionPhase::Running => "Its worker runs one of its calls.".to_owned(),
        SessionPhase::Restoring => {
            "Its new worker replays its earlier runs, then runs its call.".to_owned()
        }
        SessionPhase::Starting => "Its worker is loading Python.".to_owned(),
        SessionPhase::Queued => format!(
            "Waiting for a core: {} calls run at once, one per core, and sessions take \
             turns; {ahead} ahead of it in line.",
            limits.running
        ),
        SessionPhase::Waiting => format!(
            "Waiting for a worker: {}, all in use. An idle session is parked for it, or, once \
             {WAIT_BEHIND_AT_MOST} calls have started ahead of it, a busy one.",
            budget()
        ),
        SessionPhase::Parked => match (&session.parked_for, session.scheduler.has_state()) {
            (Some(ParkedFor::Session(other)), _) => format!(
                "Parked to make room for session {} ({}); its next call restores it by \
                 replaying its runs.",
                quoted(other),
                budget()
            ),
            (Some(ParkedFor::Spare), _) => format!(
                "Parked, idle, to keep a warm spare ready for the next session that needs a \
                 worker ({}); its next call restores it by replaying its runs.",
                budget()
            ),
            (None, true) => {
                "Its worker ended; its next call restores it by replaying its runs.".to_owned()
            }
            (None, false) => {
                "No worker: its next call starts a fresh interpreter for it.".to_owned()
            }
        },
    }
}
