//! The supervisor: a worker per session from a pool, how runs are stopped,
//! how a session's worker is replaced or parked and its state replayed, and
//! when the background workers (snapshot maker, warm spare) start, driven
//! through its events and checked by the effects it decides.

use sandpit::protocol::{
    Answer, CheckReport, HintCode, HostMessage, InputFile, MemoryUse, OutputChunk, OutputLimits,
    Query, RunId, RunRequest, RunResult, RunStatus, SnapshotUse, StreamName, WorkerMessage,
};
use sandpit::runtime::outcome::{stopped, StopReason};
use sandpit::runtime::pool::{PoolLimits, DEFAULT_MEMORY_BYTES};
use sandpit::runtime::supervisor::{
    Call, Effect, Event, Log, Reply, RunEvent, RuntimeError, RuntimeStatus, SessionPhase,
    SessionState, Start, Supervisor, Timer, WorkerId, BACKGROUND_IDLE_MS, BACK_TO_BACK_MS,
    INTERRUPT_GRACE_MS, INTERRUPT_REPEAT_MS, NUDGE_MS, PARK_AFTER_IDLE_MS, SPARE_AFTER_IDLE_MS,
    WAIT_BEHIND_AT_MOST,
};

mod background;
mod host_calls;
mod pool;
mod running;
mod sessions;
mod starting;
mod stopping;
mod turns;

/// A pool of two workers, both running, as a deployment that sets two.
const TWO: PoolLimits = limits(2, 2);

/// A pool of `resident` workers alive, `running` of them running at once.
const fn limits(resident: u32, running: u32) -> PoolLimits {
    PoolLimits {
        resident,
        running,
        memory_bytes: DEFAULT_MEMORY_BYTES,
        budget_bytes: resident as u64 * DEFAULT_MEMORY_BYTES,
    }
}

/// A supervisor and a clock.
struct Page {
    supervisor: Supervisor,
    now: f64,
}

impl Page {
    /// A page just started with `limits`: returns it and its early worker, not yet sent `init`.
    fn started_with(interrupts: bool, limits: PoolLimits) -> (Self, WorkerId) {
        let (supervisor, effects) = Supervisor::start(interrupts, limits);
        let early = only_spawn(&effects, Start::Early);
        let page = Self {
            supervisor,
            now: 0.0,
        };
        (page, early)
    }

    fn started(interrupts: bool) -> (Self, WorkerId) {
        Self::started_with(interrupts, TWO)
    }

    /// A page whose early worker was admitted (its CSP in place): returns it and that worker.
    fn admitted(interrupts: bool) -> (Self, WorkerId) {
        let (mut page, early) = Self::started(interrupts);
        let effects = page.on(Event::Guarded(Ok(true)));
        assert_eq!(effects, vec![Effect::Init(early)]);
        (page, early)
    }

    /// A page whose first worker is ready (started from a snapshot) and
    /// belongs to no session yet: the pool's spare.
    fn ready(interrupts: bool) -> (Self, WorkerId) {
        let (mut page, first) = Self::admitted(interrupts);
        let effects = page.on(ready(first, SnapshotUse::Used));
        assert!(spawns(&effects).is_empty(), "{effects:?}");
        (page, first)
    }

    /// [`Page::ready`], with the first worker session main's (a check took
    /// it) and, the runtime idle, a new spare loading: returns (main's
    /// worker, the spare).
    fn main_and_spare(interrupts: bool) -> (Self, WorkerId, WorkerId) {
        let (mut page, main) = Self::ready(interrupts);
        page.check(main);
        let spare = page.idle_start(Start::Python);
        (page, main, spare)
    }

    /// [`Page::main_and_spare`], with the spare ready too.
    fn main_and_ready_spare(interrupts: bool) -> (Self, WorkerId, WorkerId) {
        let (mut page, main, spare) = Self::main_and_spare(interrupts);
        let effects = page.on(ready(spare, SnapshotUse::Used));
        assert!(effects.is_empty(), "a spare is ready quietly: {effects:?}");
        (page, main, spare)
    }

    fn on(&mut self, event: Event) -> Vec<Effect> {
        self.now += 1.0;
        self.supervisor.handle(self.now, event)
    }

    /// Lets `ms` go by.
    fn wait(&mut self, ms: u32) {
        self.now += f64::from(ms);
    }

