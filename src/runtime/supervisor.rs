//! The runtime's decisions: which worker does what, when and how a run is
//! stopped, and what each caller hears. Plain logic, tested natively: the
//! client tells it what happened ([`Event`]) and carries out what it
//! decides ([`Effect`]).
//!
//! Each session has a worker of its own (its own interpreter and file
//! system), taken from a pool: the warm spare when there is one, else a new
//! worker, started from the start-up snapshot. The pool keeps at most
//! [`PoolLimits::workers`] alive; beyond that the least recently used idle
//! session is parked (its worker ends, its ledger stays) and its next job
//! restores it by replay. Each session's jobs go through its own
//! [`Scheduler`], one at a time, while sessions run side by side.
//!
//! A run is stopped with its worker's interrupt buffer when the page is
//! cross-origin isolated (state survives), otherwise by ending the worker
//! and replaying the session's ledger into the next. When the first worker
//! started without a start-up snapshot, the snapshot maker stores one, so
//! later workers start from it. The maker and the spare are background
//! work: they start only when the runtime has been idle a while, and one
//! still loading gives way to a job that arrives.

use litemap::LiteMap;

pub use super::events::{
    Call, Effect, Event, Log, Outcome, Reply, RunEvent, RuntimeError, RuntimeStatus, SessionPhase,
    SessionState, Start, Timer, WorkerId,
};
mod background;
mod placement;
mod stopping;

use super::outcome::{self, StopReason};
use super::pool::PoolLimits;
use super::scheduler::{Completion, Dispatch, Ids, Job, Scheduler};
use crate::format::quoted;
use crate::protocol::{
    HostMessage, OutputChunk, Query, RunId, RunRequest, RunResult, RunStatus, SnapshotUse,
    WorkerMessage, DEFAULT_SESSION,
};

/// How long an interrupted run may take to stop before its worker is terminated
/// (code stuck in C, or code that catches `KeyboardInterrupt`). Usually it
/// stops within milliseconds, but on a busy two-core machine, with another
/// worker compiling Pyodide at the same moment, an honoured interrupt can
/// take over a second to come back; terminating then would throw away the
/// session's state for nothing.
pub const INTERRUPT_GRACE_MS: u32 = 3_000;

/// How often an interrupt is written again while its run goes on. Pyodide
/// reads its interrupt buffer and then zeroes it in two steps, so a write
/// landing between them is lost; the runner lets only the first SIGINT of
/// a run reach the code, so the repeats are harmless.
pub const INTERRUPT_REPEAT_MS: u32 = 100;

/// How often the runs in Python's hands are nudged to stream the output
/// they hold (see `_on_nudge` in runner.py): output written just before a
/// long computation is on screen this long after, at most, plus the
/// runner's own batching.
pub const NUDGE_MS: u32 = 100;

/// How long no job may have been queued or running before a background
/// worker (the snapshot maker, the warm spare) starts: loading Pyodide takes
/// a core for a second or more, and a chat UI's calls come in quick
/// succession, so a start in a gap between two of them would slow the next.
pub const BACKGROUND_IDLE_MS: u32 = 500;

/// How long a session must have been idle before it is parked to make room
/// for another: a client that sends one job after another (a batch spread
/// over sessions, say) leaves its session idle for a moment between them,
/// and parking it then would cost it a worker start for every job.
pub const PARK_AFTER_IDLE_MS: u32 = 1_000;

/// What a worker is for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Role {
    /// Runs this session's jobs.
    Session(String),
    /// Loads Python in advance: the next session to need a worker takes it.
    Spare,
    /// Stores a start-up snapshot, then ends.
    Maker,
}

/// How far a worker has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Created, not yet sent `init` (it waits for the CSP check).
    Created,
    /// Sent `init`, loading Python.
    Starting,
    /// Said it is ready.
    Ready,
}

