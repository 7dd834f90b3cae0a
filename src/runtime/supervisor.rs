//! The runtime's decisions: which worker does what, when and how a run is
//! stopped, and what each caller hears. Plain logic, tested natively: the
//! client tells it what happened ([`Event`]) and carries out what it
//! decides ([`Effect`]).
//!
//! Each session has a worker of its own (its own interpreter and file
//! system), taken from a pool: a warm spare when there is one, else a new
//! worker, started from the start-up snapshot. The pool keeps as many
//! alive as the memory budget holds ([`PoolLimits::resident`]); beyond
//! that a session is parked (its worker ends, its ledger stays) and its
//! next job restores it by replay. Only [`PoolLimits::running`] sessions
//! (one per core) run a job at once; the others wait in line, taking turns
//! a call each. Each session's jobs go through its own [`Scheduler`], one
//! at a time.
//!
//! A run is stopped with its worker's interrupt buffer when the page is
//! cross-origin isolated (state survives), otherwise by ending the worker
//! and replaying the session's ledger into the next. When the first worker
//! started without a start-up snapshot, the snapshot maker stores one, so
//! later workers start from it. The maker and the spare are background
//! work: they start only when the runtime has been idle a while, and one
//! still loading gives way to a job that arrives.
//!
//! Each part of the state is owned by a type with its own rules: the
//! workers (`workers.rs`), the sessions (`sessions.rs`) and their line
//! (`line.rs`), which is parked when (`parking.rs`), the callers and what they hear (`callers.rs`), and when
//! background work is due (`background.rs`); `phases.rs` says what each
//! session is doing. The supervisor joins them: where jobs go
//! (`placement.rs`), how runs are stopped (`stopping.rs`) and what follows
//! each worker's report (`worker_events.rs`).

pub use super::events::{
    Call, Effect, Event, Log, Reply, RunEvent, RunReply, RuntimeError, RuntimeStatus, SessionPhase,
    SessionState, Start, Timer, WorkerId,
};
pub use background::{BACKGROUND_IDLE_MS, BACK_TO_BACK_MS};
pub use line::WAIT_BEHIND_AT_MOST;
pub use parking::{PARK_AFTER_IDLE_MS, SPARE_AFTER_IDLE_MS};

mod background;
mod callers;
mod host_calls;
mod line;
mod parking;
mod phases;
mod placement;
mod sessions;
mod stopping;
mod worker_events;
mod workers;

use super::host_calls::HostCalls;
use super::pool::PoolLimits;
use super::scheduler::Job;
use crate::protocol::{Query, RunId, RunRequest};
use background::Background;
use callers::{Caller, Callers, PendingRun};
use sessions::{ParkedFor, Sessions};
use workers::{Role, Workers};

/// How long an interrupted run may take to stop before its worker is terminated
/// (code stuck in C, or code that catches `KeyboardInterrupt`). Usually it
/// stops within milliseconds, but on a busy two-core machine, with another
/// worker compiling Pyodide at the same moment, an honoured interrupt can
/// take over a second to come back; terminating then would throw away the
/// session's state for nothing.
pub const INTERRUPT_GRACE_MS: u32 = 3_000;

/// The fewest workers a pool must hold for a session to be parked to keep
/// a warm spare: with fewer, a spare would leave a single session resident.
pub const SPARE_ROOM_FROM: u32 = 3;

/// How often an interrupt is written again while its run goes on. Pyodide
/// reads its interrupt buffer and then zeroes it in two steps, so a write
/// landing between them is lost; the runner lets only the first SIGINT of
/// a run reach the code, so the repeats are harmless.
pub const INTERRUPT_REPEAT_MS: u32 = 100;

/// How often the runs in Python's hands are nudged to stream the output
/// they hold (see `on_nudge` in sandpit_runner/signals.py): output written just before a
/// long computation is on screen this long after, at most, plus the
/// runner's own batching.
pub const NUDGE_MS: u32 = 100;

/// The runtime's state: its workers, its sessions, its callers' jobs, its
/// background work and its timers, each owned by a part with its own rules.
#[derive(Debug)]
pub struct Supervisor {
    /// Whether workers get an interrupt buffer (the page is cross-origin isolated).
    interrupts: bool,
    limits: PoolLimits,
    workers: Workers,
    sessions: Sessions,
    callers: Callers,
    /// The runs' calls to the embedding page's functions.
    host_calls: HostCalls,
    background: Background,
    /// The page has checked the workers' CSP: new workers may start.
    admitted: bool,
    /// A nudge timer is running (see [`Supervisor::keep_streaming`]).
    nudging: bool,
    /// Python was ready once.
    ever_ready: bool,
    failure: Option<String>,
    now_ms: f64,
    effects: Vec<Effect>,
}

