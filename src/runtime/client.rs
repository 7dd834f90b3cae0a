//! The runtime client: the app's handle on Python. It owns the workers, the
//! timers and the callers' channels, tells the [`Supervisor`] what happens
//! to them and carries out what it decides.

use std::cell::{Ref, RefCell};
use std::future::Future;
use std::rc::{Rc, Weak};

use futures_channel::oneshot;
use leptos::logging::{error as console_error, warn as console_warn};
use litemap::LiteMap;

use super::clock::{now_ms, Clock};
use super::message::decode;
use super::pool::{PoolLimits, SessionsConfig};
use super::supervisor::{
    Call, Effect, Event, Log, Reply, RunEvent, RunReply, RuntimeError, RuntimeStatus, SessionState,
    Start, Supervisor, WorkerId,
};
use super::worker::{device, guard, interrupts_available, PythonWorker};
use crate::names::CONFIG_FILE;
use crate::protocol::{Answer, InputFile, RunId, RunRequest};

mod queries;

/// How to answer a job's caller: its channels.
enum ReplyTo {
    Run {
        on_event: Rc<dyn Fn(RunEvent)>,
        done: oneshot::Sender<RunReply>,
    },
    Done(oneshot::Sender<Result<(), RuntimeError>>),
    Query(oneshot::Sender<Result<Answer, RuntimeError>>),
}

impl ReplyTo {
    /// Sends `reply` (a caller that stopped waiting misses nothing).
    fn answer(self, reply: Reply) {
        match (self, reply) {
            (Self::Run { done, .. }, Reply::Run(outcome)) => {
                let _ = done.send(outcome);
            }
            (Self::Done(done), Reply::Done(outcome)) => {
                let _ = done.send(outcome);
            }
            (Self::Query(done), Reply::Query(outcome)) => {
                let _ = done.send(outcome);
            }
            // The supervisor replies to each job in the job's kind.
            _ => {}
        }
    }

    /// Answers a job refused before it was queued.
    fn refuse(self, error: RuntimeError) {
        let reply = match &self {
            Self::Run { .. } => Reply::Run(Err(error)),
            Self::Done(_) => Reply::Done(Err(error)),
            Self::Query(_) => Reply::Query(Err(error)),
        };
        self.answer(reply);
    }
}

/// The workers, timers and callers, and the supervisor that decides for them.
struct Inner {
    this: Weak<Inner>,
    supervisor: RefCell<Supervisor>,
    /// A handful, so a list.
    workers: RefCell<Vec<(WorkerId, PythonWorker)>>,
    clock: Clock,
    callers: RefCell<LiteMap<RunId, ReplyTo>>,
    on_status: Box<dyn Fn(RuntimeStatus)>,
    on_sessions: Box<dyn Fn(Vec<SessionState>)>,
}

/// The Python runtime as the rest of the app sees it.
pub struct Runtime {
    inner: Rc<Inner>,
}

impl Runtime {
    /// Starts loading Python; `on_status` hears every status change,
    /// including why Python could not start, and `on_sessions` what each
    /// session is doing whenever that changes.
    pub fn start(
        on_status: impl Fn(RuntimeStatus) + 'static,
        on_sessions: impl Fn(Vec<SessionState>) + 'static,
    ) -> Self {
        let (cores, memory_gib) = device();
        let limits = PoolLimits::for_device(cores, memory_gib);
        let (supervisor, effects) = Supervisor::start(interrupts_available(), limits);
        let inner = Rc::new_cyclic(|this| Inner {
            this: this.clone(),
            supervisor: RefCell::new(supervisor),
            workers: RefCell::new(Vec::new()),
            clock: {
                let this = this.clone();
                Clock::new(move |timer| {
                    if let Some(inner) = this.upgrade() {
                        inner.handle(Event::Tick(timer));
                    }
                })
            },
            callers: RefCell::new(LiteMap::new()),
            on_status: Box::new(on_status),
            on_sessions: Box::new(on_sessions),
        });
        inner.carry_out(effects);
        // The check's answer is often in before the app starts: `init` then
        // goes at once, not after the app has mounted (when the guard,
        // awaited, would resume).
        if super::gate::checked_early() {
            inner.handle(Event::Guarded(Ok(true)));
        } else {
            let weak = Rc::downgrade(&inner);
            leptos::task::spawn_local(async move {
                let securing = || {
                    if let Some(inner) = weak.upgrade() {
                        inner.handle(Event::Securing);
                    }
                };
                let guarded = guard(securing).await;
                if let Some(inner) = weak.upgrade() {
                    inner.handle(Event::Guarded(guarded));
                }
            });
        }
        let weak = Rc::downgrade(&inner);
        leptos::task::spawn_local(async move {
            match deployment_limits(limits).await {
                Ok(limits) => {
                    if let Some(inner) = weak.upgrade() {
                        inner.handle(Event::Limits(limits));
                    }
                }
                Err(why) => console_warn!("sandpit: {CONFIG_FILE}: {why}; the defaults stay"),
            }
        });
        Self { inner }
    }

