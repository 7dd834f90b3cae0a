//! The runtime's decisions: which worker does what, when and how a run is
//! stopped, and what each caller hears. Plain logic, tested natively: the
//! client tells it what happened ([`Event`]) and carries out what it
//! decides ([`Effect`]).
//!
//! The active worker takes jobs through the [`Scheduler`]. A run is stopped
//! with Pyodide's interrupt buffer when the page is cross-origin isolated
//! (state survives), otherwise by terminating the worker, promoting the
//! warm spare and replaying the ledger. When the active worker started
//! without a start-up snapshot, a third worker, the snapshot maker, stores
//! one before the spare starts (the spare then restores it), so the next
//! visit starts from it.

use std::collections::HashMap;

use super::outcome::{self, StopReason};
use super::scheduler::{Completion, Job, Scheduler};
use crate::protocol::{
    Answer, HostMessage, LoadProgress, OutputChunk, Query, RunId, RunRequest, RunResult, RunStatus,
    SnapshotUse, WorkerMessage,
};

/// How long an interrupted run may take to stop before its worker is terminated
/// (code stuck in C, or code that catches `KeyboardInterrupt`). Usually it
/// stops within milliseconds, but on a busy two-core machine, with the warm
/// spare compiling Pyodide at the same moment, an honoured interrupt can
/// take over a second to come back; terminating then would throw away the
/// session's state for nothing.
pub const INTERRUPT_GRACE_MS: u32 = 3_000;

/// How often an interrupt is written again while its run goes on. Pyodide
/// reads its interrupt buffer and then zeroes it in two steps, so a write
/// landing between them is lost; the runner lets only the first SIGINT of
/// a run reach the code, so the repeats are harmless.
pub const INTERRUPT_REPEAT_MS: u32 = 100;

/// How often the run in Python's hands is nudged to stream the output it
/// holds (see `_on_nudge` in runner.py): output written just before a long
/// computation is on screen this long after, at most, plus the runner's own
/// batching.
pub const NUDGE_MS: u32 = 100;

/// How long no job may have been queued or running before a background
/// worker (the snapshot maker, the warm spare) starts: loading Pyodide takes
/// a core for a second or more, and a chat UI's calls come in quick
/// succession, so a start in a gap between two of them would slow the next.
pub const BACKGROUND_IDLE_MS: u32 = 500;

/// What the runtime is doing, for the status line.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeStatus {
    /// Waiting for the service worker to guard Python: this host sends no
    /// security headers, and Python must not start without them.
    Securing,
    /// Starting up.
    Loading(LoadProgress),
    /// Runs go straight to Python.
    Ready {
        /// Python version.
        python: String,
        /// Pyodide version.
        pyodide: String,
        /// Runs are stopped by interrupt (state kept) rather than by restarting the worker.
        interrupts: bool,
        /// Whether Python was restored from the start-up snapshot.
        snapshot: SnapshotUse,
    },
    /// Python could not start; runs fail with this message.
    Failed {
        /// What went wrong.
        message: String,
    },
}

/// Something that happened to one run before its result.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEvent {
    /// The packages the run needs are downloading (this does not count against its timeout).
    Packages {
        /// Packages being loaded.
        packages: Vec<String>,
        /// Bytes downloaded so far.
        loaded: u64,
        /// Bytes of the downloads seen so far.
        total: u64,
    },
    /// The run is in Python's hands (again, after loading packages); its timeout runs from here.
    Started,
    /// The run wrote output.
    Output(OutputChunk),
}

/// Why a run produced no [`RunResult`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    /// The worker could not be created or spoken to.
    #[error("could not talk to the Python worker: {0}")]
    Worker(String),
    /// Python failed to start, so nothing can run.
    #[error("{0}")]
    Unavailable(String),
    /// The request was refused before it ran (its files are over the limit, say).
    #[error("{0}")]
    Rejected(String),
    /// The runtime was dropped before the run finished.
    #[error("the Python runtime was shut down")]
    Closed,
}