impl Supervisor {
    /// Starts the runtime (`interrupts`: whether workers get an interrupt
    /// buffer) within `limits`; returns the effects that start it.
    ///
    /// The worker index.html created starts loading Python at once, as the
    /// pool's first worker: a script that fails to load fails the start. It
    /// takes code only once [`Event::Guarded`] says its CSP is in place, and
    /// no other worker starts before then.
    pub fn start(interrupts: bool, limits: PoolLimits) -> (Self, Vec<Effect>) {
        let mut supervisor = Self {
            interrupts,
            limits,
            workers: Workers::default(),
            sessions: Sessions::default(),
            callers: Callers::default(),
            host_calls: HostCalls::default(),
            background: Background::default(),
            admitted: false,
            nudging: false,
            ever_ready: false,
            failure: None,
            now_ms: 0.0,
            effects: Vec::new(),
        };
        supervisor.spawn(Role::Spare, Start::Early);
        let effects = supervisor.take();
        (supervisor, effects)
    }

    /// Sessions that have run code and were not deleted.
    pub fn sessions(&self) -> Vec<String> {
        self.sessions.listed()
    }

    /// The pool's limits now.
    pub fn limits(&self) -> PoolLimits {
        self.limits
    }

    /// What each session is doing, as last told ([`Effect::Sessions`]).
    pub fn session_states(&self) -> Vec<SessionState> {
        self.sessions.told().to_vec()
    }

    /// Queues a caller's job at `now_ms`; returns its id and what to do now.
    ///
    /// Refused when Python has failed, or a run's input files are over its
    /// limit. Jobs submitted before their session's worker is ready wait
    /// and then run in order.
    pub fn submit(
        &mut self,
        now_ms: f64,
        call: Call,
    ) -> Result<(RunId, Vec<Effect>), RuntimeError> {
        self.now_ms = now_ms;
        if let Some(message) = &self.failure {
            return Err(RuntimeError::Unavailable(message.clone()));
        }
        let id = self.sessions.new_id();
        let (name, job, caller) = match call {
            Call::Run(request) => {
                if let Some(why) = oversized_input(&request) {
                    return Err(RuntimeError::Rejected(why));
                }
                let name = request.session.clone();
                if !request.fresh {
                    self.sessions.entry(&name, now_ms).listed = true;
                }
                (name, Job::Run(request), Caller::Run(PendingRun::default()))
            }
            Call::Clear { session, forget } => {
                if forget {
                    self.sessions.entry(&session, now_ms).listed = false;
                }
                (session, Job::Clear { forget }, Caller::Done)
            }
            Call::Query(query) => {
                let name = match &query {
                    Query::ReadFile { session, path } => {
                        if let Some(why) = self.sessions.nothing_to_read(session, path) {
                            return Err(RuntimeError::Rejected(why));
                        }
                        session.clone()
                    }
                    Query::Check { .. } => self.sessions.for_check(),
                    Query::Complete { session, .. } => session.clone(),
                };
                (name, Job::Query(query), Caller::Query)
            }
            Call::RestoreFiles { session, files } => {
                self.sessions.entry(&session, now_ms).listed = true;
                self.sessions.restore_files(&session, files);
                self.pump(&session);
                self.emit(Effect::Resolve(id, Reply::Done(Ok(()))));
                self.settle();
                return Ok((id, self.take()));
            }
        };
        self.callers.add(id, caller);
        let session = self.sessions.entry(&name, now_ms);
        session.last_used = now_ms;
        session.scheduler.submit(id, job);
        self.pump(&name);
        // The job takes its worker first (the spare, even while it loads),
        // then whatever else loads in the background gives way.
        self.schedule();
        self.give_way();
        self.settle();
        Ok((id, self.take()))
    }

