//! The sessions: each one's jobs, worker and run clock, the line of those
//! with a job to start, which one is parked to make room, and what each is
//! doing, as told to the page.

use litemap::LiteMap;

use super::line::Line;
use crate::format::quoted;
use crate::protocol::{InputFile, RunId, DEFAULT_SESSION};
use crate::runtime::events::{Effect, SessionState, Timer, WorkerId};
use crate::runtime::outcome::StopReason;
use crate::runtime::scheduler::{Completion, Ids, Scheduler};

/// One session: its jobs, its worker when it has one, and its run's clock.
#[derive(Debug)]
pub(super) struct Session {
    pub(super) scheduler: Scheduler,
    pub(super) worker: Option<WorkerId>,
    /// When it last had a job submitted or finished: the least recent idle
    /// session is parked first.
    pub(super) last_used: f64,
    deadline: Option<Deadline>,
    /// The run an interrupt was sent to; stopping it again means terminating.
    pub(super) interrupting: Option<RunId>,
    /// Listed among the sessions (it has run code and was not deleted).
    pub(super) listed: bool,
    /// It had a worker once: a session getting its first is a new one.
    pub(super) had_worker: bool,
    /// A call of its own finished in its present worker: only then may a
    /// session with calls waiting be parked, so every restore pays off.
    pub(super) ran_in_worker: bool,
    /// Why it was parked, while it stays parked.
    pub(super) parked_for: Option<ParkedFor>,
}

/// What a session was parked to make room for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ParkedFor {
    /// Another session, which needed a worker.
    Session(String),
    /// A warm spare, kept for the next session that needs a worker.
    Spare,
}

/// What a session in line waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Turn {
    /// A worker: it has none.
    Worker,
    /// Its worker to be ready.
    Start,
    /// A core: its worker is ready.
    Core,
    /// Nothing: it has no job to start, or one in its worker already.
    Nothing,
}

/// What a session's [`Timer::Deadline`] means.
#[derive(Debug)]
pub(super) enum Deadline {
    /// Run `id` times out.
    Timeout { id: RunId, limit: u32 },
    /// Run `id` was interrupted: write it again, or terminate once `left_ms` are used up.
    Interrupt {
        id: RunId,
        reason: StopReason,
        left_ms: u32,
    },
}

impl Session {
    fn new(name: &str, now_ms: f64) -> Self {
        Self {
            scheduler: Scheduler::new(name),
            worker: None,
            last_used: now_ms,
            deadline: None,
            interrupting: None,
            listed: false,
            had_worker: false,
            ran_in_worker: false,
            parked_for: None,
        }
    }

    /// What it waits for in line.
    pub(super) fn turn(&self) -> Turn {
        let scheduler = &self.scheduler;
        let wants =
            scheduler.in_flight().is_none() && (scheduler.needs_worker() || scheduler.needs_core());
        match (wants, self.worker, scheduler.is_ready()) {
            (false, _, _) => Turn::Nothing,
            (true, None, _) => Turn::Worker,
            (true, Some(_), false) => Turn::Start,
            (true, Some(_), true) => Turn::Core,
        }
    }

    /// Starts its deadline timer for `deadline` (after its milliseconds), or
    /// stops it. Without a worker there is nothing to time.
    pub(super) fn set_deadline(
        &mut self,
        deadline: Option<(Deadline, u32)>,
        effects: &mut Vec<Effect>,
    ) {
        let Some(worker) = self.worker else {
            self.deadline = None;
            return;
        };
        match deadline {
            Some((deadline, ms)) => {
                self.deadline = Some(deadline);
                effects.push(Effect::StartTimer(Timer::Deadline(worker), ms));
            }
            None => {
                if self.deadline.take().is_some() {
                    effects.push(Effect::CancelTimer(Timer::Deadline(worker)));
                }
            }
        }
    }

    /// What its deadline timer, which went off, meant.
    pub(super) fn take_deadline(&mut self) -> Option<Deadline> {
        self.deadline.take()
    }
}