/// A run's result, or why there is none.
pub type Outcome = Result<Box<RunResult>, RuntimeError>;

/// One worker: the generation number its messages are tagged with, new for
/// every worker, so a retired worker's late messages are told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkerId(pub u64);

/// How a worker is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The worker index.html created as the page started (a new one when
    /// there is none): it loads Python by itself but takes code only once
    /// sent [`Effect::Init`].
    Early,
    /// A new worker, sent `init` at once.
    Python,
    /// The snapshot maker, sent `init` at once: it only stores a start-up snapshot.
    SnapshotMaker,
}

/// The client's timers: one at a time of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Timer {
    /// The timeout of the run in flight, or the next step of its interrupt.
    Deadline,
    /// The next nudge of the run in flight.
    Nudge,
    /// The runtime has been idle long enough to start a background worker.
    Background,
}

/// What a caller's job comes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A run's result.
    Run(Outcome),
    /// A cleared session.
    Clear(Result<(), RuntimeError>),
    /// A query's answer.
    Query(Result<Answer, RuntimeError>),
}

/// A message for the console: nothing the caller needs, but worth a look.
#[derive(Debug, Clone, PartialEq)]
pub enum Log {
    /// Not an error of the app (later starts just take longer, say).
    Warning(String),
    /// Something went wrong.
    Error(String),
}

/// A job a caller asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// Run code.
    Run(RunRequest),
    /// Empty a session; `forget` also drops it from the session list.
    Clear {
        /// The session.
        session: String,
        /// Delete rather than reset.
        forget: bool,
    },
    /// Ask Python something that changes no session.
    Query(Query),
}

/// Something that happened, for [`Supervisor::handle`].
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The page's check of the worker's CSP: `Ok(true)` when the worker's
    /// script came with its own CSP, `Ok(false)` when the service worker
    /// now adds it (a worker created before then is unguarded).
    Guarded(Result<bool, RuntimeError>),
    /// The check waits for the service worker to control the page.
    Securing,
    /// The caller cancelled run `id`.
    Cancel(RunId),
    /// A worker sent a message.
    Message(WorkerId, WorkerMessage),
    /// A worker died (its `error` event), with a description.
    Error(WorkerId, String),
    /// [`Effect::Spawn`] or [`Effect::Init`] failed; the worker is gone.
    SpawnFailed(WorkerId, RuntimeError),
    /// [`Effect::Post`] failed.
    PostFailed(WorkerId, RuntimeError),
    /// A timer started by [`Effect::StartTimer`] went off.
    Tick(Timer),
}

/// Something for the client to do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Start a worker; report a failure as [`Event::SpawnFailed`].
    Spawn {
        /// Its id.
        worker: WorkerId,
        /// How.
        start: Start,
    },
    /// Send the [`Start::Early`] worker `init`; report a failure as [`Event::SpawnFailed`].
    Init(WorkerId),
    /// Post a message to a worker; report a failure as [`Event::PostFailed`].
    Post(WorkerId, HostMessage),
    /// End a worker.
    Terminate(WorkerId),
    /// Write SIGINT into the interrupt buffer of a worker.
    Interrupt(WorkerId),
    /// Ask a worker's runner to stream the output it holds.
    Nudge(WorkerId),
    /// Start a timer of this kind (milliseconds), replacing the one running.
    StartTimer(Timer, u32),
    /// Stop the timer of this kind.
    CancelTimer(Timer),
    /// Tell run `id`'s caller what happened to it.
    Notify(RunId, RunEvent),
    /// Answer job `id`'s caller; it hears nothing more.
    Resolve(RunId, Reply),
    /// The runtime's status changed.
    Status(RuntimeStatus),
    /// Write to the console.
    Log(Log),
}

/// What a worker is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Takes the jobs.
    Active,
    /// Loads Python in advance, to replace the active worker.
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