    /// Queues `request`; `on_event` hears when it starts and what it prints.
    ///
    /// Returns the run's id (for [`Runtime::cancel`]) and its result. Runs
    /// of a session wait for the one before them; runs of different
    /// sessions run at the same time, each in its session's worker.
    pub fn run(
        &self,
        request: RunRequest,
        on_event: impl Fn(RunEvent) + 'static,
    ) -> (RunId, impl Future<Output = RunReply>) {
        let (done, receiver) = oneshot::channel();
        let on_event = Rc::new(on_event);
        let id = self
            .inner
            .submit(Call::Run(request), ReplyTo::Run { on_event, done });
        (id, async move {
            receiver.await.unwrap_or(Err(RuntimeError::Closed))
        })
    }

    /// Stops run `id`: a queued run never starts, a running one is stopped.
    /// Its result has status `cancelled`.
    pub fn cancel(&self, id: RunId) {
        self.inner.handle(Event::Cancel(id));
    }

    /// Answers call `call` of run `id` (a [`RunEvent::HostCall`]): its value
    /// as JSON text, or why there is none.
    pub fn answer_host_call(
        &self,
        id: RunId,
        call: u32,
        answer: Result<crate::js::bulk::Text, crate::protocol::HostCallError>,
    ) {
        let (value, error) = match answer {
            Ok(value) => (Some(value), None),
            Err(error) => (None, Some(error)),
        };
        self.inner.handle(Event::HostAnswer {
            id,
            call,
            value,
            error,
        });
    }

    /// Empties a session: its worker ends, so its next run starts in a fresh
    /// interpreter; `forget` also removes it from [`Runtime::sessions`].
    pub fn clear_session(
        &self,
        session: &str,
        forget: bool,
    ) -> impl Future<Output = Result<(), RuntimeError>> {
        let session = session.to_owned();
        self.done(Call::Clear { session, forget })
    }

    /// Puts files kept across a reload back into a session, before its next
    /// run (no worker is started for them alone).
    pub fn restore_files(
        &self,
        session: &str,
        files: Vec<InputFile>,
    ) -> impl Future<Output = Result<(), RuntimeError>> {
        let session = session.to_owned();
        self.done(Call::RestoreFiles { session, files })
    }

    fn done(&self, call: Call) -> impl Future<Output = Result<(), RuntimeError>> {
        let (done, receiver) = oneshot::channel();
        self.inner.submit(call, ReplyTo::Done(done));
        async move { receiver.await.unwrap_or(Err(RuntimeError::Closed)) }
    }

    /// Sessions that have run code and were not deleted.
    pub fn sessions(&self) -> Vec<String> {
        self.inner.supervisor.borrow().sessions()
    }

    /// What each session is doing.
    pub fn session_states(&self) -> Vec<SessionState> {
        self.inner.supervisor.borrow().session_states()
    }

    /// Session workers alive at once, at most, and each run's memory limit
    /// unless it sets its own: the device's, or the deployment's once read.
    pub fn limits(&self) -> PoolLimits {
        self.inner.supervisor.borrow().limits()
    }
}

impl Inner {
    /// Queues a caller's job; returns its id (0 for a refused run, answered at once).
    fn submit(&self, call: Call, caller: ReplyTo) -> RunId {
        let submitted = self.supervisor.borrow_mut().submit(now_ms(), call);
        match submitted {
            Ok((id, effects)) => {
                self.callers.borrow_mut().insert(id, caller);
                self.carry_out(effects);
                id
            }
            Err(error) => {
                caller.refuse(error);
                0
            }
        }
    }

