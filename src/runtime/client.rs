//! The runtime client: runs, sessions, timeouts, cancels and recovery.
//!
//! It owns the active worker and a warm spare, feeds jobs to the active one
//! through the [`Scheduler`], and stops runs: with Pyodide's interrupt buffer
//! when the page is cross-origin isolated (state survives), otherwise by
//! terminating the worker, promoting the spare and replaying the ledger.
//!
//! When the active worker started without a start-up snapshot, a third
//! worker, the snapshot maker, stores one before the spare starts (the
//! spare then restores it), so the next visit starts from it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::rc::{Rc, Weak};

use futures_channel::oneshot;
use leptos::logging::{error as console_error, warn as console_warn};
use wasm_bindgen::JsValue;

use super::message::decode;
use super::outcome::{self, StopReason};
use super::scheduler::{Completion, Job, Scheduler};
use super::timer::Timer;
use super::worker::{PythonWorker, WORKER_PATH};
use crate::protocol::{
    Answer, CheckReport, HostMessage, LoadProgress, OutputChunk, Query, RunId, RunRequest,
    RunResult, RunStatus, SnapshotUse, WorkerMessage,
};

/// How long an interrupted run may take to stop before its worker is terminated
/// (code stuck in C, or code that catches `KeyboardInterrupt`). Usually it
/// stops within milliseconds, but on a busy two-core machine, with the warm
/// spare compiling Pyodide at the same moment, an honoured interrupt was
/// measured to take over a second to come back; terminating then would
/// throw away the session's state for nothing.
const INTERRUPT_GRACE_MS: u32 = 3_000;

/// How often an interrupt is written again while its run goes on. Pyodide
/// reads its interrupt buffer and then zeroes it in two steps, so a write
/// landing between them is lost (about one in fifteen, in a tight loop);
/// the runner lets only the first SIGINT of a run reach the code, so the
/// repeats are harmless.
const INTERRUPT_REPEAT_MS: u32 = 100;

/// How often the run in Python's hands is nudged to stream the output it
/// holds (see `_on_nudge` in runner.py): output written just before a long
/// computation is on screen this long after, at most, plus the runner's own
/// 50 ms batching.
const NUDGE_MS: u32 = 100;

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

impl RuntimeError {
    pub(super) fn from_js(value: &JsValue) -> Self {
        Self::Worker(crate::js::error::message(value))
    }
}

type StatusCallback = Rc<dyn Fn(RuntimeStatus)>;
type EventCallback = Rc<dyn Fn(RunEvent)>;
type Outcome = Result<Box<RunResult>, RuntimeError>;

/// A caller's run, until its result arrives.
struct PendingRun {
    on_event: EventCallback,
    done: oneshot::Sender<Outcome>,
    /// Output streamed so far: the result of a run whose worker dies.
    streamed: Vec<OutputChunk>,
    started_ms: Option<f64>,
    /// Set when the host stopped it; decides the status it ends with.
    stop: Option<StopReason>,
}

/// A worker and the generation number its messages are tagged with.
struct Slot {
    generation: u64,
    worker: PythonWorker,
    ready: bool,
}

/// State shared between the client and its worker event handlers.
struct Shared {
    this: Weak<RefCell<Shared>>,
    active: Option<Slot>,
    spare: Option<Slot>,
    /// The worker storing a start-up snapshot, while it does.
    maker: Option<Slot>,
    /// A maker was started once: a failed one is not retried on this page.
    snapshot_attempted: bool,
    /// How the active worker started, while the maker or spare waits for the
    /// job it took on at ready to finish (see [`after_ready`]).
    helpers_waiting: Option<SnapshotUse>,
    generations: u64,
    scheduler: Scheduler,
    runs: HashMap<RunId, PendingRun>,
    clears: HashMap<RunId, oneshot::Sender<Result<(), RuntimeError>>>,
    queries: HashMap<RunId, oneshot::Sender<Result<Answer, RuntimeError>>>,
    /// The timeout of the job in flight, or the grace period of an interrupt.
    timer: Option<Timer>,
    /// The run an interrupt was sent to; stopping it again means terminating.
    interrupting: Option<RunId>,
    /// The next nudge of the run in flight (see [`keep_streaming`]).
    nudge: Option<Timer>,
    on_status: StatusCallback,
    failure: Option<String>,
    versions: Option<(String, String)>,
}