/// Where a cancelled job was.
pub(super) enum Cancelling {
    /// Waiting in its session's queue, or in its worker behind another:
    /// taken out, and its caller may hear at once.
    Queued,
    /// In flight in this session: it must be stopped.
    InFlight(String),
    /// Nowhere: it had finished.
    Gone,
}

/// Every session by name, and the line of those with a job to start.
#[derive(Debug, Default)]
pub(super) struct Sessions {
    table: LiteMap<String, Session>,
    pub(super) line: Line,
    ids: Ids,
    /// The session states last told, so only changes are.
    told: Vec<SessionState>,
    /// The [`Timer::Pool`] is running.
    pool_armed: bool,
}

impl Sessions {
    /// An id for a new job.
    pub(super) fn new_id(&mut self) -> RunId {
        self.ids.new_id()
    }

    pub(super) fn get(&self, name: &str) -> Option<&Session> {
        self.table.get(name)
    }

    pub(super) fn get_mut(&mut self, name: &str) -> Option<&mut Session> {
        self.table.get_mut(name)
    }

    /// Session `name`, new (used at `now_ms`) if there was none.
    pub(super) fn entry(&mut self, name: &str, now_ms: f64) -> &mut Session {
        self.table
            .entry(name.to_owned())
            .or_insert_with(|| Session::new(name, now_ms))
    }

    /// Sessions that have run code and were not deleted.
    pub(super) fn listed(&self) -> Vec<String> {
        let listed = self.table.iter().filter(|(_, s)| s.listed);
        listed.map(|(name, _)| name.clone()).collect()
    }

    /// What each session is doing, as last told.
    pub(super) fn told(&self) -> &[SessionState] {
        &self.told
    }

    /// Session `name`'s job in flight.
    pub(super) fn in_flight(&self, name: &str) -> Option<RunId> {
        self.table.get(name)?.scheduler.in_flight()
    }

    /// The run of session `name` an interrupt was sent to.
    pub(super) fn interrupting(&self, name: &str) -> Option<RunId> {
        self.table.get(name)?.interrupting
    }

    /// Session `name`'s worker.
    pub(super) fn worker(&self, name: &str) -> Option<WorkerId> {
        self.table.get(name)?.worker
    }

    /// Puts `files` back into session `name` before its next job.
    pub(super) fn restore_files(&mut self, name: &str, files: Vec<InputFile>) {
        if let Some(session) = self.table.get_mut(name) {
            session.scheduler.restore_files(files, &mut self.ids);
        }
    }

    /// Session `name`'s worker is gone (`reason` says why its job in
    /// flight failed, if it had one): its ledger is queued for replay into
    /// the next. What completes by that, if the session exists.
    pub(super) fn restart(&mut self, name: &str, reason: &str) -> Option<Vec<Completion>> {
        let session = self.table.get_mut(name)?;
        Some(session.scheduler.restart(reason, &mut self.ids))
    }

    /// Whether no job is queued or running in any session: only then may a
    /// background worker start.
    pub(super) fn idle(&self) -> bool {
        self.line.is_empty() && self.table.values().all(|s| s.scheduler.is_idle())
    }

    /// How many sessions have a job in their worker: each takes a core.
    pub(super) fn running(&self) -> usize {
        let running = self
            .table
            .values()
            .filter(|s| s.scheduler.in_flight().is_some());
        running.count()
    }

    /// What session `name` waits for in line.
    pub(super) fn turn(&self, name: &str) -> Turn {
        self.table.get(name).map_or(Turn::Nothing, Session::turn)
    }

    /// Whether a session other than `name` waits in line for a core.
    pub(super) fn others_wait_for_core(&self, name: &str) -> bool {
        let others = self.line.names().into_iter().filter(|other| other != name);
        others
            .into_iter()
            .any(|other| self.turn(&other) == Turn::Core)
    }

    /// A session waiting in line for a worker, out of patience: until it has
    /// one, no other call starts.
    pub(super) fn blocked(&self) -> bool {
        let names = self.line.names().into_iter();
        names
            .filter(|name| self.turn(name) == Turn::Worker)
            .any(|name| self.line.out_of_patience(&name))
    }

