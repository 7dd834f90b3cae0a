//! Which session is parked to make room, and when: for a session that
//! needs a worker while the memory budget is full, or for a warm spare.

use super::sessions::{Session, Sessions};

/// How long a session must have been idle before it is parked to make room
/// for another: a client that sends one job after another (a batch spread
/// over sessions, say) leaves its session idle for a moment between them,
/// and parking it then would cost it a worker start for every job.
pub const PARK_AFTER_IDLE_MS: u32 = 1_000;

/// How long a session must have been idle before it is parked to keep a
/// warm spare when the memory budget is full: the spare then brings back
/// the next session that needs a worker (a new one, or a parked one) at
/// once, and the session parked is one nobody has used for a while.
pub const SPARE_AFTER_IDLE_MS: u32 = 10_000;

/// The session to park for session `waiting`, which needs a worker
/// while the memory budget is full: one whose worker is ready with
/// nothing in it, least recently used first. An idle one (no call
/// waiting) once it has been idle [`PARK_AFTER_IDLE_MS`] at `now_ms`;
/// and when `waiting` is out of patience, any idle one, then one with
/// calls waiting that has run a call in its present worker. Otherwise
/// how long until an idle one may be, if any is idle at all.
pub(super) fn for_waiting(
    sessions: &Sessions,
    waiting: &str,
    now_ms: f64,
    out_of_patience: bool,
) -> Result<String, Option<u32>> {
    let ready: Vec<(&String, &Session)> = sessions
        .iter()
        .filter(|(name, s)| {
            *name != waiting
                && s.worker.is_some()
                && s.scheduler.is_ready()
                && s.scheduler.in_flight().is_none()
                && !s.scheduler.restoring()
        })
        .collect();
    let least_recent = |a: &&(&String, &Session), b: &&(&String, &Session)| {
        a.1.last_used.total_cmp(&b.1.last_used)
    };
    let idle = ready.iter().filter(|(_, s)| s.scheduler.is_idle());
    let Some((name, session)) = idle.min_by(least_recent) else {
        let busy = ready
            .iter()
            .filter(|(_, s)| out_of_patience && s.ran_in_worker);
        return busy
            .min_by(least_recent)
            .map(|(name, _)| (*name).clone())
            .ok_or(None);
    };
    let idle_ms = now_ms - session.last_used;
    if out_of_patience || idle_ms >= f64::from(PARK_AFTER_IDLE_MS) {
        Ok((*name).clone())
    } else {
        Err(Some((f64::from(PARK_AFTER_IDLE_MS) - idle_ms).ceil() as u32))
    }
}

/// The session to park for a warm spare at `now_ms`: the least recently
/// used idle one, once idle [`SPARE_AFTER_IDLE_MS`]. Otherwise how long
/// until one is, if any is idle at all.
pub(super) fn for_spare(sessions: &Sessions, now_ms: f64) -> Result<String, Option<u32>> {
    let idle = sessions.iter().filter(|(_, s)| {
        s.worker.is_some()
            && s.scheduler.is_ready()
            && s.scheduler.is_idle()
            && !s.scheduler.restoring()
    });
    let least_recent = idle.min_by(|a, b| a.1.last_used.total_cmp(&b.1.last_used));
    let (name, session) = least_recent.ok_or(None)?;
    let left = f64::from(SPARE_AFTER_IDLE_MS) - (now_ms - session.last_used);
    if left <= 0.0 {
        Ok(name.clone())
    } else {
        Err(Some(left.ceil() as u32))
    }
}