    fn submit(&mut self, call: Call) -> (RunId, Vec<Effect>) {
        self.now += 1.0;
        self.supervisor
            .submit(self.now, call)
            .expect("the call is accepted")
    }

    fn run(&mut self, code: &str) -> (RunId, Vec<Effect>) {
        self.run_in("main", code)
    }

    fn run_in(&mut self, session: &str, code: &str) -> (RunId, Vec<Effect>) {
        self.submit(Call::Run(RunRequest::new(code).in_session(session)))
    }

    /// Runs `code` to success in session main, in `worker`; returns its id.
    fn succeed(&mut self, worker: WorkerId, code: &str) -> RunId {
        self.succeed_in("main", worker, code)
    }

    fn succeed_in(&mut self, session: &str, worker: WorkerId, code: &str) -> RunId {
        let (id, effects) = self.run_in(session, code);
        assert_eq!(runs_posted(&effects), vec![(worker, id, code.to_owned())]);
        let effects = self.on(done(worker, id, RunStatus::Ok));
        assert_eq!(result_of(&effects, id).status, RunStatus::Ok);
        id
    }

    /// Checks code, which `worker` (idle, or the spare) takes and answers.
    fn check(&mut self, worker: WorkerId) {
        let (id, effects) = self.submit(Call::Query(Query::Check { code: "1".into() }));
        assert!(
            effects
                .iter()
                .any(|e| matches!(e, Effect::Post(to, HostMessage::Query { .. }) if *to == worker)),
            "{effects:?}"
        );
        let effects = self.on(answer(worker, id));
        assert!(
            effects
                .iter()
                .any(|e| matches!(e, Effect::Resolve(i, Reply::Query(Ok(_))) if *i == id)),
            "{effects:?}"
        );
    }

    /// The background timer, armed as the runtime became idle, goes off once
    /// it has been idle long enough and starts one worker as `start`; returns it.
    fn idle_start(&mut self, start: Start) -> WorkerId {
        self.wait(BACKGROUND_IDLE_MS);
        only_spawn(&self.on(Event::Tick(Timer::Background)), start)
    }

    /// Session `name`'s state as last told.
    fn phase(&self, told: &[Effect], name: &str) -> Option<SessionPhase> {
        told.iter().rev().find_map(|effect| match effect {
            Effect::Sessions(states) => Some(
                states
                    .iter()
                    .find(|state| state.name == name)
                    .map(|state| state.phase),
            ),
            _ => None,
        })?
    }
}

impl Page {
    /// A page with `limits` whose first worker is ready, the pool's spare.
    fn ready_with(limits: PoolLimits) -> (Self, WorkerId) {
        let (mut page, first) = Self::started_with(true, limits);
        page.on(Event::Guarded(Ok(true)));
        page.on(ready(first, SnapshotUse::Used));
        (page, first)
    }

    /// Gives each of `names` a worker by running `x = 0` in it, one after
    /// another; returns their workers, in order.
    fn open(&mut self, names: &[&str]) -> Vec<WorkerId> {
        let mut workers = Vec::new();
        for name in names {
            let (id, effects) = self.run_in(name, "x = 0");
            assert!(terminated(&effects).is_empty(), "{name}: nothing parked");
            let worker = match runs_posted(&effects).as_slice() {
                [(worker, posted, _)] if *posted == id => *worker,
                _ => {
                    let worker = only_spawn(&effects, Start::Python);
                    let effects = self.on(ready(worker, SnapshotUse::Used));
                    assert_eq!(runs_posted(&effects), vec![(worker, id, "x = 0".into())]);
                    worker
                }
            };
            self.on(done(worker, id, RunStatus::Ok));
            workers.push(worker);
        }
        workers
    }

    /// Each session's state as last told, by name.
    fn state(&self, name: &str) -> SessionState {
        let states = self.supervisor.session_states();
        let state = states.into_iter().find(|state| state.name == name);
        state.unwrap_or_else(|| panic!("no state for {name}"))
    }

    /// Asserts that session `name` is in `phase`, and that why says `words`.
    fn assert_state(&self, name: &str, phase: SessionPhase, words: &str) {
        let state = self.state(name);
        assert_eq!(state.phase, phase, "{name}: {}", state.why);
        assert!(state.why.contains(words), "{name}: {}", state.why);
    }
}

fn ready(worker: WorkerId, snapshot: SnapshotUse) -> Event {
    Event::Message(
        worker,
        WorkerMessage::Ready {
            python: "3.14.2".into(),
            pyodide: "314.0.7".into(),
            snapshot,
        },
    )
}