/// The Python runtime as the rest of the app sees it.
pub struct Runtime {
    shared: Rc<RefCell<Shared>>,
}

impl Runtime {
    /// Spawns the worker and starts loading Python; `on_status` hears every
    /// status change, including why Python could not start.
    pub fn start(on_status: impl Fn(RuntimeStatus) + 'static) -> Self {
        let shared = Rc::new_cyclic(|this| {
            RefCell::new(Shared {
                this: this.clone(),
                active: None,
                spare: None,
                maker: None,
                snapshot_attempted: false,
                helpers_waiting: None,
                generations: 0,
                scheduler: Scheduler::new(),
                runs: HashMap::new(),
                clears: HashMap::new(),
                queries: HashMap::new(),
                timer: None,
                interrupting: None,
                nudge: None,
                on_status: Rc::new(on_status),
                failure: None,
                versions: None,
            })
        });
        // The worker (the one index.html created as the page started, when
        // there is one) is the active worker at once, so a script that fails
        // to load fails the start. It starts Python by itself, but takes
        // code only over the port `init` brings, sent once the page's check
        // of its CSP passes; created from a script without its CSP, it is
        // replaced. (Should it fail to be created, `spawn` tries again in
        // `admit` and reports why.)
        if let Ok(slot) = create(&shared, false) {
            shared.borrow_mut().active = Some(slot);
        }
        // The check's answer is often in before the app starts: `init` then
        // goes at once, not after the app has mounted (when the guard,
        // awaited, would resume).
        if crate::pwa::worker_checked_early() {
            admit(&shared, Ok(true));
        } else {
            let weak = Rc::downgrade(&shared);
            leptos::task::spawn_local(async move {
                let guarded = guard(&weak).await;
                with_shared(&weak, |shared| admit(shared, guarded));
            });
        }
        Self { shared }
    }

    /// Queues `request`; `on_event` hears when it starts and what it prints.
    ///
    /// Returns the run's id (for [`Runtime::cancel`]) and its result. Runs
    /// submitted before Python is ready wait and then run in order.
    pub fn run(
        &self,
        request: RunRequest,
        on_event: impl Fn(RunEvent) + 'static,
    ) -> (RunId, impl Future<Output = Outcome>) {
        let (done, receiver) = oneshot::channel();
        let failure = self.shared.borrow().failure.clone();
        let refusal = failure
            .map(RuntimeError::Unavailable)
            .or_else(|| oversized_input(&request).map(RuntimeError::Rejected));
        let id = match refusal {
            Some(error) => {
                // The receiver is alive until this function returns, so the send cannot fail.
                let _ = done.send(Err(error));
                0
            }
            None => {
                let (id, next) = {
                    let mut state = self.shared.borrow_mut();
                    let (id, next) = state.scheduler.submit(Job::Run(request));
                    state.runs.insert(
                        id,
                        PendingRun {
                            on_event: Rc::new(on_event),
                            done,
                            streamed: Vec::new(),
                            started_ms: None,
                            stop: None,
                        },
                    );
                    (id, next)
                };
                dispatch(&self.shared, next);
                id
            }
        };
        (id, async move {
            receiver.await.unwrap_or(Err(RuntimeError::Closed))
        })
    }

    /// Stops run `id`: a queued run never starts, a running one is stopped.
    /// Its result has status `cancelled`.
    pub fn cancel(&self, id: RunId) {
        let queued = self.shared.borrow_mut().scheduler.cancel_waiting(id);
        if queued {
            let pending = self.shared.borrow_mut().runs.remove(&id);
            if let Some(pending) = pending {
                let result = outcome::stopped(&StopReason::Cancelled, &[], 0.0, None);
                let _ = pending.done.send(Ok(Box::new(result)));
            }
        } else if self.shared.borrow().scheduler.in_flight() == Some(id) {
            stop(&self.shared, id, StopReason::Cancelled);
        }
    }

