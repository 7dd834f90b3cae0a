//! Background work (the snapshot maker, the warm spare): started only once
//! the runtime has been idle a while, and giving way to a job that arrives
//! while it still loads.

use super::*;

impl Supervisor {
    /// Whether no job is queued or running in any session: only then may a
    /// background worker start.
    pub(super) fn idle(&self) -> bool {
        self.waiting.is_empty() && self.sessions.values().all(|s| s.scheduler.is_idle())
    }

    /// The background worker due now, if any: a start-up snapshot is made
    /// first when the first worker started without one (once per page), else
    /// a warm spare while the pool has room for it, so the next session
    /// (or restart) starts at once. The spare waits for the maker, so the two
    /// do not compete for the CPU and the spare itself starts from the new
    /// snapshot.
    pub(super) fn background_due(&self) -> Option<Start> {
        if !self.ever_ready || self.failure.is_some() || self.find(&Role::Maker).is_some() {
            return None;
        }
        let snapshot_used = self.first_start.as_ref() == Some(&SnapshotUse::Used);
        let room = self.live_workers() < self.limits.workers as usize;
        if !snapshot_used && !self.snapshot_attempted {
            Some(Start::SnapshotMaker)
        } else if self.find(&Role::Spare).is_none() && room {
            Some(Start::Python)
        } else {
            None
        }
    }

    /// Notes since when the runtime has been idle (a job that comes in
    /// starts the count again from its end), and arms the background timer
    /// when a background worker is due. A timer already running is left to
    /// go off: it then looks at how long the runtime has been idle, so runs
    /// in quick succession cost no timer each.
    pub(super) fn settle_background(&mut self) {
        if !self.idle() {
            self.idle_since = None;
            return;
        }
        let now_ms = self.now_ms;
        self.idle_since.get_or_insert(now_ms);
        if !self.background_armed && self.background_due().is_some() {
            self.background_armed = true;
            self.emit(Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS));
        }
    }

    pub(super) fn on_background(&mut self) {
        self.background_armed = false;
        let Some(since) = self.idle_since.filter(|_| self.idle()) else {
            return;
        };
        let left = f64::from(BACKGROUND_IDLE_MS) - (self.now_ms - since);
        if left > 0.0 {
            if self.background_due().is_some() {
                self.background_armed = true;
                self.emit(Effect::StartTimer(Timer::Background, left.ceil() as u32));
            }
            return;
        }
        let worker = match self.background_due() {
            Some(Start::SnapshotMaker) => {
                self.snapshot_attempted = true;
                self.spawn(Role::Maker, Start::SnapshotMaker)
            }
            Some(start) => self.spawn(Role::Spare, start),
            None => return,
        };
        if let Some(slot) = self.slot(worker) {
            slot.background = true;
        }
    }

    /// A job has come in: a background worker still loading gives way (a
    /// starting worker cannot be paused, and it would take the cores the job
    /// needs); it is started again once the runtime is idle.
    pub(super) fn give_way(&mut self) {
        let loading: Vec<(WorkerId, Role)> = self
            .workers
            .iter()
            .filter(|slot| slot.background && slot.stage != Stage::Ready)
            .map(|slot| (slot.id, slot.role.clone()))
            .collect();
        for (worker, role) in loading {
            if role == Role::Maker {
                self.snapshot_attempted = false;
            }
            self.retire(worker);
        }
    }

    /// The snapshot maker is done (`failure` says why it stored nothing): it
    /// is terminated, and the spare it held back may start.
    pub(super) fn maker_finished(&mut self, failure: Option<String>) {
        if let Some(message) = failure {
            // Not an error of the app: later starts simply start from scratch.
            let message = format!("no start-up snapshot was stored: {message}");
            self.emit(Effect::Log(Log::Warning(message)));
        }
        if let Some(worker) = self.find(&Role::Maker) {
            self.retire(worker);
        }
    }
}