    /// Tells the supervisor what happened and carries out its decision.
    /// Nothing is borrowed while effects run, so a callback may call back in.
    fn handle(&self, event: Event) {
        let effects = self.supervisor.borrow_mut().handle(now_ms(), event);
        self.carry_out(effects);
    }

    fn carry_out(&self, effects: Vec<Effect>) {
        for effect in effects {
            self.apply(effect);
        }
    }

    fn apply(&self, effect: Effect) {
        match effect {
            Effect::Spawn { worker, start } => match self.spawn(worker, start) {
                Ok(spawned) => {
                    self.workers.borrow_mut().push((worker, spawned));
                }
                Err(error) => self.handle(Event::SpawnFailed(worker, error)),
            },
            Effect::Init(worker) => {
                let sent = self.worker(worker).map(|w| w.init(false));
                if let Some(Err(error)) = sent {
                    self.remove(worker);
                    self.handle(Event::SpawnFailed(worker, error));
                }
            }
            Effect::Post(worker, message) => {
                let posted = self.worker(worker).map(|w| w.post(&message));
                if let Err(error) = posted.unwrap_or(Err(RuntimeError::Closed)) {
                    self.handle(Event::PostFailed(worker, error));
                }
            }
            Effect::Terminate(worker) => self.remove(worker),
            Effect::Interrupt(worker) => {
                if let Some(w) = self.worker(worker) {
                    w.interrupt();
                }
            }
            Effect::Nudge(worker) => {
                if let Some(w) = self.worker(worker) {
                    w.nudge();
                }
            }
            Effect::StartTimer(timer, ms) => self.clock.start(timer, ms),
            Effect::CancelTimer(timer) => self.clock.cancel(timer),
            Effect::Notify(id, event) => {
                let on_event = match self.callers.borrow().get(&id) {
                    Some(ReplyTo::Run { on_event, .. }) => Some(on_event.clone()),
                    _ => None,
                };
                if let Some(on_event) = on_event {
                    on_event(event);
                }
            }
            Effect::Resolve(id, reply) => {
                let caller = self.callers.borrow_mut().remove(&id);
                if let Some(caller) = caller {
                    caller.answer(reply);
                }
            }
            Effect::Status(status) => (self.on_status)(status),
            Effect::Sessions(states) => (self.on_sessions)(states),
            Effect::Log(Log::Warning(message)) => console_warn!("sandpit: {message}"),
            Effect::Log(Log::Error(message)) => console_error!("sandpit: {message}"),
        }
    }

    fn worker(&self, worker: WorkerId) -> Option<Ref<'_, PythonWorker>> {
        let workers = self.workers.borrow();
        Ref::filter_map(workers, |all| {
            all.iter().find(|(id, _)| *id == worker).map(|(_, w)| w)
        })
        .ok()
    }

    /// Drops a worker, which terminates it.
    fn remove(&self, worker: WorkerId) {
        self.workers.borrow_mut().retain(|(id, _)| *id != worker);
    }

    /// Starts a worker whose messages and errors are reported tagged with `worker`.
    fn spawn(&self, worker: WorkerId, start: Start) -> Result<PythonWorker, RuntimeError> {
        let make_snapshot = start == Start::SnapshotMaker;
        let on_message = {
            let this = self.this.clone();
            move |data| match decode(data) {
                Ok(message) => {
                    if let Some(inner) = this.upgrade() {
                        inner.handle(Event::Message(worker, message));
                    }
                }
                // A shape the protocol does not define: a bug on the worker side, made loud.
                Err(error) => console_error!("sandpit: malformed message from the worker: {error}"),
            }
        };
        let this = self.this.clone();
        let on_error = move |message| {
            if let Some(inner) = this.upgrade() {
                inner.handle(Event::Error(worker, message));
            }
        };
        let spawned =
            PythonWorker::spawn(start == Start::Early, make_snapshot, on_message, on_error)?;
        if start != Start::Early {
            spawned.init(make_snapshot)?;
        }
        Ok(spawned)
    }
}

/// The pool's limits with the deployment's `sessions` settings applied.
async fn deployment_limits(device: PoolLimits) -> Result<PoolLimits, String> {
    #[derive(serde::Deserialize)]
    struct Config {
        #[serde(default)]
        sessions: SessionsConfig,
    }
    let config: Config = crate::js::fetch::json(CONFIG_FILE).await?;
    device.with_config(&config.sessions)
}