    /// Empties a session's globals; `forget` also removes it from [`Runtime::sessions`].
    pub fn clear_session(
        &self,
        session: &str,
        forget: bool,
    ) -> impl Future<Output = Result<(), RuntimeError>> {
        let (done, receiver) = oneshot::channel();
        let (id, next) = self.shared.borrow_mut().scheduler.submit(Job::Clear {
            session: session.to_owned(),
            forget,
        });
        self.shared.borrow_mut().clears.insert(id, done);
        dispatch(&self.shared, next);
        async move { receiver.await.unwrap_or(Err(RuntimeError::Closed)) }
    }

    /// Reads a file from a session's working directory; resolves to its bytes, base64.
    ///
    /// For artifacts too large to come back with their run's result.
    pub fn read_file(
        &self,
        session: &str,
        path: &str,
    ) -> impl Future<Output = Result<String, RuntimeError>> {
        let answer = self.query(Query::ReadFile {
            session: session.to_owned(),
            path: path.to_owned(),
        });
        async move {
            match answer.await? {
                Answer::File { content_base64 } => Ok(content_base64),
                other => Err(unexpected(&other)),
            }
        }
    }

    /// Checks that `code` compiles and where its imports would come from, without running it.
    pub fn check(&self, code: &str) -> impl Future<Output = Result<CheckReport, RuntimeError>> {
        let answer = self.query(Query::Check {
            code: code.to_owned(),
        });
        async move {
            match answer.await? {
                Answer::Check { report } => Ok(report),
                other => Err(unexpected(&other)),
            }
        }
    }

    /// Queues `query` like a run (Python answers one thing at a time).
    fn query(&self, query: Query) -> impl Future<Output = Result<Answer, RuntimeError>> {
        let (done, receiver) = oneshot::channel();
        let (id, next) = self.shared.borrow_mut().scheduler.submit(Job::Query(query));
        self.shared.borrow_mut().queries.insert(id, done);
        dispatch(&self.shared, next);
        async move { receiver.await.unwrap_or(Err(RuntimeError::Closed)) }
    }

    /// Sessions that have run code and were not deleted.
    pub fn sessions(&self) -> Vec<String> {
        self.shared.borrow().scheduler.sessions()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        let mut state = self.shared.borrow_mut();
        state.timer = None;
        state.active = None;
        state.spare = None;
        state.maker = None;
    }
}

/// Sends `init` to the active worker once `guard` has passed (`Ok(true)`:
/// the worker was created from a script with its CSP), else spawns a new
/// one; fails the start when the guard failed. Nothing when it has failed already.
fn admit(shared: &Rc<RefCell<Shared>>, guarded: Result<bool, RuntimeError>) {
    if shared.borrow().failure.is_some() {
        return;
    }
    let early = shared.borrow_mut().active.take();
    let started = guarded.and_then(|served_with_csp| match early {
        Some(slot) if served_with_csp => slot.worker.init(false).map(|()| slot),
        _ => spawn(shared, false),
    });
    match started {
        Ok(slot) => shared.borrow_mut().active = Some(slot),
        Err(error) => fail(shared, error.to_string()),
    }
}

/// Resolves when the worker's script will run under its own CSP: at once
/// where the host sends it (true), else once the service worker (which adds
/// it) controls the page (false: a worker created before then is unguarded).
/// No code reaches Python without it.
async fn guard(weak: &Weak<RefCell<Shared>>) -> Result<bool, RuntimeError> {
    let unguarded = |e: crate::pwa::PwaError| RuntimeError::Unavailable(e.to_string());
    if !crate::pwa::worker_needs_service_worker(WORKER_PATH)
        .await
        .map_err(unguarded)?
    {
        return Ok(true);
    }
    with_shared(weak, |shared| {
        // Unless the start has failed already (the worker's script did not load).
        if shared.borrow().failure.is_none() {
            let on_status = shared.borrow().on_status.clone();
            on_status(RuntimeStatus::Securing);
        }
    });
    crate::pwa::wait_for_service_worker(WORKER_PATH)
        .await
        .map_err(unguarded)?;
    Ok(false)
}