/// Who waits for a job, and what is known of it so far.
#[derive(Debug)]
enum Caller {
    Run(PendingRun),
    Clear,
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

/// What the [`Timer::Deadline`] running means.
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

/// The runtime's state: its workers, its callers' jobs and its timers.
#[derive(Debug)]
pub struct Supervisor {
    /// Whether workers get an interrupt buffer (the page is cross-origin isolated).
    interrupts: bool,
    /// A handful at most, oldest first.
    workers: Vec<Slot>,
    last_worker: u64,
    /// A maker was started once: a failed one is not retried on this page
    /// (one that gave way to a job is).
    snapshot_attempted: bool,
    /// How the first worker to be ready started: a maker is due when it did
    /// not use a snapshot.
    first_start: Option<SnapshotUse>,
    /// The [`Timer::Background`] is running.
    background_armed: bool,
    scheduler: Scheduler,
    callers: HashMap<RunId, Caller>,
    deadline: Option<Deadline>,
    /// The run an interrupt was sent to; stopping it again means terminating.
    interrupting: Option<RunId>,
    /// A nudge timer is running (see [`Supervisor::keep_streaming`]).
    nudging: bool,
    /// Python was ready once: a later failure restarts rather than fails.
    ever_ready: bool,
    failure: Option<String>,
    now_ms: f64,
    effects: Vec<Effect>,
}

impl Supervisor {
    /// Starts the runtime (`interrupts`: whether workers get an interrupt
    /// buffer); returns the effects that start it.
    ///
    /// The worker index.html created is the active worker at once, so a
    /// script that fails to load fails the start. It takes code only once
    /// [`Event::Guarded`] says its CSP is in place.
    pub fn start(interrupts: bool) -> (Self, Vec<Effect>) {
        let mut supervisor = Self {
            interrupts,
            workers: Vec::new(),
            last_worker: 0,
            snapshot_attempted: false,
            first_start: None,
            background_armed: false,
            scheduler: Scheduler::new(),
            callers: HashMap::new(),
            deadline: None,
            interrupting: None,
            nudging: false,
            ever_ready: false,
            failure: None,
            now_ms: 0.0,
            effects: Vec::new(),
        };
        supervisor.spawn(Role::Active, Start::Early);
        let effects = supervisor.take();
        (supervisor, effects)
    }

    /// Sessions that have run code and were not deleted.
    pub fn sessions(&self) -> Vec<String> {
        self.scheduler.sessions()
    }