    /// Session `name`'s call starts: it leaves the line, and whoever in
    /// line waits for a worker counts it.
    pub(super) fn start_turn(&mut self, name: &str) {
        self.line.leave(name);
        let table = &self.table;
        let waits = |other: &str| table.get(other).is_some_and(|s| s.turn() == Turn::Worker);
        self.line.passed_by_one(waits);
    }

    /// The workers of the sessions with a run in flight.
    pub(super) fn busy_workers(&self) -> Vec<WorkerId> {
        self.table
            .values()
            .filter(|s| s.scheduler.in_flight().is_some())
            .filter_map(|s| s.worker)
            .collect()
    }

    /// Takes job `id` out of its queue, if it is queued, and says where it was.
    pub(super) fn cancel(&mut self, id: RunId) -> Cancelling {
        let mut running = None;
        for (name, session) in &mut self.table {
            let behind = session.scheduler.ahead().any(|behind| behind == id);
            if behind || session.scheduler.cancel_waiting(id) {
                return Cancelling::Queued;
            }
            if session.scheduler.in_flight() == Some(id) {
                running = Some(name.clone());
            }
        }
        running.map_or(Cancelling::Gone, Cancelling::InFlight)
    }

    /// Python cannot run any more: the jobs of every session, which will never run.
    pub(super) fn drain(&mut self) -> Vec<RunId> {
        self.line.clear();
        let mut failed = Vec::new();
        for (_, session) in self.table.iter_mut() {
            failed.extend(session.scheduler.drain());
        }
        failed
    }

    /// Puts session `name` in line, if it has a job to start and is not in line.
    pub(super) fn line_up(&mut self, name: &str) {
        if self.turn(name) != Turn::Nothing {
            self.line.join(name);
        }
    }

    /// Arms [`Timer::Pool`] for `wait_ms`, if there is a wait and it is not running.
    pub(super) fn arm_pool(&mut self, wait_ms: Option<u32>, effects: &mut Vec<Effect>) {
        if let (Some(ms), false) = (wait_ms, self.pool_armed) {
            self.pool_armed = true;
            effects.push(Effect::StartTimer(Timer::Pool, ms));
        }
    }

    /// [`Timer::Pool`] went off.
    pub(super) fn pool_ticked(&mut self) {
        self.pool_armed = false;
    }

    /// The session a check goes to: checks change no session, so the most
    /// recently used one with a worker takes it, an idle one first, and
    /// only without any the default session.
    pub(super) fn for_check(&self) -> String {
        let with_worker = self.table.iter().filter(|(_, s)| s.worker.is_some());
        let best = with_worker.max_by(|a, b| {
            let rank = |s: &Session| (s.scheduler.is_idle() && s.scheduler.is_ready(), s.last_used);
            let (ra, rb) = (rank(a.1), rank(b.1));
            ra.0.cmp(&rb.0).then(ra.1.total_cmp(&rb.1))
        });
        best.map_or_else(|| DEFAULT_SESSION.to_owned(), |(name, _)| name.clone())
    }

    /// Why reading `path` from session `name` cannot work, when the session
    /// has neither a worker nor anything to restore: no worker is started
    /// only to say so.
    pub(super) fn nothing_to_read(&self, name: &str, path: &str) -> Option<String> {
        let session = self.table.get(name);
        let empty = session.is_none_or(|s| {
            s.worker.is_none() && !s.scheduler.has_state() && s.scheduler.is_idle()
        });
        empty.then(|| {
            format!(
                "FileNotFoundError: no such file in session {}: {path}",
                quoted(name)
            )
        })
    }

    /// Every session, by name.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&String, &Session)> {
        self.table.iter()
    }

    /// Drops the sessions nobody needs (unlisted, without a worker or a job).
    pub(super) fn drop_unneeded(&mut self) {
        self.table.retain(|_, session| {
            session.listed || session.worker.is_some() || !session.scheduler.is_empty()
        });
    }

    /// Tells what each session is doing (`states`), when that changed.
    pub(super) fn tell(&mut self, states: Vec<SessionState>, effects: &mut Vec<Effect>) {
        if states != self.told {
            self.told = states.clone();
            effects.push(Effect::Sessions(states));
        }
    }
}