/// A worker that answered a query with another query's kind of answer.
fn unexpected(answer: &Answer) -> RuntimeError {
    RuntimeError::Rejected(format!(
        "the worker gave an answer of the wrong kind: {}",
        answer.kind()
    ))
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

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// Starts a worker whose messages are tagged with a new generation
/// (`make_snapshot`: the snapshot maker, see [`PythonWorker::init`]).
fn spawn(shared: &Rc<RefCell<Shared>>, make_snapshot: bool) -> Result<Slot, RuntimeError> {
    let slot = create(shared, make_snapshot)?;
    slot.worker.init(make_snapshot)?;
    Ok(slot)
}

/// Creates a worker, tagged with a new generation, that takes code only once sent `init`.
fn create(shared: &Rc<RefCell<Shared>>, make_snapshot: bool) -> Result<Slot, RuntimeError> {
    let (generation, this) = {
        let mut state = shared.borrow_mut();
        state.generations += 1;
        (state.generations, state.this.clone())
    };
    let on_message = {
        let this = this.clone();
        move |data| with_shared(&this, |shared| on_worker_message(shared, generation, data))
    };
    let on_error =
        move |message| with_shared(&this, |shared| on_worker_error(shared, generation, message));
    Ok(Slot {
        generation,
        worker: PythonWorker::spawn(make_snapshot, on_message, on_error)?,
        ready: false,
    })
}

fn with_shared(weak: &Weak<RefCell<Shared>>, body: impl FnOnce(&Rc<RefCell<Shared>>)) {
    if let Some(shared) = weak.upgrade() {
        body(&shared);
    }
}

/// Starts a warm spare unless there is one: the next restart then needs no cold start.
fn ensure_spare(shared: &Rc<RefCell<Shared>>) {
    if shared.borrow().spare.is_some() {
        return;
    }
    match spawn(shared, false) {
        Ok(slot) => shared.borrow_mut().spare = Some(slot),
        Err(error) => console_error!("sandpit: could not start a spare worker: {error}"),
    }
}

/// After the active worker is ready and has finished the job waiting for it,
/// if there was one: a start-up snapshot is made first when it started
/// without one (once per page), else the warm spare is started. The spare
/// waits for the maker, so the two do not compete for the CPU and the spare
/// itself starts from the new snapshot. Neither starts while the first run
/// runs: loading Pyodide again took the cores that run needed, and the first
/// result came about 200 ms later on a return visit (2 cores).
fn after_ready(shared: &Rc<RefCell<Shared>>, snapshot: &SnapshotUse) {
    let make = {
        let mut state = shared.borrow_mut();
        let make =
            *snapshot != SnapshotUse::Used && !state.snapshot_attempted && state.maker.is_none();
        state.snapshot_attempted |= make;
        make
    };
    if !make {
        ensure_spare(shared);
        return;
    }
    match spawn(shared, true) {
        Ok(slot) => shared.borrow_mut().maker = Some(slot),
        Err(error) => {
            console_warn!("sandpit: could not start the snapshot maker: {error}");
            ensure_spare(shared);
        }
    }
}

/// The snapshot maker is done (`failure` says why it stored nothing): it is
/// terminated, and the spare it held back starts.
fn maker_finished(shared: &Rc<RefCell<Shared>>, failure: Option<String>) {
    if let Some(message) = failure {
        // Not an error of the app: later starts simply start from scratch.
        console_warn!("sandpit: no start-up snapshot was stored: {message}");
    }
    shared.borrow_mut().maker = None;
    ensure_spare(shared);
}

/// Posts the job the scheduler chose, if any.
fn dispatch(shared: &Rc<RefCell<Shared>>, next: Option<HostMessage>) {
    let Some(message) = next else { return };
    let posted = match shared.borrow().active.as_ref() {
        Some(slot) => slot.worker.post(&message),
        None => Err(RuntimeError::Closed),
    };
    if let Err(error) = posted {
        console_error!("sandpit: {error}");
        restart(shared, StopReason::Crashed(error.to_string()));
    } else if let HostMessage::Run { id, .. } = message {
        // Python takes a run as soon as it arrives; only loading packages
        // (`loading_packages` to `started`) stops the clock.
        start_clock(shared, id);
    }
}

/// Run `id` is in Python's hands: its timeout starts (again) in full.
fn start_clock(shared: &Rc<RefCell<Shared>>, id: RunId) {
    let (timeout_ms, this) = {
        let state = shared.borrow();
        if state.scheduler.in_flight() != Some(id) {
            return;
        }
        (state.scheduler.in_flight_timeout_ms(), state.this.clone())
    };
    let timer = timeout_ms.and_then(|limit| {
        Timer::start(limit, move || {
            with_shared(&this, |shared| stop(shared, id, StopReason::Timeout(limit)))
        })
    });
    let on_event = {
        let mut state = shared.borrow_mut();
        // A run stopped while its packages loaded keeps the interrupt's repeats.
        if state.interrupting != Some(id) {
            state.timer = timer;
        }
        state.runs.get_mut(&id).map(|run| {
            run.started_ms = Some(now_ms());
            run.on_event.clone()
        })
    };
    keep_streaming(shared);
    if let Some(on_event) = on_event {
        on_event(RunEvent::Started);
    }
}

/// While a run is in Python's hands, nudges it every [`NUDGE_MS`] to stream
/// the output it holds. Only where runs can be interrupted: the nudge
/// travels through the interrupt buffer, and without one the runner sends
/// every line at once anyway. One timer serves runs that follow each other
/// (it stops at the first tick that finds none in flight), not one per run.
fn keep_streaming(shared: &Rc<RefCell<Shared>>) {
    let this = {
        let state = shared.borrow();
        let interrupts = state
            .active
            .as_ref()
            .is_some_and(|slot| slot.worker.can_interrupt());
        if state.nudge.is_some() || !interrupts {
            return;
        }
        state.this.clone()
    };
    let next = Timer::start(NUDGE_MS, move || {
        with_shared(&this, |shared| {
            let nudged = {
                let mut state = shared.borrow_mut();
                state.nudge = None;
                state.scheduler.in_flight().is_some()
                    && state
                        .active
                        .as_ref()
                        .is_some_and(|slot| slot.worker.nudge())
            };
            if nudged {
                keep_streaming(shared);
            }
        })
    });
    shared.borrow_mut().nudge = next;
}

/// Tells a run's caller what it sent, outside any borrow of the shared state.
fn notify(shared: &Rc<RefCell<Shared>>, id: RunId, event: RunEvent) {
    let on_event = shared
        .borrow()
        .runs
        .get(&id)
        .map(|run| run.on_event.clone());
    if let Some(on_event) = on_event {
        on_event(event);
    }
}

/// Stops the job in flight: by interrupt when possible, else by restarting the worker.
fn stop(shared: &Rc<RefCell<Shared>>, id: RunId, reason: StopReason) {
    if shared.borrow().scheduler.in_flight() != Some(id) {
        return;
    }
    let interrupted = {
        let mut state = shared.borrow_mut();
        if let Some(run) = state.runs.get_mut(&id) {
            run.stop = Some(reason.clone());
        }
        let escalate = state.interrupting == Some(id);
        let sent = !escalate
            && state
                .active
                .as_ref()
                .is_some_and(|slot| slot.worker.interrupt());
        if sent {
            state.interrupting = Some(id);
        }
        sent
    };
    if interrupted {
        repeat_interrupt(shared, id, reason, INTERRUPT_GRACE_MS);
    } else {
        restart(shared, reason);
    }
}

/// While run `id` has not stopped, writes its interrupt again every
/// [`INTERRUPT_REPEAT_MS`]; once `left_ms` are used up, terminates it.
fn repeat_interrupt(shared: &Rc<RefCell<Shared>>, id: RunId, reason: StopReason, left_ms: u32) {
    let this = shared.borrow().this.clone();
    let wait = left_ms.min(INTERRUPT_REPEAT_MS);
    let next = Timer::start(wait, move || {
        with_shared(&this, |shared| {
            let still = {
                let state = shared.borrow();
                state.interrupting == Some(id) && state.scheduler.in_flight() == Some(id)
            };
            if !still {
                return;
            }
            let left = left_ms - wait;
            let repeated = left > 0
                && shared
                    .borrow()
                    .active
                    .as_ref()
                    .is_some_and(|slot| slot.worker.interrupt());
            if repeated {
                repeat_interrupt(shared, id, reason, left);
            } else {
                restart(shared, reason);
            }
        })
    });
    shared.borrow_mut().timer = next;
}

/// Replaces the active worker with the spare and replays the ledger into it.
fn restart(shared: &Rc<RefCell<Shared>>, reason: StopReason) {
    let reason_text = match &reason {
        StopReason::Timeout(_) => "timed out while being replayed".to_owned(),
        StopReason::Cancelled => "cancelled while being replayed".to_owned(),
        StopReason::Crashed(detail) => format!("crashed while being replayed: {detail}"),
    };
    let (completions, promoted_ready) = {
        let mut state = shared.borrow_mut();
        if let Some(id) = state.scheduler.in_flight() {
            if let Some(run) = state.runs.get_mut(&id) {
                run.stop.get_or_insert(reason);
            }
        }
        state.timer = None;
        state.interrupting = None;
        // The worker they waited for is gone; its successor's `ready` decides.
        state.helpers_waiting = None;
        let completions = state.scheduler.restart(&reason_text);
        // Dropping the old slot terminates its worker.
        state.active = state.spare.take();
        let promoted_ready = state.active.as_ref().map(|slot| slot.ready);
        (completions, promoted_ready)
    };
    resolve(shared, completions);
    match promoted_ready {
        Some(true) => {
            let next = shared.borrow_mut().scheduler.set_ready();
            dispatch(shared, next);
            ensure_spare(shared);
        }
        // The spare is still loading: its `ready` continues the work.
        Some(false) => {}
        None => match spawn(shared, false) {
            Ok(slot) => shared.borrow_mut().active = Some(slot),
            Err(error) => fail(shared, error.to_string()),
        },
    }
}

/// Hands finished jobs their results.
fn resolve(shared: &Rc<RefCell<Shared>>, completions: Vec<Completion>) {
    for completion in completions {
        match completion {
            // A run's own result is sent by `on_done`; a finished clear is resolved here.
            Completion::Finished(id) => {
                let clear = shared.borrow_mut().clears.remove(&id);
                if let Some(done) = clear {
                    let _ = done.send(Ok(()));
                }
            }
            Completion::Restored(id, restoration) => {
                let (pending, clear, query) = {
                    let mut state = shared.borrow_mut();
                    (
                        state.runs.remove(&id),
                        state.clears.remove(&id),
                        state.queries.remove(&id),
                    )
                };
                if let Some(done) = clear {
                    let _ = done.send(Ok(()));
                }
                if let Some(done) = query {
                    let message = "the sandbox restarted before it could answer".to_owned();
                    let _ = done.send(Err(RuntimeError::Rejected(message)));
                }
                if let Some(run) = pending {
                    let reason = run.stop.unwrap_or(StopReason::Crashed("unknown".into()));
                    let elapsed = run.started_ms.map(|t| now_ms() - t).unwrap_or(0.0);
                    let result =
                        outcome::stopped(&reason, &run.streamed, elapsed, Some(restoration));
                    let _ = run.done.send(Ok(Box::new(result)));
                }
            }
        }
    }
}

/// Python cannot run any more: every waiting job fails with `message`.
fn fail(shared: &Rc<RefCell<Shared>>, message: String) {
    let (on_status, runs, clears, queries) = {
        let mut state = shared.borrow_mut();
        state.failure = Some(message.clone());
        state.timer = None;
        state.active = None;
        state.spare = None;
        state.maker = None;
        let ids = state.scheduler.drain();
        let runs: Vec<_> = ids.iter().filter_map(|id| state.runs.remove(id)).collect();
        let clears: Vec<_> = ids
            .iter()
            .filter_map(|id| state.clears.remove(id))
            .collect();
        let queries: Vec<_> = ids
            .iter()
            .filter_map(|id| state.queries.remove(id))
            .collect();
        (state.on_status.clone(), runs, clears, queries)
    };
    for run in runs {
        let _ = run
            .done
            .send(Err(RuntimeError::Unavailable(message.clone())));
    }
    for clear in clears {
        let _ = clear.send(Err(RuntimeError::Unavailable(message.clone())));
    }
    for query in queries {
        let _ = query.send(Err(RuntimeError::Unavailable(message.clone())));
    }
    on_status(RuntimeStatus::Failed { message });
}

/// Which of our workers sent a message.
#[derive(PartialEq)]
enum Sender {
    Active,
    Spare,
    Maker,
    Retired,
}

fn sender(shared: &Rc<RefCell<Shared>>, generation: u64) -> Sender {
    let state = shared.borrow();
    if state
        .active
        .as_ref()
        .is_some_and(|s| s.generation == generation)
    {
        Sender::Active
    } else if state
        .spare
        .as_ref()
        .is_some_and(|s| s.generation == generation)
    {
        Sender::Spare
    } else if state
        .maker
        .as_ref()
        .is_some_and(|s| s.generation == generation)
    {
        Sender::Maker
    } else {
        Sender::Retired
    }
}

fn on_worker_error(shared: &Rc<RefCell<Shared>>, generation: u64, message: String) {
    match sender(shared, generation) {
        Sender::Active => {
            let ever_ready = shared.borrow().versions.is_some();
            if ever_ready {
                restart(shared, StopReason::Crashed(message));
            } else {
                fail(shared, message);
            }
        }
        Sender::Spare => {
            console_error!("sandpit: the spare worker failed: {message}");
            shared.borrow_mut().spare = None;
        }
        Sender::Maker => maker_finished(shared, Some(message)),
        Sender::Retired => {}
    }
}

fn on_worker_message(shared: &Rc<RefCell<Shared>>, generation: u64, data: JsValue) {
    let message = match decode(data) {
        Ok(message) => message,
        Err(error) => {
            // A shape the protocol does not define: a bug on the worker side, made loud.
            console_error!("sandpit: malformed message from the worker: {error}");
            return;
        }
    };
    match sender(shared, generation) {
        Sender::Active => on_active_message(shared, message),
        Sender::Spare => match message {
            WorkerMessage::Ready { .. } => {
                if let Some(slot) = shared.borrow_mut().spare.as_mut() {
                    slot.ready = true;
                }
            }
            WorkerMessage::Fatal { message } => on_worker_error(shared, generation, message),
            _ => {}
        },
        Sender::Maker => match message {
            WorkerMessage::SnapshotStored { .. } => maker_finished(shared, None),
            WorkerMessage::Fatal { message } => maker_finished(shared, Some(message)),
            _ => {}
        },
        Sender::Retired => {}
    }
}

fn on_active_message(shared: &Rc<RefCell<Shared>>, message: WorkerMessage) {
    let on_status = shared.borrow().on_status.clone();
    match message {
        WorkerMessage::Progress(progress) => on_status(RuntimeStatus::Loading(progress)),
        WorkerMessage::Ready {
            python,
            pyodide,
            snapshot,
        } => {
            let (next, interrupts) = {
                let mut state = shared.borrow_mut();
                state.versions = Some((python.clone(), pyodide.clone()));
                let interrupts = state.active.as_mut().is_some_and(|slot| {
                    slot.ready = true;
                    slot.worker.can_interrupt()
                });
                (state.scheduler.set_ready(), interrupts)
            };
            on_status(RuntimeStatus::Ready {
                python,
                pyodide,
                interrupts,
                snapshot: snapshot.clone(),
            });
            let busy = next.is_some();
            dispatch(shared, next);
            if busy {
                shared.borrow_mut().helpers_waiting = Some(snapshot);
            } else {
                after_ready(shared, &snapshot);
            }
        }
        WorkerMessage::Fatal { message } => {
            let ever_ready = shared.borrow().versions.is_some();
            if ever_ready {
                restart(shared, StopReason::Crashed(message));
            } else {
                fail(shared, message);
            }
        }
        WorkerMessage::PackageProgress {
            id,
            packages,
            loaded,
            total,
        } => notify(
            shared,
            id,
            RunEvent::Packages {
                packages,
                loaded,
                total,
            },
        ),
        WorkerMessage::LoadingPackages { id } => {
            {
                // Once the run is being stopped, the timer is the interrupt's
                // grace period, which must keep running.
                let mut state = shared.borrow_mut();
                if state.scheduler.in_flight() == Some(id) && state.interrupting != Some(id) {
                    state.timer = None;
                }
            }
            // Which packages is known once their downloads start.
            let packages = RunEvent::Packages {
                packages: Vec::new(),
                loaded: 0,
                total: 0,
            };
            notify(shared, id, packages);
        }
        WorkerMessage::Started { id } => start_clock(shared, id),
        WorkerMessage::Stream { id, chunk } => {
            if let Some(run) = shared.borrow_mut().runs.get_mut(&id) {
                run.streamed.push(chunk.clone());
            }
            notify(shared, id, RunEvent::Output(chunk));
        }
        WorkerMessage::RunFailed { id, message } => {
            if shared.borrow().scheduler.in_flight() == Some(id) {
                restart(shared, StopReason::Crashed(message));
            }
        }
        WorkerMessage::Answer { id, answer, error } => {
            let (completions, next, query) = {
                let mut state = shared.borrow_mut();
                let (completions, next) = state.scheduler.complete(id, true, "");
                (completions, next, state.queries.remove(&id))
            };
            if let Some(done) = query {
                let outcome = answer.ok_or_else(|| {
                    RuntimeError::Rejected(error.unwrap_or_else(|| "Python gave no answer".into()))
                });
                let _ = done.send(outcome);
            }
            finish_job(shared, completions, next);
        }
        WorkerMessage::SessionCleared { id } => {
            let (completions, next) = {
                let mut state = shared.borrow_mut();
                state.timer = None;
                state.scheduler.complete(id, true, "")
            };
            finish_job(shared, completions, next);
        }
        WorkerMessage::Done { id, result } => on_done(shared, id, result),
        // Only the snapshot maker sends it, and the maker is never the active worker.
        WorkerMessage::SnapshotStored { .. } => {}
    }
}

fn on_done(shared: &Rc<RefCell<Shared>>, id: RunId, result: Box<RunResult>) {
    let (completions, next, pending) = {
        let mut state = shared.borrow_mut();
        if state.scheduler.in_flight() != Some(id) {
            return;
        }
        state.timer = None;
        state.interrupting = None;
        let succeeded = result.status == RunStatus::Ok;
        let reason = result
            .error
            .as_ref()
            .map(|e| format!("{}: {}", e.kind, e.message))
            .unwrap_or_default();
        let (completions, next) = state.scheduler.complete(id, succeeded, &reason);
        (completions, next, state.runs.remove(&id))
    };
    if let Some(run) = pending {
        // The runner streams nothing at the end: what it had not sent yet is
        // only in the result, and whoever follows the run hears it from here.
        for chunk in OutputChunk::unstreamed(&result.output, &run.streamed) {
            (run.on_event)(RunEvent::Output(chunk));
        }
        let mut result = match (&run.stop, result.status) {
            (Some(reason), RunStatus::Cancelled) => outcome::interrupted(*result, reason),
            _ => outcome::with_network_hint(*result),
        };
        // The worker sent stdout and stderr empty: they are `output`, joined.
        result.share_output();
        let _ = run.done.send(Ok(Box::new(result)));
    }
    finish_job(shared, completions, next);
}

/// A job has finished: its results go out, the next job goes in, and the
/// helpers held back at ready start.
fn finish_job(
    shared: &Rc<RefCell<Shared>>,
    completions: Vec<Completion>,
    next: Option<HostMessage>,
) {
    resolve(shared, completions);
    dispatch(shared, next);
    let waiting = shared.borrow_mut().helpers_waiting.take();
    if let Some(snapshot) = waiting {
        after_ready(shared, &snapshot);
    }
}