    /// Queues a caller's job at `now_ms`; returns its id and what to do now.
    ///
    /// A run is refused when Python has failed or its input files are over
    /// its limit. Jobs submitted before Python is ready wait and then run in order.
    pub fn submit(
        &mut self,
        now_ms: f64,
        call: Call,
    ) -> Result<(RunId, Vec<Effect>), RuntimeError> {
        self.now_ms = now_ms;
        let (job, caller) = match call {
            Call::Run(request) => {
                if let Some(message) = &self.failure {
                    return Err(RuntimeError::Unavailable(message.clone()));
                }
                if let Some(why) = oversized_input(&request) {
                    return Err(RuntimeError::Rejected(why));
                }
                (Job::Run(request), Caller::Run(PendingRun::default()))
            }
            Call::Clear { session, forget } => (Job::Clear { session, forget }, Caller::Clear),
            Call::Query(query) => (Job::Query(query), Caller::Query),
        };
        let (id, next) = self.scheduler.submit(job);
        self.callers.insert(id, caller);
        self.dispatch(next);
        self.give_way();
        self.settle_background();
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
                if self.role(worker) == Some(Role::Active) {
                    self.emit(Effect::Log(Log::Error(error.to_string())));
                    self.restart(StopReason::Crashed(error.to_string()));
                }
            }
            Event::Tick(Timer::Deadline) => self.on_deadline(),
            Event::Tick(Timer::Nudge) => self.on_nudge(),
            Event::Tick(Timer::Background) => self.on_background(),
        }
        self.settle_background();
        self.take()
    }

    fn take(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    fn emit(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// The oldest worker in `role`.
    fn find(&self, role: Role) -> Option<WorkerId> {
        let slot = self.workers.iter().find(|slot| slot.role == role);
        slot.map(|slot| slot.id)
    }

    fn role(&self, worker: WorkerId) -> Option<Role> {
        let slot = self.workers.iter().find(|slot| slot.id == worker);
        slot.map(|slot| slot.role)
    }

    fn slot(&mut self, worker: WorkerId) -> Option<&mut Slot> {
        self.workers.iter_mut().find(|slot| slot.id == worker)
    }

    fn remove(&mut self, worker: WorkerId) -> Option<Slot> {
        let at = self.workers.iter().position(|slot| slot.id == worker)?;
        Some(self.workers.remove(at))
    }

    /// Starts a worker whose messages are tagged with a new generation.
    fn spawn(&mut self, role: Role, start: Start) {
        self.last_worker += 1;
        let worker = WorkerId(self.last_worker);
        let stage = match start {
            Start::Early => Stage::Created,
            Start::Python | Start::SnapshotMaker => Stage::Starting,
        };
        self.workers.push(Slot {
            id: worker,
            role,
            stage,
            background: false,
        });
        self.emit(Effect::Spawn { worker, start });
    }

    /// Ends a worker for good: whatever it says later is ignored.
    fn retire(&mut self, worker: WorkerId) {
        self.remove(worker);
        self.emit(Effect::Terminate(worker));
    }

    /// Sends `init` to the early worker once the guard has passed
    /// (`Ok(true)`), else starts a new one; fails the start when the guard
    /// failed. Nothing when it has failed already.
    fn admit(&mut self, guarded: Result<bool, RuntimeError>) {
        if self.failure.is_some() {
            return;
        }
        let early = self.find(Role::Active);
        if let (Ok(true), Some(worker)) = (&guarded, early) {
            if let Some(slot) = self.slot(worker) {
                slot.stage = Stage::Starting;
            }
            self.emit(Effect::Init(worker));
            return;
        }
        // Created from a script without its CSP (or not created at all), the
        // early worker is replaced.
        if let Some(worker) = early {
            self.remove(worker);
        }
        if guarded.is_ok() {
            self.spawn(Role::Active, Start::Python);
        }
        if let Some(worker) = early {
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
        match (slot.role, slot.stage) {
            // The guard's answer starts another, which reports why.
            (Role::Active, Stage::Created) => {}
            (Role::Active, _) => self.fail(error.to_string()),
            (Role::Spare, _) => {
                let message = format!("could not start a spare worker: {error}");
                self.emit(Effect::Log(Log::Error(message)));
            }
            (Role::Maker, _) => {
                let message = format!("could not start the snapshot maker: {error}");
                self.emit(Effect::Log(Log::Warning(message)));
            }
        }
    }

    /// Stops run `id`: a queued run never starts, a running one is stopped.
    fn cancel(&mut self, id: RunId) {
        if self.scheduler.cancel_waiting(id) {
            if let Some(Caller::Run(_)) = self.callers.get(&id) {
                self.callers.remove(&id);
                let result = outcome::stopped(&StopReason::Cancelled, &[], 0.0, None);
                self.emit(Effect::Resolve(id, Reply::Run(Ok(Box::new(result)))));
            }
        } else if self.scheduler.in_flight() == Some(id) {
            self.stop(id, StopReason::Cancelled);
        }
    }

    fn on_error(&mut self, worker: WorkerId, message: String) {
        match self.role(worker) {
            Some(Role::Active) => {
                if self.ever_ready {
                    self.restart(StopReason::Crashed(message));
                } else {
                    self.fail(message);
                }
            }
            Some(Role::Spare) => {
                let message = format!("the spare worker failed: {message}");
                self.emit(Effect::Log(Log::Error(message)));
                self.retire(worker);
            }
            Some(Role::Maker) => self.maker_finished(Some(message)),
            None => {}
        }
    }

    fn on_message(&mut self, worker: WorkerId, message: WorkerMessage) {
        match (self.role(worker), message) {
            (Some(Role::Active), message) => self.on_active_message(worker, message),
            (Some(Role::Spare), WorkerMessage::Ready { .. }) => {
                if let Some(slot) = self.slot(worker) {
                    slot.stage = Stage::Ready;
                }
            }
            (Some(Role::Spare), WorkerMessage::Fatal { message }) => self.on_error(worker, message),
            (Some(Role::Maker), WorkerMessage::SnapshotStored { .. }) => self.maker_finished(None),
            (Some(Role::Maker), WorkerMessage::Fatal { message }) => {
                self.maker_finished(Some(message))
            }
            // Retired workers, and what helpers say besides.
            _ => {}
        }
    }

    fn on_active_message(&mut self, worker: WorkerId, message: WorkerMessage) {
        match message {
            WorkerMessage::Progress(progress) => {
                self.emit(Effect::Status(RuntimeStatus::Loading(progress)))
            }
            WorkerMessage::Ready {
                python,
                pyodide,
                snapshot,
            } => {
                self.ever_ready = true;
                if let Some(slot) = self.slot(worker) {
                    slot.stage = Stage::Ready;
                }
                let next = self.scheduler.set_ready();
                self.first_start.get_or_insert(snapshot.clone());
                self.emit(Effect::Status(RuntimeStatus::Ready {
                    python,
                    pyodide,
                    interrupts: self.interrupts,
                    snapshot,
                }));
                self.dispatch(next);
            }
            WorkerMessage::Fatal { message } => self.on_error(worker, message),
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
                if self.scheduler.in_flight() == Some(id) && self.interrupting != Some(id) {
                    self.set_deadline(None);
                }
                // Which packages is known once their downloads start.
                let packages = RunEvent::Packages {
                    packages: Vec::new(),
                    loaded: 0,
                    total: 0,
                };
                self.notify(id, packages);
            }
            WorkerMessage::Started { id } => self.start_clock(id),
            WorkerMessage::Stream { id, chunk } => {
                if let Some(Caller::Run(run)) = self.callers.get_mut(&id) {
                    run.streamed.push(chunk.clone());
                }
                self.notify(id, RunEvent::Output(chunk));
            }
            WorkerMessage::RunFailed { id, message } => {
                if self.scheduler.in_flight() == Some(id) {
                    self.restart(StopReason::Crashed(message));
                }
            }
            WorkerMessage::Answer { id, answer, error } => {
                let (completions, next) = self.scheduler.complete(id, true, "");
                if let Some(Caller::Query) = self.callers.get(&id) {
                    self.callers.remove(&id);
                    let answer = answer.ok_or_else(|| {
                        RuntimeError::Rejected(
                            error.unwrap_or_else(|| "Python gave no answer".into()),
                        )
                    });
                    self.emit(Effect::Resolve(id, Reply::Query(answer)));
                }
                self.finish_job(completions, next);
            }
            WorkerMessage::SessionCleared { id } => {
                self.set_deadline(None);
                let (completions, next) = self.scheduler.complete(id, true, "");
                self.finish_job(completions, next);
            }
            WorkerMessage::Done { id, result } => self.on_done(id, *result),
            // Only the snapshot maker sends it, and the maker is never the active worker.
            WorkerMessage::SnapshotStored { .. } => {}
        }
    }

    fn on_done(&mut self, id: RunId, result: RunResult) {
        if self.scheduler.in_flight() != Some(id) {
            return;
        }
        self.set_deadline(None);
        self.interrupting = None;
        let succeeded = result.status == RunStatus::Ok;
        let reason = result
            .error
            .as_ref()
            .map(|e| format!("{}: {}", e.kind, e.message))
            .unwrap_or_default();
        let (completions, next) = self.scheduler.complete(id, succeeded, &reason);
        if let Some(Caller::Run(run)) = self.callers.remove(&id) {
            // The runner streams nothing at the end: what it had not sent yet is
            // only in the result, and whoever follows the run hears it from here.
            for chunk in OutputChunk::unstreamed(&result.output, &run.streamed) {
                self.emit(Effect::Notify(id, RunEvent::Output(chunk)));
            }
            let mut result = match (&run.stop, result.status) {
                (Some(reason), RunStatus::Cancelled) => outcome::interrupted(result, reason),
                _ => outcome::with_network_hint(result),
            };
            // The worker sent stdout and stderr empty: they are `output`, joined.
            result.share_output();
            self.emit(Effect::Resolve(id, Reply::Run(Ok(Box::new(result)))));
        }
        self.finish_job(completions, next);
    }

    /// A job has finished: its results go out, the next job goes in.
    fn finish_job(&mut self, completions: Vec<Completion>, next: Option<HostMessage>) {
        self.resolve(completions);
        self.dispatch(next);
    }

    fn notify(&mut self, id: RunId, event: RunEvent) {
        if let Some(Caller::Run(_)) = self.callers.get(&id) {
            self.emit(Effect::Notify(id, event));
        }
    }

    /// Posts the job the scheduler chose, if any.
    fn dispatch(&mut self, next: Option<HostMessage>) {
        let Some(message) = next else { return };
        let Some(worker) = self.find(Role::Active) else {
            let error = RuntimeError::Closed.to_string();
            self.emit(Effect::Log(Log::Error(error.clone())));
            self.restart(StopReason::Crashed(error));
            return;
        };
        let run = match &message {
            HostMessage::Run { id, .. } => Some(*id),
            _ => None,
        };
        self.emit(Effect::Post(worker, message));
        // Python takes a run as soon as it arrives; only loading packages
        // (`loading_packages` to `started`) stops the clock.
        if let Some(id) = run {
            self.start_clock(id);
        }
    }

    /// Run `id` is in Python's hands: its timeout starts (again) in full.
    fn start_clock(&mut self, id: RunId) {
        if self.scheduler.in_flight() != Some(id) {
            return;
        }
        // A run stopped while its packages loaded keeps the interrupt's repeats.
        if self.interrupting != Some(id) {
            let timeout = self.scheduler.in_flight_timeout_ms();
            self.set_deadline(timeout.map(|limit| (Deadline::Timeout { id, limit }, limit)));
        }
        let now_ms = self.now_ms;
        let started = match self.callers.get_mut(&id) {
            Some(Caller::Run(run)) => {
                run.started_ms = Some(now_ms);
                true
            }
            _ => false,
        };
        self.keep_streaming();
        if started {
            self.emit(Effect::Notify(id, RunEvent::Started));
        }
    }

    /// Starts the deadline timer for `deadline` (after its milliseconds), or stops it.
    fn set_deadline(&mut self, deadline: Option<(Deadline, u32)>) {
        match deadline {
            Some((deadline, ms)) => {
                self.deadline = Some(deadline);
                self.emit(Effect::StartTimer(Timer::Deadline, ms));
            }
            None => {
                if self.deadline.take().is_some() {
                    self.emit(Effect::CancelTimer(Timer::Deadline));
                }
            }
        }
    }

    fn on_deadline(&mut self) {
        match self.deadline.take() {
            Some(Deadline::Timeout { id, limit }) => self.stop(id, StopReason::Timeout(limit)),
            Some(Deadline::Interrupt {
                id,
                reason,
                left_ms,
            }) => {
                let still = self.interrupting == Some(id) && self.scheduler.in_flight() == Some(id);
                if !still {
                    return;
                }
                match self.interruptible().filter(|_| left_ms > 0) {
                    Some(worker) => {
                        self.emit(Effect::Interrupt(worker));
                        self.repeat_interrupt(id, reason, left_ms);
                    }
                    None => self.restart(reason),
                }
            }
            None => {}
        }
    }

    /// While a run is in Python's hands, nudges it every [`NUDGE_MS`] to
    /// stream the output it holds. Only where runs can be interrupted: the
    /// nudge travels through the interrupt buffer, and without one the
    /// runner sends every line at once anyway. One timer serves runs that
    /// follow each other (it stops at the first tick that finds none in
    /// flight), not one per run.
    fn keep_streaming(&mut self) {
        if self.nudging || self.interruptible().is_none() {
            return;
        }
        self.nudging = true;
        self.emit(Effect::StartTimer(Timer::Nudge, NUDGE_MS));
    }

    fn on_nudge(&mut self) {
        if !self.nudging {
            return;
        }
        self.nudging = false;
        if self.scheduler.in_flight().is_none() {
            return;
        }
        if let Some(worker) = self.interruptible() {
            self.emit(Effect::Nudge(worker));
            self.keep_streaming();
        }
    }

    /// The active worker, if it has an interrupt buffer.
    fn interruptible(&self) -> Option<WorkerId> {
        self.find(Role::Active).filter(|_| self.interrupts)
    }

    /// Stops the job in flight: by interrupt when possible, else by restarting the worker.
    fn stop(&mut self, id: RunId, reason: StopReason) {
        if self.scheduler.in_flight() != Some(id) {
            return;
        }
        if let Some(Caller::Run(run)) = self.callers.get_mut(&id) {
            run.stop = Some(reason.clone());
        }
        let escalate = self.interrupting == Some(id);
        match self.interruptible().filter(|_| !escalate) {
            Some(worker) => {
                self.emit(Effect::Interrupt(worker));
                self.interrupting = Some(id);
                self.repeat_interrupt(id, reason, INTERRUPT_GRACE_MS);
            }
            None => self.restart(reason),
        }
    }

    /// While run `id` has not stopped, writes its interrupt again every
    /// [`INTERRUPT_REPEAT_MS`]; once `left_ms` are used up, terminates it.
    fn repeat_interrupt(&mut self, id: RunId, reason: StopReason, left_ms: u32) {
        let wait = left_ms.min(INTERRUPT_REPEAT_MS);
        let left_ms = left_ms - wait;
        self.set_deadline(Some((
            Deadline::Interrupt {
                id,
                reason,
                left_ms,
            },
            wait,
        )));
    }

    /// Replaces the active worker with the spare and replays the ledger into it.
    fn restart(&mut self, reason: StopReason) {
        let reason_text = match &reason {
            StopReason::Timeout(_) => "timed out while being replayed".to_owned(),
            StopReason::Cancelled => "cancelled while being replayed".to_owned(),
            StopReason::Crashed(detail) => format!("crashed while being replayed: {detail}"),
        };
        if let Some(id) = self.scheduler.in_flight() {
            if let Some(Caller::Run(run)) = self.callers.get_mut(&id) {
                run.stop.get_or_insert(reason);
            }
        }
        self.set_deadline(None);
        self.interrupting = None;
        let completions = self.scheduler.restart(&reason_text);
        if let Some(worker) = self.find(Role::Active) {
            self.retire(worker);
        }
        let promoted = self.find(Role::Spare).and_then(|worker| {
            let slot = self.slot(worker)?;
            slot.role = Role::Active;
            slot.background = false;
            Some(slot.stage == Stage::Ready)
        });
        self.resolve(completions);
        match promoted {
            Some(true) => {
                let next = self.scheduler.set_ready();
                self.dispatch(next);
            }
            // The spare is still loading: its `ready` continues the work.
            Some(false) => {}
            None => self.spawn(Role::Active, Start::Python),
        }
    }

    /// Hands finished jobs their results.
    fn resolve(&mut self, completions: Vec<Completion>) {
        for completion in completions {
            match completion {
                // A run's own result comes with `done`, a query's with `answer`.
                Completion::Finished(id) => {
                    if let Some(Caller::Clear) = self.callers.get(&id) {
                        self.callers.remove(&id);
                        self.emit(Effect::Resolve(id, Reply::Clear(Ok(()))));
                    }
                }
                Completion::Restored(id, restoration) => {
                    let reply = match self.callers.remove(&id) {
                        Some(Caller::Clear) => Reply::Clear(Ok(())),
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

    /// Python cannot run any more: every waiting job fails with `message`.
    fn fail(&mut self, message: String) {
        self.failure = Some(message.clone());
        self.set_deadline(None);
        let workers: Vec<WorkerId> = self.workers.iter().map(|slot| slot.id).collect();
        for worker in workers {
            self.retire(worker);
        }
        for id in self.scheduler.drain() {
            let error = RuntimeError::Unavailable(message.clone());
            let reply = match self.callers.remove(&id) {
                Some(Caller::Run(_)) => Reply::Run(Err(error)),
                Some(Caller::Clear) => Reply::Clear(Err(error)),
                Some(Caller::Query) => Reply::Query(Err(error)),
                None => continue,
            };
            self.emit(Effect::Resolve(id, reply));
        }
        self.emit(Effect::Status(RuntimeStatus::Failed { message }));
    }

    /// The background worker due now, if any: a start-up snapshot is made
    /// first when the first worker started without one (once per page), else
    /// a warm spare, so the next restart needs no cold start. The spare waits
    /// for the maker, so the two do not compete for the CPU and the spare
    /// itself starts from the new snapshot.
    fn background_due(&self) -> Option<Role> {
        if !self.ever_ready || self.failure.is_some() || self.find(Role::Maker).is_some() {
            return None;
        }
        let snapshot_used = self.first_start.as_ref() == Some(&SnapshotUse::Used);
        if !snapshot_used && !self.snapshot_attempted {
            Some(Role::Maker)
        } else if self.find(Role::Spare).is_none() {
            Some(Role::Spare)
        } else {
            None
        }
    }

    /// Whether no job is queued or running: only then may a background worker start.
    fn idle(&self) -> bool {
        self.scheduler.in_flight().is_none() && self.scheduler.waiting() == 0
    }

    /// Arms the background timer when a background worker is due and the
    /// runtime is idle; stops it when a job has come in meanwhile, so the
    /// idle time is counted again from the end of that job.
    fn settle_background(&mut self) {
        let wanted = self.idle() && self.background_due().is_some();
        if wanted && !self.background_armed {
            self.emit(Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS));
        } else if !wanted && self.background_armed {
            self.emit(Effect::CancelTimer(Timer::Background));
        }
        self.background_armed = wanted;
    }

    fn on_background(&mut self) {
        self.background_armed = false;
        if !self.idle() {
            return;
        }
        let start = match self.background_due() {
            Some(Role::Maker) => {
                self.snapshot_attempted = true;
                Start::SnapshotMaker
            }
            Some(_) => Start::Python,
            None => return,
        };
        let role = if start == Start::SnapshotMaker {
            Role::Maker
        } else {
            Role::Spare
        };
        self.spawn(role, start);
        if let Some(slot) = self.workers.last_mut() {
            slot.background = true;
        }
    }

    /// A job has come in: a background worker still loading gives way (a
    /// starting worker cannot be paused, and it would take the cores the job
    /// needs); it is started again once the runtime is idle.
    fn give_way(&mut self) {
        let loading: Vec<(WorkerId, Role)> = self
            .workers
            .iter()
            .filter(|slot| {
                slot.background && slot.role != Role::Active && slot.stage != Stage::Ready
            })
            .map(|slot| (slot.id, slot.role))
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
    fn maker_finished(&mut self, failure: Option<String>) {
        if let Some(message) = failure {
            // Not an error of the app: later starts simply start from scratch.
            let message = format!("no start-up snapshot was stored: {message}");
            self.emit(Effect::Log(Log::Warning(message)));
        }
        if let Some(worker) = self.find(Role::Maker) {
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