/// One worker: its id, what it is for and how far it has come.
#[derive(Debug)]
struct Slot {
    id: WorkerId,
    role: Role,
    stage: Stage,
    /// Started in the background (see [`BACKGROUND_IDLE_MS`]): it gives way
    /// to a job that arrives while it still loads.
    background: bool,
}

/// One session: its jobs, its worker when it has one, and its run's clock.
#[derive(Debug)]
struct Session {
    scheduler: Scheduler,
    worker: Option<WorkerId>,
    /// When it last had a job submitted or finished: the least recent idle
    /// session is parked first.
    last_used: f64,
    deadline: Option<Deadline>,
    /// The run an interrupt was sent to; stopping it again means terminating.
    interrupting: Option<RunId>,
    /// Listed among the sessions (it has run code and was not deleted).
    listed: bool,
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
        }
    }
}

/// Who waits for a job, and what is known of it so far.
#[derive(Debug)]
enum Caller {
    Run(PendingRun),
    Done,
    Query,
}

/// A caller's run, until its result.
#[derive(Debug, Default)]
struct PendingRun {
    /// Output streamed so far: the result of a run whose worker dies.
    streamed: Vec<OutputChunk>,
    started_ms: Option<f64>,
    /// Set when the host stopped it; decides the status it ends with.
    stop: Option<StopReason>,
}

/// What a session's [`Timer::Deadline`] means.
#[derive(Debug)]
enum Deadline {
    /// Run `id` times out.
    Timeout { id: RunId, limit: u32 },
    /// Run `id` was interrupted: write it again, or terminate once `left_ms` are used up.
    Interrupt {
        id: RunId,
        reason: StopReason,
        left_ms: u32,
    },
}