/// The result the runner sends for a run that ended with `status`.
fn done(worker: WorkerId, id: RunId, status: RunStatus) -> Event {
    let mut result = stopped(&StopReason::Cancelled, &[], 2.0, None);
    result.status = status;
    if status == RunStatus::Ok {
        result.error = None;
    }
    Event::Message(
        worker,
        WorkerMessage::Done {
            id,
            result: Box::new(result),
        },
    )
}

fn answer(worker: WorkerId, id: RunId) -> Event {
    let report = CheckReport {
        syntax_error: None,
        imports: Vec::new(),
        warnings: Vec::new(),
    };
    Event::Message(
        worker,
        WorkerMessage::Answer {
            id,
            answer: Some(Answer::Check {
                report: Box::new(report),
            }),
            error: None,
        },
    )
}

fn message(worker: WorkerId, message: WorkerMessage) -> Event {
    Event::Message(worker, message)
}

/// What `each` finds in `effects`, in order.
fn pick<T>(effects: &[Effect], each: impl FnMut(&Effect) -> Option<T>) -> Vec<T> {
    effects.iter().filter_map(each).collect()
}

fn spawns(effects: &[Effect]) -> Vec<(WorkerId, Start)> {
    pick(effects, |effect| match effect {
        Effect::Spawn { worker, start } => Some((*worker, *start)),
        _ => None,
    })
}

/// The one worker `effects` spawn, started as `start`.
fn only_spawn(effects: &[Effect], start: Start) -> WorkerId {
    match spawns(effects).as_slice() {
        [(worker, how)] if *how == start => *worker,
        other => panic!("expected one {start:?} spawn, got {other:?} in {effects:?}"),
    }
}

fn terminated(effects: &[Effect]) -> Vec<WorkerId> {
    pick(effects, |effect| match effect {
        Effect::Terminate(worker) => Some(*worker),
        _ => None,
    })
}

fn interrupts(effects: &[Effect]) -> Vec<WorkerId> {
    pick(effects, |effect| match effect {
        Effect::Interrupt(worker) => Some(*worker),
        _ => None,
    })
}

fn timers(effects: &[Effect]) -> Vec<Effect> {
    pick(effects, |effect| {
        matches!(effect, Effect::StartTimer(..) | Effect::CancelTimer(_)).then(|| effect.clone())
    })
}

/// Runs posted: (worker, id, code).
fn runs_posted(effects: &[Effect]) -> Vec<(WorkerId, RunId, String)> {
    pick(effects, |effect| match effect {
        Effect::Post(worker, HostMessage::Run { id, request }) => {
            Some((*worker, *id, request.code.clone()))
        }
        _ => None,
    })
}

fn posts(effects: &[Effect]) -> usize {
    pick(effects, |effect| {
        matches!(effect, Effect::Post(..)).then_some(())
    })
    .len()
}

fn resolved(effects: &[Effect]) -> Vec<RunId> {
    pick(effects, |effect| match effect {
        Effect::Resolve(id, _) => Some(*id),
        _ => None,
    })
}

/// The result `effects` give run `id`.
fn result_of(effects: &[Effect], id: RunId) -> RunResult {
    effects
        .iter()
        .find_map(|effect| match effect {
            Effect::Resolve(resolved, Reply::Run(Ok(result))) if *resolved == id => {
                Some((**result).clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no result for run {id} in {effects:?}"))
}

/// The replay posted to `worker` in `effects`: its id.
fn replay_posted(effects: &[Effect], worker: WorkerId, code: &str) -> RunId {
    match runs_posted(effects).as_slice() {
        [(to, id, posted)] if *to == worker && posted == code => *id,
        other => panic!("expected a replay of {code:?} to {worker:?}, got {other:?}"),
    }
}

/// A fresh run (a batch's program) in session `batch`, timed out after `ms`.
fn fresh_run(page: &mut Page, code: &str, ms: u32) -> (RunId, Vec<Effect>) {
    page.submit(Call::Run(RunRequest {
        fresh: true,
        ..RunRequest::new(code)
            .in_session("batch")
            .with_timeout_ms(Some(ms))
    }))
}

fn started(effects: &[Effect]) -> Vec<RunId> {
    pick(effects, |e| match e {
        Effect::Notify(id, RunEvent::Started) => Some(*id),
        _ => None,
    })
}