    /// Decides what `event`, happening at `now_ms`, leads to.
    pub fn handle(&mut self, now_ms: f64, event: Event) -> Vec<Effect> {
        self.now_ms = now_ms;
        match event {
            Event::Guarded(guarded) => self.admit(guarded),
            Event::Securing => {
                // Unless the start has failed already (the worker's script did not load).
                if self.failure.is_none() {
                    self.emit(Effect::Status(RuntimeStatus::Securing));
                }
            }
            Event::Cancel(id) => self.cancel(id),
            Event::Message(worker, message) => self.on_message(worker, message),
            Event::Error(worker, message) => self.on_error(worker, message),
            Event::SpawnFailed(worker, error) => self.on_spawn_failed(worker, error),
            Event::PostFailed(worker, error) => self.on_post_failed(worker, error),
            Event::Tick(Timer::Deadline(worker)) => self.on_deadline(worker),
            Event::Tick(Timer::Nudge) => self.on_nudge(),
            Event::Tick(Timer::Background) => self.on_background(),
            Event::Tick(Timer::Pool) => self.sessions.pool_ticked(),
            Event::Limits(limits) => self.limits = limits,
            Event::HostAnswer {
                id,
                call,
                value,
                error,
            } => self.on_host_answer(id, call, value, error),
        }
        self.settle();
        self.take()
    }

    fn take(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    fn emit(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// After every call and event: sessions in line get workers and cores,
    /// background work is armed or stopped, sessions nobody needs are
    /// dropped, and changes of the sessions' states are told.
    fn settle(&mut self) {
        self.schedule();
        let idle = self.sessions.idle();
        let due = self.background_due().is_some();
        self.background
            .settle(idle, due, self.now_ms, &mut self.effects);
        if let (true, Err(wait_ms)) = (idle, self.spare_room()) {
            self.sessions.arm_pool(wait_ms, &mut self.effects);
        }
        self.sessions.drop_unneeded();
        let states = phases::states(&self.sessions, &self.workers, self.limits);
        self.sessions.tell(states, &mut self.effects);
    }

    /// The background worker due now, if any (see [`Background::due`]):
    /// none before Python was first ready, or once it has failed.
    fn background_due(&self) -> Option<Start> {
        if !self.ever_ready || self.failure.is_some() {
            return None;
        }
        let room = self.workers.live() < self.limits.resident as usize;
        self.background
            .due(&self.workers, room || self.spare_room().is_ok())
    }

    /// The session to park so a warm spare fits when the memory budget is
    /// full (see [`SPARE_AFTER_IDLE_MS`]), or how long until one may be:
    /// only in a pool of [`SPARE_ROOM_FROM`] workers or more, and only for
    /// the first spare.
    fn spare_room(&self) -> Result<String, Option<u32>> {
        let full = self.workers.live() >= self.limits.resident as usize;
        if !full || self.limits.resident < SPARE_ROOM_FROM || self.workers.count(&Role::Spare) > 0 {
            return Err(None);
        }
        parking::for_spare(&self.sessions, self.now_ms)
    }

    /// The background timer went off: the worker due starts, if the
    /// runtime has been idle long enough.
    fn on_background(&mut self) {
        let idle = self.sessions.idle();
        let due = self.background_due();
        let start = self
            .background
            .tick(idle, due, self.now_ms, &mut self.effects);
        let worker = match start {
            Some(Start::SnapshotMaker) => self.spawn(Role::Maker, Start::SnapshotMaker),
            Some(start) => {
                if let Ok(idle) = self.spare_room() {
                    self.park(&idle, ParkedFor::Spare);
                }
                self.spawn(Role::Spare, start)
            }
            None => return,
        };
        self.workers.set_background(worker);
    }

    /// A job has come in: a background worker still loading gives way (a
    /// starting worker cannot be paused, and it would take the cores the job
    /// needs); it is started again once the runtime is idle.
    fn give_way(&mut self) {
        for (worker, role) in self.workers.loading_in_background() {
            if role == Role::Maker {
                self.background.maker_gave_way();
            }
            self.retire(worker);
        }
    }

    /// The snapshot maker is done (`failure` says why it stored nothing): it
    /// is terminated, and the spare it held back may start.
    fn maker_finished(&mut self, failure: Option<String>) {
        if let Some(message) = failure {
            // Not an error of the app: later starts simply start from scratch.
            let message = format!("no start-up snapshot was stored: {message}");
            self.emit(Effect::Log(Log::Warning(message)));
        }
        if let Some(worker) = self.workers.find(&Role::Maker) {
            self.retire(worker);
        }
    }
}

/// Why a request's input files cannot be sent, if they are over its limit.
fn oversized_input(request: &RunRequest) -> Option<String> {
    let size = request.input_bytes();
    let limit = u64::from(request.limits.input_bytes);
    (size > limit).then(|| {
        format!(
            "the input files are {} in all, over the limit of {}: send smaller files or raise limits.input_bytes",
            crate::format::bytes(size),
            crate::format::bytes(limit)
        )
    })
}