/// The runtime's state: its workers, its sessions, its callers' jobs and its timers.
#[derive(Debug)]
pub struct Supervisor {
    /// Whether workers get an interrupt buffer (the page is cross-origin isolated).
    interrupts: bool,
    limits: PoolLimits,
    /// A handful at most, oldest first.
    workers: Vec<Slot>,
    last_worker: u64,
    /// The page has checked the workers' CSP: new workers may start.
    admitted: bool,
    sessions: LiteMap<String, Session>,
    /// Sessions with a job but no worker, first come first served.
    waiting: Vec<String>,
    ids: Ids,
    callers: LiteMap<RunId, Caller>,
    /// A maker was started once: a failed one is not retried on this page
    /// (one that gave way to a job is).
    snapshot_attempted: bool,
    /// How the first worker to be ready started: a maker is due when it did
    /// not use a snapshot.
    first_start: Option<SnapshotUse>,
    /// The [`Timer::Background`] is running.
    background_armed: bool,
    /// Since when no job has been queued or running, while that holds.
    idle_since: Option<f64>,
    /// The [`Timer::Pool`] is running.
    pool_armed: bool,
    /// A nudge timer is running (see [`Supervisor::keep_streaming`]).
    nudging: bool,
    /// Python was ready once.
    ever_ready: bool,
    failure: Option<String>,
    /// The session states last told, so only changes are.
    told: Vec<SessionState>,
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
            workers: Vec::new(),
            last_worker: 0,
            admitted: false,
            sessions: LiteMap::new(),
            waiting: Vec::new(),
            ids: Ids::default(),
            callers: LiteMap::new(),
            snapshot_attempted: false,
            first_start: None,
            background_armed: false,
            idle_since: None,
            pool_armed: false,
            nudging: false,
            ever_ready: false,
            failure: None,
            told: Vec::new(),
            now_ms: 0.0,
            effects: Vec::new(),
        };
        supervisor.spawn(Role::Spare, Start::Early);
        let effects = supervisor.take();
        (supervisor, effects)
    }

    /// Sessions that have run code and were not deleted.
    pub fn sessions(&self) -> Vec<String> {
        let listed = self.sessions.iter().filter(|(_, s)| s.listed);
        listed.map(|(name, _)| name.clone()).collect()
    }

    /// The pool's limits now.
    pub fn limits(&self) -> PoolLimits {
        self.limits
    }

    /// What each session is doing, as last told ([`Effect::Sessions`]).
    pub fn session_states(&self) -> Vec<SessionState> {
        self.told.clone()
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
        let id = self.ids.new_id();
        let (name, job, caller) = match call {
            Call::Run(request) => {
                if let Some(why) = oversized_input(&request) {
                    return Err(RuntimeError::Rejected(why));
                }
                let name = request.session.clone();
                if !request.fresh {
                    self.session_mut(&name).listed = true;
                }
                (name, Job::Run(request), Caller::Run(PendingRun::default()))
            }
            Call::Clear { session, forget } => {
                if forget {
                    self.session_mut(&session).listed = false;
                }
                (session, Job::Clear { forget }, Caller::Done)
            }
            Call::Query(query) => {
                let name = match &query {
                    Query::ReadFile { session, path } => {
                        if let Some(why) = self.nothing_to_read(session, path) {
                            return Err(RuntimeError::Rejected(why));
                        }
                        session.clone()
                    }
                    Query::Check { .. } => self.session_for_check(),
                    Query::Complete { session, .. } => session.clone(),
                };
                (name, Job::Query(query), Caller::Query)
            }
            Call::RestoreFiles { session, files } => {
                self.session_mut(&session).listed = true;
                if let Some(state) = self.sessions.get_mut(&session) {
                    state.scheduler.restore_files(files, &mut self.ids);
                }
                self.pump(&session);
                self.emit(Effect::Resolve(id, Reply::Done(Ok(()))));
                self.settle();
                return Ok((id, self.take()));
            }
        };
        self.callers.insert(id, caller);
        let session = self.session_mut(&name);
        session.last_used = now_ms;
        session.scheduler.submit(id, job);
        self.pump(&name);
        // The job takes its worker first (the spare, even while it loads),
        // then whatever else loads in the background gives way.
        self.place_waiting();
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
            Event::PostFailed(worker, error) => {
                if let Some(Role::Session(name)) = self.role(worker) {
                    self.emit(Effect::Log(Log::Error(error.to_string())));
                    self.restart(&name, StopReason::Crashed(error.to_string()));
                }
            }
            Event::Tick(Timer::Deadline(worker)) => self.on_deadline(worker),
            Event::Tick(Timer::Nudge) => self.on_nudge(),
            Event::Tick(Timer::Background) => self.on_background(),
            Event::Tick(Timer::Pool) => self.pool_armed = false,
            Event::Limits(limits) => self.limits = limits,
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

    /// After every call and event: waiting sessions get workers, background
    /// work is armed or stopped, sessions nobody needs are dropped, and
    /// changes of the sessions' states are told.
    fn settle(&mut self) {
        self.place_waiting();
        self.settle_background();
        self.sessions.retain(|_, session| {
            session.listed || session.worker.is_some() || !session.scheduler.is_empty()
        });
        let states = self.states();
        if states != self.told {
            self.told = states.clone();
            self.emit(Effect::Sessions(states));
        }
    }

    fn session_mut(&mut self, name: &str) -> &mut Session {
        let now_ms = self.now_ms;
        self.sessions
            .entry(name.to_owned())
            .or_insert_with(|| Session::new(name, now_ms))
    }

    /// The oldest worker in `role`.
    fn find(&self, role: &Role) -> Option<WorkerId> {
        let slot = self.workers.iter().find(|slot| slot.role == *role);
        slot.map(|slot| slot.id)
    }

    fn role(&self, worker: WorkerId) -> Option<Role> {
        let slot = self.workers.iter().find(|slot| slot.id == worker);
        slot.map(|slot| slot.role.clone())
    }

    fn stage(&self, worker: WorkerId) -> Option<Stage> {
        let slot = self.workers.iter().find(|slot| slot.id == worker);
        slot.map(|slot| slot.stage)
    }

    fn slot(&mut self, worker: WorkerId) -> Option<&mut Slot> {
        self.workers.iter_mut().find(|slot| slot.id == worker)
    }

    fn remove(&mut self, worker: WorkerId) -> Option<Slot> {
        let at = self.workers.iter().position(|slot| slot.id == worker)?;
        Some(self.workers.remove(at))
    }

    /// Workers that count against the pool's limit: the sessions' and the spare.
    fn live_workers(&self) -> usize {
        let counted = |slot: &&Slot| slot.role != Role::Maker;
        self.workers.iter().filter(counted).count()
    }

    /// Starts a worker whose messages are tagged with a new generation.
    fn spawn(&mut self, role: Role, start: Start) -> WorkerId {
        self.last_worker += 1;
        let worker = WorkerId(self.last_worker);
        let stage = match start {
            Start::Early => Stage::Created,
            Start::Python | Start::SnapshotMaker => Stage::Starting,
        };
        if let Role::Session(name) = &role {
            let name = name.clone();
            self.session_mut(&name).worker = Some(worker);
        }
        self.workers.push(Slot {
            id: worker,
            role,
            stage,
            background: false,
        });
        self.emit(Effect::Spawn { worker, start });
        worker
    }

    /// Ends a worker for good: whatever it says later is ignored. A
    /// session it served is left without one.
    fn retire(&mut self, worker: WorkerId) {
        if let Some(slot) = self.remove(worker) {
            if let Role::Session(name) = slot.role {
                self.set_deadline(&name, None);
                if let Some(session) = self.sessions.get_mut(&name) {
                    session.worker = None;
                    session.interrupting = None;
                }
            }
        }
        self.emit(Effect::Terminate(worker));
    }

    /// Sends `init` to the early worker once the guard has passed
    /// (`Ok(true)`), else starts a new one in its place; fails the start
    /// when the guard failed. Nothing when it has failed already.
    fn admit(&mut self, guarded: Result<bool, RuntimeError>) {
        if self.failure.is_some() {
            return;
        }
        let early = self
            .workers
            .iter()
            .find(|slot| slot.stage == Stage::Created)
            .map(|slot| (slot.id, slot.role.clone()));
        if let (Ok(true), Some((worker, _))) = (&guarded, &early) {
            self.admitted = true;
            if let Some(slot) = self.slot(*worker) {
                slot.stage = Stage::Starting;
            }
            self.emit(Effect::Init(*worker));
            return;
        }
        // Created from a script without its CSP (or not created at all), the
        // early worker is replaced.
        if let Some((worker, _)) = &early {
            self.remove(*worker);
        }
        if guarded.is_ok() {
            self.admitted = true;
            match &early {
                Some((_, role)) => {
                    self.spawn(role.clone(), Start::Python);
                }
                None if self.waiting.is_empty() && self.live_workers() == 0 => {
                    self.spawn(Role::Spare, Start::Python);
                }
                None => {}
            }
        }
        if let Some((worker, _)) = early {
            self.emit(Effect::Terminate(worker));
        }
        if let Err(error) = guarded {
            self.fail(error.to_string());
        }
    }

    fn on_spawn_failed(&mut self, worker: WorkerId, error: RuntimeError) {
        let Some(slot) = self.remove(worker) else {
            return;
        };
        if let Role::Session(name) = &slot.role {
            if let Some(session) = self.sessions.get_mut(name) {
                session.worker = None;
            }
        }
        match (slot.role, slot.stage) {
            // The guard's answer starts another, which reports why.
            (Role::Session(name), Stage::Created) => self.pump(&name),
            (_, Stage::Created) => {}
            (Role::Maker, _) => {
                let message = format!("could not start the snapshot maker: {error}");
                self.emit(Effect::Log(Log::Warning(message)));
            }
            _ if !self.ever_ready => self.fail(error.to_string()),
            (Role::Spare, _) => {
                let message = format!("could not start a spare worker: {error}");
                self.emit(Effect::Log(Log::Error(message)));
            }
            (Role::Session(name), _) => self.start_failed(&name, error.to_string()),
        }
    }

    /// Stops run `id`: a queued run never starts, a running one is stopped.
    /// A fresh run waiting in its worker is answered at once, as a queued
    /// one is; the worker still runs it, and nothing of it stays.
    fn cancel(&mut self, id: RunId) {
        let mut running = None;
        for (name, session) in &mut self.sessions {
            let behind = session.scheduler.ahead().any(|behind| behind == id);
            if behind || session.scheduler.cancel_waiting(id) {
                if let Some(Caller::Run(_)) = self.callers.get(&id) {
                    self.callers.remove(&id);
                    let result = outcome::stopped(&StopReason::Cancelled, &[], 0.0, None);
                    self.effects
                        .push(Effect::Resolve(id, Reply::Run(Ok(Box::new(result)))));
                }
                return;
            }
            if session.scheduler.in_flight() == Some(id) {
                running = Some(name.clone());
            }
        }
        if let Some(name) = running {
            self.stop(&name, id, StopReason::Cancelled);
        }
    }

    fn on_error(&mut self, worker: WorkerId, message: String) {
        let Some(role) = self.role(worker) else {
            return;
        };
        match role {
            Role::Maker => self.maker_finished(Some(message)),
            _ if !self.ever_ready => self.fail(message),
            Role::Spare => {
                let message = format!("the spare worker failed: {message}");
                self.emit(Effect::Log(Log::Error(message)));
                self.retire(worker);
            }
            Role::Session(name) => {
                if self.stage(worker) == Some(Stage::Ready) {
                    self.restart(&name, StopReason::Crashed(message));
                } else {
                    self.retire(worker);
                    self.start_failed(&name, message);
                }
            }
        }
    }

    /// The worker started for session `name` failed before it was ready:
    /// its callers hear why. Its ledger stays for the next worker to replay.
    fn start_failed(&mut self, name: &str, message: String) {
        self.emit(Effect::Log(Log::Error(format!(
            "a worker for session {} could not start: {message}",
            quoted(name)
        ))));
        self.waiting.retain(|waiting| waiting != name);
        let failed = match self.sessions.get_mut(name) {
            Some(session) => session.scheduler.fail_callers(),
            None => return,
        };
        self.fail_jobs(failed, &message);
    }

    fn on_message(&mut self, worker: WorkerId, message: WorkerMessage) {
        let Some(role) = self.role(worker) else {
            // A retired worker's last words.
            return;
        };
        match (role, message) {
            (_, WorkerMessage::Progress(progress)) => {
                if !self.ever_ready {
                    self.emit(Effect::Status(RuntimeStatus::Loading(progress)));
                }
            }
            (Role::Maker, WorkerMessage::SnapshotStored { .. }) => self.maker_finished(None),
            (Role::Maker, WorkerMessage::Fatal { message }) => self.maker_finished(Some(message)),
            // What the maker says besides is not for the app.
            (Role::Maker, _) => {}
            (
                role,
                WorkerMessage::Ready {
                    python,
                    pyodide,
                    snapshot,
                },
            ) => {
                if let Some(slot) = self.slot(worker) {
                    slot.stage = Stage::Ready;
                }
                if !self.ever_ready {
                    self.ever_ready = true;
                    self.first_start = Some(snapshot.clone());
                    self.emit(Effect::Status(RuntimeStatus::Ready {
                        python,
                        pyodide,
                        interrupts: self.interrupts,
                        snapshot,
                    }));
                }
                if let Role::Session(name) = role {
                    if let Some(session) = self.sessions.get_mut(&name) {
                        session.scheduler.set_ready();
                    }
                    self.pump(&name);
                }
            }
            (_, WorkerMessage::Fatal { message }) => self.on_error(worker, message),
            (Role::Session(name), message) => self.on_session_message(&name, message),
            // Jobs go to session workers only.
            (Role::Spare, _) => {}
        }
    }

    fn on_session_message(&mut self, name: &str, message: WorkerMessage) {
        match message {
            WorkerMessage::PackageProgress {
                id,
                packages,
                loaded,
                total,
            } => self.notify(
                id,
                RunEvent::Packages {
                    packages,
                    loaded,
                    total,
                },
            ),
            WorkerMessage::LoadingPackages { id } => {
                // Once the run is being stopped, the deadline is the
                // interrupt's grace period, which must keep running.
                if self.in_flight(name) == Some(id) && self.interrupting(name) != Some(id) {
                    self.set_deadline(name, None);
                }
                // Which packages is known once their downloads start.
                let packages = RunEvent::Packages {
                    packages: Vec::new(),
                    loaded: 0,
                    total: 0,
                };
                self.notify(id, packages);
            }
            WorkerMessage::Started { id } => self.start_clock(name, id),
            WorkerMessage::Stream { id, chunk } => {
                if let Some(Caller::Run(run)) = self.callers.get_mut(&id) {
                    run.streamed.push(chunk.clone());
                }
                self.notify(id, RunEvent::Output(chunk));
            }
            WorkerMessage::RunFailed {
                id,
                message,
                memory,
            } => {
                if self.in_flight(name) == Some(id) {
                    let reason = match memory {
                        Some(memory) if memory.limit_reached => {
                            StopReason::MemoryLimit(memory.limit_bytes, message)
                        }
                        _ => StopReason::Crashed(message),
                    };
                    self.restart(name, reason);
                }
            }
            WorkerMessage::Answer { id, answer, error } => {
                if self.in_flight(name) != Some(id) {
                    return;
                }
                let completions = self.complete(name, id, true, "");
                if let Some(Caller::Query) = self.callers.get(&id) {
                    self.callers.remove(&id);
                    let answer = answer.ok_or_else(|| {
                        RuntimeError::Rejected(
                            error.unwrap_or_else(|| "Python gave no answer".into()),
                        )
                    });
                    self.emit(Effect::Resolve(id, Reply::Query(answer)));
                }
                self.finish_job(name, completions);
            }
            WorkerMessage::Done { id, result } => self.on_done(name, id, *result),
            // Handled for every role in `on_message`, or the maker's alone.
            WorkerMessage::Progress(_)
            | WorkerMessage::Ready { .. }
            | WorkerMessage::Fatal { .. }
            | WorkerMessage::SnapshotStored { .. } => {}
        }
    }

    fn in_flight(&self, name: &str) -> Option<RunId> {
        self.sessions.get(name)?.scheduler.in_flight()
    }

    fn interrupting(&self, name: &str) -> Option<RunId> {
        self.sessions.get(name)?.interrupting
    }

    /// Job `id` of session `name` ended in its worker.
    fn complete(
        &mut self,
        name: &str,
        id: RunId,
        succeeded: bool,
        reason: &str,
    ) -> Vec<Completion> {
        self.set_deadline(name, None);
        let Some(session) = self.sessions.get_mut(name) else {
            return Vec::new();
        };
        session.interrupting = None;
        let done = session.scheduler.complete(id, succeeded, reason);
        // The run that waited in the worker behind it has begun.
        if let Some(next) = self.in_flight(name) {
            self.start_clock(name, next);
        }
        done
    }

    fn on_done(&mut self, name: &str, id: RunId, result: RunResult) {
        if self.in_flight(name) != Some(id) {
            return;
        }
        let succeeded = result.status == RunStatus::Ok;
        let reason = result
            .error
            .as_ref()
            .map(|e| format!("{}: {}", e.kind, e.message))
            .unwrap_or_default();
        let completions = self.complete(name, id, succeeded, &reason);
        if let Some(Caller::Run(run)) = self.callers.remove(&id) {
            // The runner streams nothing at the end: what it had not sent yet is
            // only in the result, and whoever follows the run hears it from here.
            for chunk in OutputChunk::unstreamed(&result.output, &run.streamed) {
                self.emit(Effect::Notify(id, RunEvent::Output(chunk)));
            }
            let mut result = match (&run.stop, result.status) {
                (Some(reason), RunStatus::Cancelled) => outcome::interrupted(result, reason),
                _ => outcome::with_memory_hint(outcome::with_network_hint(result)),
            };
            // The worker sent stdout and stderr empty: they are `output`, joined.
            result.share_output();
            if result.restored.is_none() {
                result.restored = self
                    .sessions
                    .get_mut(name)
                    .and_then(|session| session.scheduler.take_note());
            }
            self.emit(Effect::Resolve(id, Reply::Run(Ok(Box::new(result)))));
        }
        self.finish_job(name, completions);
    }

    /// A job of session `name` has finished: its results go out, the next job goes in.
    fn finish_job(&mut self, name: &str, completions: Vec<Completion>) {
        let now_ms = self.now_ms;
        if let Some(session) = self.sessions.get_mut(name) {
            session.last_used = now_ms;
        }
        self.resolve(completions);
        self.pump(name);
    }

    fn notify(&mut self, id: RunId, event: RunEvent) {
        if let Some(Caller::Run(_)) = self.callers.get(&id) {
            self.emit(Effect::Notify(id, event));
        }
    }

    /// Hands finished jobs their results.
    fn resolve(&mut self, completions: Vec<Completion>) {
        for completion in completions {
            match completion {
                // A run's own result comes with `done`, a query's with `answer`.
                Completion::Finished(id) => {
                    if let Some(Caller::Done) = self.callers.get(&id) {
                        self.callers.remove(&id);
                        self.emit(Effect::Resolve(id, Reply::Done(Ok(()))));
                    }
                }
                Completion::Restored(id, restoration) => {
                    let reply = match self.callers.remove(&id) {
                        Some(Caller::Done) => Reply::Done(Ok(())),
                        Some(Caller::Query) => {
                            let message = "the sandbox restarted before it could answer";
                            Reply::Query(Err(RuntimeError::Rejected(message.to_owned())))
                        }
                        Some(Caller::Run(run)) => {
                            let reason = run.stop.unwrap_or(StopReason::Crashed("unknown".into()));
                            let elapsed = run.started_ms.map(|t| self.now_ms - t).unwrap_or(0.0);
                            let result = outcome::stopped(
                                &reason,
                                &run.streamed,
                                elapsed,
                                Some(restoration),
                            );
                            Reply::Run(Ok(Box::new(result)))
                        }
                        None => continue,
                    };
                    self.emit(Effect::Resolve(id, reply));
                }
            }
        }
    }

    /// Jobs `ids` will never run: their callers hear `message`.
    fn fail_jobs(&mut self, ids: Vec<RunId>, message: &str) {
        for id in ids {
            let error = RuntimeError::Unavailable(message.to_owned());
            let reply = match self.callers.remove(&id) {
                Some(Caller::Run(_)) => Reply::Run(Err(error)),
                Some(Caller::Done) => Reply::Done(Err(error)),
                Some(Caller::Query) => Reply::Query(Err(error)),
                None => continue,
            };
            self.emit(Effect::Resolve(id, reply));
        }
    }

    /// Python cannot run any more: every waiting job fails with `message`.
    fn fail(&mut self, message: String) {
        self.failure = Some(message.clone());
        let workers: Vec<WorkerId> = self.workers.iter().map(|slot| slot.id).collect();
        for worker in workers {
            self.retire(worker);
        }
        self.waiting.clear();
        let mut failed = Vec::new();
        for (_, session) in self.sessions.iter_mut() {
            failed.extend(session.scheduler.drain());
        }
        self.fail_jobs(failed, &message);
        self.emit(Effect::Status(RuntimeStatus::Failed { message }));
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
