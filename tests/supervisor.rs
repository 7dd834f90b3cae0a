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
    SessionState, Start, Supervisor, Timer, WorkerId, BACKGROUND_IDLE_MS, INTERRUPT_GRACE_MS,
    INTERRUPT_REPEAT_MS, NUDGE_MS, PARK_AFTER_IDLE_MS,
};

/// A pool of two workers, as on a two-core machine.
const TWO: PoolLimits = PoolLimits {
    workers: 2,
    memory_bytes: DEFAULT_MEMORY_BYTES,
};

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
    };
    Event::Message(
        worker,
        WorkerMessage::Answer {
            id,
            answer: Some(Answer::Check { report }),
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

// The pool: a worker per session.

#[test]
fn each_session_gets_a_worker_of_its_own_and_sessions_run_at_the_same_time() {
    let (mut page, first) = Page::ready(true);
    // The first session takes the worker that is ready.
    let (a, effects) = page.run_in("alice", "while True: pass");
    assert_eq!(
        runs_posted(&effects),
        vec![(first, a, "while True: pass".into())]
    );
    assert_eq!(page.phase(&effects, "alice"), Some(SessionPhase::Running));
    // Another session is not queued behind it: it gets a worker of its own.
    let (b, effects) = page.run_in("bob", "print('hi')");
    let bob = only_spawn(&effects, Start::Python);
    assert_ne!(bob, first);
    assert_eq!(page.phase(&effects, "bob"), Some(SessionPhase::Starting));
    let effects = page.on(ready(bob, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(bob, b, "print('hi')".into())]);
    assert_eq!(resolved(&page.on(done(bob, b, RunStatus::Ok))), vec![b]);
    // Runs of one session stay in order, in its own worker.
    let (next, effects) = page.run_in("alice", "x = 1");
    assert_eq!(posts(&effects), 0, "one job at a time in a session");
    page.on(done(first, a, RunStatus::Ok));
    assert_eq!(
        page.supervisor.sessions(),
        vec!["alice".to_owned(), "bob".to_owned()]
    );
    let _ = next;
}

#[test]
fn the_next_session_takes_the_warm_spare_and_a_new_spare_follows_once_idle() {
    let (mut page, main, spare) = Page::main_and_ready_spare(true);
    let (id, effects) = page.run_in("other", "1");
    assert!(
        spawns(&effects).is_empty(),
        "no cold start: the spare is ready"
    );
    assert_eq!(runs_posted(&effects), vec![(spare, id, "1".into())]);
    let effects = page.on(done(spare, id, RunStatus::Ok));
    // Two sessions fill a pool of two: no room for a spare.
    assert!(
        !timers(&effects).contains(&Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)),
        "{effects:?}"
    );
    let _ = main;
}

#[test]
fn a_session_takes_the_spare_even_while_it_loads_and_then_waits_for_its_ready() {
    let (mut page, _, spare) = Page::main_and_spare(true);
    let (id, effects) = page.run_in("other", "1");
    assert!(
        terminated(&effects).is_empty(),
        "a spare in use does not give way"
    );
    assert!(spawns(&effects).is_empty());
    assert_eq!(posts(&effects), 0);
    let effects = page.on(ready(spare, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(spare, id, "1".into())]);
}

#[test]
fn past_the_cap_the_least_recently_used_idle_session_is_parked_and_restored_by_replay() {
    let (mut page, first) = Page::ready(true);
    page.succeed_in("a", first, "x = 1");
    let (b_run, effects) = page.run_in("b", "y = 2");
    let b = only_spawn(&effects, Start::Python);
    page.on(ready(b, SnapshotUse::Used));
    page.on(done(b, b_run, RunStatus::Ok));
    page.wait(PARK_AFTER_IDLE_MS);

    // A third session: the pool is full, so "a" (used least recently) is parked.
    let (c_run, effects) = page.run_in("c", "z = 3");
    assert_eq!(terminated(&effects), vec![first]);
    let c = only_spawn(&effects, Start::Python);
    assert_eq!(page.phase(&effects, "a"), Some(SessionPhase::Parked));
    assert_eq!(page.phase(&effects, "b"), Some(SessionPhase::Idle));
    page.on(ready(c, SnapshotUse::Used));
    page.on(done(c, c_run, RunStatus::Ok));
    page.wait(PARK_AFTER_IDLE_MS);

    // "a" again: "b" is parked now, and "a" comes back by replay first.
    let (again, effects) = page.run_in("a", "x + 1");
    assert_eq!(terminated(&effects), vec![b]);
    let a = only_spawn(&effects, Start::Python);
    let effects = page.on(ready(a, SnapshotUse::Used));
    let replay = replay_posted(&effects, a, "x = 1");
    assert_eq!(page.phase(&effects, "a"), Some(SessionPhase::Restoring));
    let effects = page.on(done(a, replay, RunStatus::Ok));
    assert_eq!(runs_posted(&effects), vec![(a, again, "x + 1".into())]);
    let effects = page.on(done(a, again, RunStatus::Ok));
    let restored = result_of(&effects, again)
        .restored
        .expect("the result says the session was restored");
    assert_eq!((restored.replayed, restored.lost.len()), (1, 0));
}

#[test]
fn a_session_is_never_parked_while_it_runs_or_has_jobs_waiting() {
    let (mut page, first) = Page::ready(true);
    let (_, _) = page.run_in("a", "while True: pass");
    let (b_run, effects) = page.run_in("b", "1");
    let b = only_spawn(&effects, Start::Python);
    page.on(ready(b, SnapshotUse::Used));
    page.run_in("b", "2");
    page.wait(10 * PARK_AFTER_IDLE_MS);
    // Both busy: the third session waits, and nothing is parked.
    let (c_run, effects) = page.run_in("c", "3");
    assert!(terminated(&effects).is_empty());
    assert!(spawns(&effects).is_empty());
    assert_eq!(page.phase(&effects, "c"), Some(SessionPhase::Waiting));
    // "b" finishes its first job but has another: still not parked.
    let effects = page.on(done(b, b_run, RunStatus::Ok));
    assert!(terminated(&effects).is_empty());
    // Once "b" is idle a while, it makes room.
    let next = runs_posted(&effects)[0].1;
    let effects = page.on(done(b, next, RunStatus::Ok));
    assert!(terminated(&effects).is_empty(), "idle only just now");
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Pool, PARK_AFTER_IDLE_MS)));
    page.wait(PARK_AFTER_IDLE_MS);
    let effects = page.on(Event::Tick(Timer::Pool));
    assert_eq!(terminated(&effects), vec![b]);
    let c = only_spawn(&effects, Start::Python);
    let effects = page.on(ready(c, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(c, c_run, "3".into())]);
    let _ = first;
}

#[test]
fn killing_one_sessions_worker_leaves_the_others_running() {
    let (mut page, first) = Page::ready(false);
    page.succeed_in("a", first, "x = 1");
    let (a_run, _) = page.run_in("a", "import ctypes; boom()");
    let (b_run, effects) = page.run_in("b", "while busy(): pass");
    let b = only_spawn(&effects, Start::Python);
    page.on(ready(b, SnapshotUse::Used));

    let effects = page.on(Event::Error(first, "Aborted()".into()));
    assert_eq!(terminated(&effects), vec![first], "only a's worker");
    assert!(!interrupts(&effects).contains(&b));
    // "a" gets a new worker (the pool has room again) and is replayed there.
    let a = only_spawn(&effects, Start::Python);
    let effects = page.on(ready(a, SnapshotUse::Used));
    let replay = replay_posted(&effects, a, "x = 1");
    let effects = page.on(done(a, replay, RunStatus::Ok));
    let crashed = result_of(&effects, a_run);
    assert_eq!(crashed.status, RunStatus::Crashed);
    assert_eq!(
        crashed.restored.map(|r| r.replayed),
        Some(1),
        "a's own runs only"
    );
    // "b" never noticed.
    let effects = page.on(done(b, b_run, RunStatus::Ok));
    assert_eq!(result_of(&effects, b_run).status, RunStatus::Ok);
}

#[test]
fn a_timeout_stops_only_its_own_sessions_run() {
    let (mut page, first) = Page::ready(true);
    let (a_run, effects) = page.submit(Call::Run(
        RunRequest::new("while True: pass")
            .in_session("a")
            .with_timeout_ms(Some(1_000)),
    ));
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Deadline(first), 1_000)));
    let (_, effects) = page.run_in("b", "long()");
    let b = only_spawn(&effects, Start::Python);
    let effects = page.on(ready(b, SnapshotUse::Used));
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Deadline(b), 30_000)));
    let effects = page.on(Event::Tick(Timer::Deadline(first)));
    assert_eq!(interrupts(&effects), vec![first]);
    let effects = page.on(done(first, a_run, RunStatus::Cancelled));
    assert_eq!(result_of(&effects, a_run).status, RunStatus::Timeout);
    assert_eq!(
        timers(&effects),
        vec![Effect::CancelTimer(Timer::Deadline(first))]
    );
    // A late tick of a's timer does nothing to b.
    assert!(interrupts(&page.on(Event::Tick(Timer::Deadline(first)))).is_empty());
}

/// A fresh run (a batch's program) in session `batch`, timed out after `ms`.
fn fresh_run(page: &mut Page, code: &str, ms: u32) -> (RunId, Vec<Effect>) {
    page.submit(Call::Run(
        RunRequest::new(code)
            .in_session("batch")
            .in_fresh_namespace()
            .with_timeout_ms(Some(ms)),
    ))
}

fn started(effects: &[Effect]) -> Vec<RunId> {
    pick(effects, |e| match e {
        Effect::Notify(id, RunEvent::Started) => Some(*id),
        _ => None,
    })
}

#[test]
fn a_fresh_run_waits_in_the_worker_behind_another_and_its_clock_starts_when_that_one_ends() {
    let (mut page, worker) = Page::ready(true);
    let (first, effects) = fresh_run(&mut page, "1", 1_000);
    assert_eq!(started(&effects), vec![first]);
    let (second, effects) = fresh_run(&mut page, "2", 2_000);
    assert_eq!(
        runs_posted(&effects),
        vec![(worker, second, "2".to_owned())]
    );
    assert!(
        timers(&effects).is_empty(),
        "its clock has not started: {effects:?}"
    );
    assert!(started(&effects).is_empty());

    let effects = page.on(done(worker, first, RunStatus::Ok));
    assert_eq!(result_of(&effects, first).status, RunStatus::Ok);
    assert_eq!(started(&effects), vec![second]);
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Deadline(worker), 2_000)));
    assert!(runs_posted(&effects).is_empty(), "nothing else is queued");
    let effects = page.on(done(worker, second, RunStatus::Ok));
    assert_eq!(result_of(&effects, second).status, RunStatus::Ok);
}

#[test]
fn a_timeout_with_a_run_waiting_behind_ends_the_worker_and_the_waiting_run_goes_to_the_next() {
    let (mut page, worker) = Page::ready(true);
    let (stuck, _) = fresh_run(&mut page, "while True: pass", 1_000);
    let (behind, _) = fresh_run(&mut page, "2", 1_000);

    // An interrupt could reach the run behind, if the first ended just
    // before it was written: the worker is ended instead.
    let effects = page.on(Event::Tick(Timer::Deadline(worker)));
    assert!(interrupts(&effects).is_empty(), "{effects:?}");
    assert_eq!(terminated(&effects), vec![worker]);
    assert_eq!(result_of(&effects, stuck).status, RunStatus::Timeout);
    let next = only_spawn(&effects, Start::Python);
    let effects = page.on(ready(next, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(next, behind, "2".to_owned())]);
    assert_eq!(started(&effects), vec![behind]);
}

#[test]
fn a_run_cancelled_while_it_waits_in_the_worker_is_answered_at_once() {
    let (mut page, worker) = Page::ready(true);
    let (first, _) = fresh_run(&mut page, "1", 1_000);
    let (second, _) = fresh_run(&mut page, "2", 1_000);
    let effects = page.on(Event::Cancel(second));
    assert!(
        interrupts(&effects).is_empty(),
        "the first is not stopped: {effects:?}"
    );
    assert_eq!(result_of(&effects, second).status, RunStatus::Cancelled);

    // The worker still runs it; its result goes nowhere.
    let effects = page.on(done(worker, first, RunStatus::Ok));
    assert_eq!(result_of(&effects, first).status, RunStatus::Ok);
    assert!(
        started(&effects).is_empty(),
        "no one hears it begin: {effects:?}"
    );
    let effects = page.on(done(worker, second, RunStatus::Ok));
    assert!(resolved(&effects).is_empty(), "{effects:?}");
    page.succeed_in("batch", worker, "3");
}

#[test]
fn a_reset_ends_the_sessions_worker_so_its_next_run_starts_in_a_fresh_interpreter() {
    let (mut page, main, spare) = Page::main_and_ready_spare(true);
    page.succeed(main, "import json; json.dumps = None");
    let (clear, effects) = page.submit(Call::Clear {
        session: "main".into(),
        forget: false,
    });
    assert_eq!(terminated(&effects), vec![main]);
    assert!(effects.contains(&Effect::Resolve(clear, Reply::Done(Ok(())))));
    assert_eq!(
        page.supervisor.sessions(),
        vec!["main".to_owned()],
        "reset, not deleted"
    );
    // Nothing is replayed: the spare takes the next run as it is.
    let (id, effects) = page.run("import json; json.dumps(1)");
    assert_eq!(
        runs_posted(&effects),
        vec![(spare, id, "import json; json.dumps(1)".into())]
    );
    let effects = page.on(done(spare, id, RunStatus::Ok));
    assert_eq!(result_of(&effects, id).restored, None);

    // A delete forgets the session too; one waiting behind a run goes after it.
    let (busy, _) = page.run("while True: pass");
    let (delete, effects) = page.submit(Call::Clear {
        session: "main".into(),
        forget: true,
    });
    assert!(
        terminated(&effects).is_empty(),
        "it waits for the run before it"
    );
    let effects = page.on(done(spare, busy, RunStatus::Ok));
    assert_eq!(terminated(&effects), vec![spare]);
    assert!(effects.contains(&Effect::Resolve(delete, Reply::Done(Ok(())))));
    assert!(page.supervisor.sessions().is_empty());
}

#[test]
fn files_kept_across_a_reload_start_no_worker_and_come_back_before_the_next_run() {
    let (mut page, first) = Page::ready(true);
    let file = InputFile {
        path: "data.csv".into(),
        content_base64: "YQ==".into(),
    };
    let (restore, effects) = page.submit(Call::RestoreFiles {
        session: "saved".into(),
        files: vec![file],
    });
    assert!(effects.contains(&Effect::Resolve(restore, Reply::Done(Ok(())))));
    assert_eq!(posts(&effects), 0, "no worker is taken for them alone");
    assert_eq!(page.phase(&effects, "saved"), Some(SessionPhase::Parked));
    assert_eq!(page.supervisor.sessions(), vec!["saved".to_owned()]);
    let (id, effects) = page.run_in("saved", "open('data.csv').read()");
    let replay = replay_posted(&effects, first, "");
    let effects = page.on(done(first, replay, RunStatus::Ok));
    assert_eq!(
        runs_posted(&effects),
        vec![(first, id, "open('data.csv').read()".into())]
    );
    let effects = page.on(done(first, id, RunStatus::Ok));
    assert_eq!(
        result_of(&effects, id).restored,
        None,
        "files put back are no news"
    );
}

#[test]
fn reading_a_file_of_a_session_with_nothing_starts_no_worker() {
    let (mut page, _) = Page::ready(true);
    let refused = page.supervisor.submit(
        1.0,
        Call::Query(Query::ReadFile {
            session: "nobody".into(),
            path: "out.csv".into(),
        }),
    );
    assert_eq!(
        refused.map(|(id, _)| id),
        Err(RuntimeError::Rejected(
            "FileNotFoundError: no such file in session \"nobody\": out.csv".into()
        ))
    );
}

#[test]
fn checks_go_to_an_idle_session_and_a_fresh_run_lists_no_session() {
    let (mut page, first) = Page::ready(true);
    let (_, effects) = page.submit(Call::Run(
        RunRequest::new("print(1)")
            .in_session("batch-1")
            .in_fresh_namespace(),
    ));
    assert_eq!(runs_posted(&effects).len(), 1);
    assert!(
        page.supervisor.sessions().is_empty(),
        "a fresh run lists nothing"
    );
    let id = runs_posted(&effects)[0].1;
    page.on(done(first, id, RunStatus::Ok));
    // A check changes no session: the idle one takes it, no worker starts.
    page.check(first);
}

#[test]
fn session_states_are_told_when_they_change() {
    let (mut page, first) = Page::ready(true);
    let (id, effects) = page.run("1");
    assert_eq!(
        effects.iter().find(|e| matches!(e, Effect::Sessions(_))),
        Some(&Effect::Sessions(vec![SessionState {
            name: "main".into(),
            phase: SessionPhase::Running,
            queued: 0
        }]))
    );
    let (_, effects) = page.run("2");
    assert_eq!(
        effects.iter().find(|e| matches!(e, Effect::Sessions(_))),
        Some(&Effect::Sessions(vec![SessionState {
            name: "main".into(),
            phase: SessionPhase::Running,
            queued: 1
        }]))
    );
    // A change that leaves the states as they were is not told again.
    let effects = page.on(message(first, WorkerMessage::LoadingPackages { id }));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Sessions(_))));
}

// Stopping runs.

#[test]
fn an_unanswered_interrupt_is_repeated_until_the_grace_is_over_then_the_worker_is_replaced() {
    let (mut page, active, spare) = Page::main_and_ready_spare(true);
    let kept = page.succeed(active, "x = 1");
    let (id, effects) = page.submit(Call::Run(
        RunRequest::new("while True: pass").with_timeout_ms(Some(5_000)),
    ));
    assert_eq!(
        timers(&effects),
        vec![Effect::StartTimer(Timer::Deadline(active), 5_000)],
        "the nudges of the run before go on"
    );

    // The timeout interrupts; every repeat writes the interrupt again.
    let mut effects = page.on(Event::Tick(Timer::Deadline(active)));
    let mut sent = 0;
    let mut waited = 0;
    while terminated(&effects).is_empty() {
        assert!(
            resolved(&effects).is_empty(),
            "nothing ends while it may still stop"
        );
        sent += interrupts(&effects).len();
        assert!(
            interrupts(&effects).iter().all(|worker| *worker == active),
            "{effects:?}"
        );
        match timers(&effects).as_slice() {
            [Effect::StartTimer(Timer::Deadline(worker), wait)] => {
                assert_eq!((*worker, *wait), (active, INTERRUPT_REPEAT_MS));
                waited += wait;
            }
            other => panic!("each step starts the next: {other:?}"),
        }
        assert!(waited <= INTERRUPT_GRACE_MS, "the grace period is bounded");
        effects = page.on(Event::Tick(Timer::Deadline(active)));
    }
    assert_eq!(waited, INTERRUPT_GRACE_MS);
    assert_eq!(sent as u32, INTERRUPT_GRACE_MS / INTERRUPT_REPEAT_MS);
    assert!(
        interrupts(&effects).is_empty(),
        "the last step interrupts no more"
    );

    // Grace over: terminated, the ready spare takes the session and replays its ledger.
    assert_eq!(terminated(&effects), vec![active]);
    let replay = replay_posted(&effects, spare, "x = 1");
    assert_ne!(replay, kept);
    assert!(
        resolved(&effects).is_empty(),
        "the run ends once its session is back"
    );
    assert!(
        spawns(&effects).is_empty(),
        "no new spare while the replay runs"
    );
    let effects = page.on(done(spare, replay, RunStatus::Ok));
    let result = result_of(&effects, id);
    assert_eq!(result.status, RunStatus::Timeout);
    let restored = result.restored.expect("state came back by replay");
    assert_eq!((restored.replayed, restored.lost.len()), (1, 0));
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)));
    let next_spare = page.idle_start(Start::Python);
    assert_ne!(next_spare, spare);
}

#[test]
fn an_honoured_interrupt_keeps_the_worker_and_says_why_the_run_stopped() {
    let (mut page, active) = Page::ready(true);
    let (id, _) = page.run("import time\ntime.sleep(60)");
    let effects = page.on(Event::Cancel(id));
    assert_eq!(interrupts(&effects), vec![active]);
    assert!(terminated(&effects).is_empty());
    assert_eq!(
        timers(&effects),
        vec![Effect::StartTimer(
            Timer::Deadline(active),
            INTERRUPT_REPEAT_MS
        )]
    );

    // The runner's result for an interrupted run says `cancelled`, with its line.
    let effects = page.on(done(active, id, RunStatus::Cancelled));
    assert!(timers(&effects).contains(&Effect::CancelTimer(Timer::Deadline(active))));
    let result = result_of(&effects, id);
    assert_eq!(result.status, RunStatus::Cancelled);
    assert_eq!(result.restored, None, "state was kept");
    assert!(terminated(&effects).is_empty());
    // The next run goes to the same worker.
    page.succeed(active, "print(1)");
}

#[test]
fn stopping_a_run_being_interrupted_terminates_it_at_once() {
    let (mut page, active, spare) = Page::main_and_ready_spare(true);
    let (id, _) = page.run("while True: pass");
    assert_eq!(interrupts(&page.on(Event::Cancel(id))), vec![active]);
    let effects = page.on(Event::Cancel(id));
    assert!(interrupts(&effects).is_empty());
    assert_eq!(terminated(&effects), vec![active]);
    // Nothing to replay: the run ends now, and the ready spare takes over.
    let result = result_of(&effects, id);
    assert_eq!(result.status, RunStatus::Cancelled);
    assert_eq!(result.restored.map(|r| r.replayed), Some(0));
    page.succeed(spare, "print(2)");
}

#[test]
fn without_interrupts_a_cancel_terminates_and_replays_that_sessions_ledger_into_the_spare() {
    let (mut page, active, spare) = Page::main_and_ready_spare(false);
    page.succeed(active, "x = 1");
    let failing = page.run("raise ValueError").0;
    page.on(done(active, failing, RunStatus::Error));
    page.succeed(active, "y = 2");

    let (id, effects) = page.run("while True: print('.')");
    assert!(
        !timers(&effects).contains(&Effect::StartTimer(Timer::Nudge, NUDGE_MS)),
        "no nudges without an interrupt buffer"
    );
    let chunk = OutputChunk {
        stream: StreamName::Stdout,
        text: ".\n".into(),
    };
    let effects = page.on(message(
        active,
        WorkerMessage::Stream {
            id,
            chunk: chunk.clone(),
        },
    ));
    assert_eq!(effects, vec![Effect::Notify(id, RunEvent::Output(chunk))]);

    let effects = page.on(Event::Cancel(id));
    assert!(interrupts(&effects).is_empty());
    assert_eq!(terminated(&effects), vec![active]);
    // Successful runs only, in order, into the spare; a new spare starts
    // once the runtime is idle.
    let first = replay_posted(&effects, spare, "x = 1");
    assert!(spawns(&effects).is_empty());
    let effects = page.on(done(spare, first, RunStatus::Ok));
    let second = replay_posted(&effects, spare, "y = 2");
    assert!(resolved(&effects).is_empty());
    let effects = page.on(done(spare, second, RunStatus::Ok));
    let result = result_of(&effects, id);
    assert_eq!(result.status, RunStatus::Cancelled);
    assert_eq!(
        result.stdout, ".\n",
        "what it printed before it was stopped"
    );
    assert_eq!(result.restored.map(|r| r.replayed), Some(2));
    // The spare is main's worker now.
    page.succeed(spare, "print(x)");
}

#[test]
fn a_replay_that_fails_is_reported_lost() {
    let (mut page, active, spare) = Page::main_and_ready_spare(false);
    page.succeed(active, "import random\nx = random.random()");
    let (id, _) = page.run("while True: pass");
    let effects = page.on(Event::Tick(Timer::Deadline(active)));
    let replay = replay_posted(&effects, spare, "import random\nx = random.random()");
    let effects = page.on(done(spare, replay, RunStatus::Error));
    let restored = result_of(&effects, id)
        .restored
        .expect("the session was restored");
    assert_eq!(restored.replayed, 0);
    assert_eq!(restored.lost.len(), 1);
    assert_eq!(restored.lost[0].code_start, "import random");
    assert_eq!(restored.lost[0].session, "main");
}

#[test]
fn a_worker_that_dies_between_jobs_leaves_its_session_parked_until_its_next_run() {
    let (mut page, active, spare) = Page::main_and_ready_spare(true);
    page.succeed(active, "x = 1");
    let effects = page.on(Event::Error(active, "Aborted()".into()));
    assert_eq!(terminated(&effects), vec![active]);
    assert_eq!(posts(&effects), 0, "nobody waits: nothing is replayed yet");
    assert_eq!(page.phase(&effects, "main"), Some(SessionPhase::Parked));
    let (id, effects) = page.run("x + 1");
    let replay = replay_posted(&effects, spare, "x = 1");
    page.on(done(spare, replay, RunStatus::Ok));
    let effects = page.on(done(spare, id, RunStatus::Ok));
    assert_eq!(
        result_of(&effects, id).restored.map(|r| r.replayed),
        Some(1)
    );
}

#[test]
fn a_run_failing_in_the_interpreter_restarts_like_a_crash() {
    let (mut page, active, spare) = Page::main_and_ready_spare(false);
    let (id, _) = page.run("boom");
    let failed = WorkerMessage::RunFailed {
        id,
        message: "memory access out of bounds".into(),
        memory: None,
    };
    let effects = page.on(message(active, failed));
    assert_eq!(terminated(&effects), vec![active]);
    assert_eq!(result_of(&effects, id).status, RunStatus::Crashed);
    page.succeed(spare, "print(1)");
}

#[test]
fn a_crash_with_no_spare_starts_a_new_worker_for_the_session() {
    let (mut page, active) = Page::ready(false);
    page.succeed(active, "x = 1");
    let (id, _) = page.run("boom()");
    let effects = page.on(Event::Error(active, "Aborted()".into()));
    assert_eq!(terminated(&effects), vec![active]);
    let next = only_spawn(&effects, Start::Python);
    let (again, _) = page.run("1");
    let effects = page.on(ready(next, SnapshotUse::Used));
    let replay = replay_posted(&effects, next, "x = 1");
    let effects = page.on(done(next, replay, RunStatus::Ok));
    assert_eq!(result_of(&effects, id).status, RunStatus::Crashed);
    assert_eq!(runs_posted(&effects), vec![(next, again, "1".into())]);
}

#[test]
fn a_queued_run_cancelled_never_reaches_python() {
    let (mut page, active) = Page::ready(true);
    let (first, _) = page.run("import time\ntime.sleep(1)");
    let (second, effects) = page.run("print('never')");
    assert_eq!(posts(&effects), 0, "one job at a time");
    let effects = page.on(Event::Cancel(second));
    assert!(interrupts(&effects).is_empty());
    assert!(terminated(&effects).is_empty());
    let result = result_of(&effects, second);
    assert_eq!(result.status, RunStatus::Cancelled);
    assert_eq!((result.duration_ms, result.restored), (0.0, None));
    // The running one is untouched, and nothing follows it.
    let effects = page.on(done(active, first, RunStatus::Ok));
    assert_eq!(resolved(&effects), vec![first]);
    assert_eq!(posts(&effects), 0);
    // A cancel for a run already finished does nothing.
    assert!(page.on(Event::Cancel(first)).is_empty());
}

#[test]
fn messages_from_a_retired_worker_are_ignored() {
    let (mut page, active, spare) = Page::main_and_ready_spare(false);
    let (id, _) = page.run("while True: pass");
    page.on(Event::Cancel(id));
    // The terminated worker's last words, its error, and its answer to the
    // run it had: none may finish a job in its successor.
    let (next, effects) = page.run("print('next')");
    assert_eq!(
        runs_posted(&effects),
        vec![(spare, next, "print('next')".into())]
    );
    assert!(page.on(done(active, next, RunStatus::Ok)).is_empty());
    assert!(page.on(ready(active, SnapshotUse::Used)).is_empty());
    let fatal = WorkerMessage::Fatal {
        message: "gone".into(),
    };
    assert!(page.on(message(active, fatal)).is_empty());
    assert!(page.on(Event::Error(active, "gone".into())).is_empty());
    // The real answer still counts.
    let effects = page.on(done(spare, next, RunStatus::Ok));
    assert_eq!(result_of(&effects, next).status, RunStatus::Ok);
}

#[test]
fn timeouts_count_only_while_python_has_the_run() {
    let (mut page, active) = Page::ready(true);
    let (id, effects) = page.submit(Call::Run(
        RunRequest::new("import numpy")
            .with_packages(vec!["numpy".into()])
            .with_timeout_ms(Some(2_000)),
    ));
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Deadline(active), 2_000)));
    assert!(effects.contains(&Effect::Notify(id, RunEvent::Started)));
    let effects = page.on(message(active, WorkerMessage::LoadingPackages { id }));
    assert_eq!(
        timers(&effects),
        vec![Effect::CancelTimer(Timer::Deadline(active))]
    );
    assert!(effects
        .iter()
        .any(|e| matches!(e, Effect::Notify(_, RunEvent::Packages { .. }))));
    // Its timeout starts again, in full, once the packages are in.
    let effects = page.on(message(active, WorkerMessage::Started { id }));
    assert_eq!(
        timers(&effects),
        vec![Effect::StartTimer(Timer::Deadline(active), 2_000)]
    );
    assert!(effects.contains(&Effect::Notify(id, RunEvent::Started)));
}

#[test]
fn a_run_stopped_while_loading_packages_keeps_its_interrupt_repeats() {
    let (mut page, active) = Page::ready(true);
    let (id, _) = page.run("import numpy");
    page.on(message(active, WorkerMessage::LoadingPackages { id }));
    assert_eq!(interrupts(&page.on(Event::Cancel(id))), vec![active]);
    let effects = page.on(message(active, WorkerMessage::Started { id }));
    assert!(timers(&effects).is_empty(), "{effects:?}");
    let effects = page.on(message(active, WorkerMessage::LoadingPackages { id }));
    assert!(timers(&effects).is_empty(), "{effects:?}");
    assert_eq!(
        interrupts(&page.on(Event::Tick(Timer::Deadline(active)))),
        vec![active]
    );
}

#[test]
fn runs_in_python_are_nudged_to_stream_while_they_run_and_only_then() {
    let (mut page, active) = Page::ready(true);
    let (id, _) = page.run("print(1); big()");
    let (other, effects) = page.run_in("other", "print(2); big()");
    let second = only_spawn(&effects, Start::Python);
    page.on(ready(second, SnapshotUse::Used));
    // One timer nudges every session's run.
    let effects = page.on(Event::Tick(Timer::Nudge));
    assert_eq!(
        effects,
        vec![
            Effect::Nudge(active),
            Effect::Nudge(second),
            Effect::StartTimer(Timer::Nudge, NUDGE_MS)
        ]
    );
    page.on(done(active, id, RunStatus::Ok));
    let effects = page.on(Event::Tick(Timer::Nudge));
    assert_eq!(
        effects,
        vec![
            Effect::Nudge(second),
            Effect::StartTimer(Timer::Nudge, NUDGE_MS)
        ]
    );
    page.on(done(second, other, RunStatus::Ok));
    assert!(page.on(Event::Tick(Timer::Nudge)).is_empty());
    // The next run starts the nudges again.
    let (_, effects) = page.run("2");
    assert!(effects.contains(&Effect::StartTimer(Timer::Nudge, NUDGE_MS)));
}

#[test]
fn output_not_yet_streamed_is_told_before_the_result() {
    let (mut page, active) = Page::ready(true);
    let (id, _) = page.run("print('a'); print('b')");
    let a = OutputChunk {
        stream: StreamName::Stdout,
        text: "a\n".into(),
    };
    page.on(message(
        active,
        WorkerMessage::Stream {
            id,
            chunk: a.clone(),
        },
    ));
    let mut result = stopped(&StopReason::Cancelled, &[], 2.0, None);
    result.status = RunStatus::Ok;
    result.error = None;
    result.output = vec![OutputChunk {
        stream: StreamName::Stdout,
        text: "a\nb\n".into(),
    }];
    let effects = page.on(message(
        active,
        WorkerMessage::Done {
            id,
            result: Box::new(result),
        },
    ));
    let b = OutputChunk {
        stream: StreamName::Stdout,
        text: "b\n".into(),
    };
    let told = effects
        .iter()
        .position(|e| *e == Effect::Notify(id, RunEvent::Output(b.clone())));
    let answered = effects
        .iter()
        .position(|e| matches!(e, Effect::Resolve(..)));
    assert!(told.is_some() && told < answered, "{effects:?}");
    let result = result_of(&effects, id);
    assert_eq!(result.stdout, "a\nb\n", "stdout is joined from the output");
}

#[test]
fn oversized_input_is_refused_before_it_is_queued() {
    let (mut page, _) = Page::ready(true);
    let mut request = RunRequest::new("open('big').read()")
        .in_session("files")
        .with_files(vec![InputFile {
            path: "big".into(),
            content_base64: "AAAA".repeat(100),
        }]);
    request.limits = OutputLimits {
        input_bytes: 10,
        ..request.limits
    };
    page.now += 1.0;
    let refused = page.supervisor.submit(page.now, Call::Run(request));
    assert!(
        matches!(refused, Err(RuntimeError::Rejected(_))),
        "{refused:?}"
    );
    assert!(!page.supervisor.sessions().contains(&"files".to_owned()));
}

#[test]
fn a_query_stopped_by_a_restart_is_told_so() {
    let (mut page, active, spare) = Page::main_and_ready_spare(false);
    page.succeed(active, "open('out.csv', 'w').write('a')");
    let (query, effects) = page.submit(Call::Query(Query::ReadFile {
        session: "main".into(),
        path: "out.csv".into(),
    }));
    assert_eq!(posts(&effects), 1);
    let effects = page.on(Event::Error(active, "Aborted()".into()));
    assert!(
        resolved(&effects).is_empty(),
        "it is told once the session is back"
    );
    let replay = replay_posted(&effects, spare, "open('out.csv', 'w').write('a')");
    let effects = page.on(done(spare, replay, RunStatus::Ok));
    assert!(
        effects.contains(&Effect::Resolve(
            query,
            Reply::Query(Err(RuntimeError::Rejected(
                "the sandbox restarted before it could answer".into()
            )))
        )),
        "{effects:?}"
    );
}

// Background work: the snapshot maker and the warm spare.

#[test]
fn a_job_makes_a_loading_spare_give_way_and_it_starts_again_once_idle() {
    let (mut page, active, spare) = Page::main_and_spare(true);
    let (id, effects) = page.run("x = 1");
    assert_eq!(
        terminated(&effects),
        vec![spare],
        "it would take the run's cores"
    );
    assert_eq!(runs_posted(&effects), vec![(active, id, "x = 1".into())]);
    let effects = page.on(done(active, id, RunStatus::Ok));
    assert!(spawns(&effects).is_empty(), "not in a gap between two jobs");
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)));
    // A job within the idle time leaves the timer running, but the idle time
    // counts afresh from its end: a tick before that only waits the rest.
    page.wait(BACKGROUND_IDLE_MS / 2);
    let (next, effects) = page.run("y = 2");
    assert!(!timers(&effects).contains(&Effect::CancelTimer(Timer::Background)));
    page.on(done(active, next, RunStatus::Ok));
    page.wait(BACKGROUND_IDLE_MS / 2);
    let effects = page.on(Event::Tick(Timer::Background));
    assert!(
        spawns(&effects).is_empty(),
        "idle only half the time since the job"
    );
    assert!(matches!(
        timers(&effects).as_slice(),
        [Effect::StartTimer(Timer::Background, rest)] if *rest < BACKGROUND_IDLE_MS
    ));
    let again = page.idle_start(Start::Python);
    assert_ne!(again, spare);
    // A ready spare stays when a job comes.
    assert!(page.on(ready(again, SnapshotUse::Used)).is_empty());
    let (_, effects) = page.run("z = 3");
    assert!(terminated(&effects).is_empty());
    // A tick that finds the runtime busy starts nothing.
    assert!(spawns(&page.on(Event::Tick(Timer::Background))).is_empty());
}

#[test]
fn the_spare_counts_against_the_pool() {
    let (mut page, first) = Page::ready(true);
    page.succeed_in("a", first, "1");
    let (id, effects) = page.run_in("b", "2");
    let b = only_spawn(&effects, Start::Python);
    page.on(ready(b, SnapshotUse::Used));
    let effects = page.on(done(b, id, RunStatus::Ok));
    assert!(
        !timers(&effects).contains(&Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)),
        "two sessions fill a pool of two: no spare"
    );
}

#[test]
fn without_a_snapshot_the_maker_starts_first_and_the_spare_once_it_has_stored_one() {
    let (mut page, first) = Page::admitted(true);
    let effects = page.on(ready(first, SnapshotUse::Absent));
    assert!(spawns(&effects).is_empty());
    let maker = page.idle_start(Start::SnapshotMaker);
    // What the maker says besides is not for the app.
    let progress = WorkerMessage::Ready {
        python: "3.14.2".into(),
        pyodide: "314.0.7".into(),
        snapshot: SnapshotUse::Absent,
    };
    assert!(page.on(message(maker, progress)).is_empty());
    let effects = page.on(message(maker, WorkerMessage::SnapshotStored { bytes: 1 }));
    assert_eq!(terminated(&effects), vec![maker]);
    // The first worker is the spare until a session takes it: a new one
    // comes once that has happened.
    assert!(timers(&effects).is_empty(), "{effects:?}");
    page.succeed(first, "1");
    page.idle_start(Start::Python);
}

#[test]
fn a_maker_that_fails_lets_the_spare_start_and_is_not_tried_again() {
    let (mut page, first) = Page::admitted(false);
    page.on(ready(
        first,
        SnapshotUse::Rejected {
            reason: "another Pyodide".into(),
        },
    ));
    page.succeed(first, "1");
    let maker = page.idle_start(Start::SnapshotMaker);
    let effects = page.on(Event::Error(maker, "out of memory".into()));
    assert!(matches!(
        effects.first(),
        Some(Effect::Log(Log::Warning(_)))
    ));
    assert_eq!(terminated(&effects), vec![maker]);
    let spare = page.idle_start(Start::Python);
    // Ready without a snapshot either, it gets no maker.
    let effects = page.on(ready(spare, SnapshotUse::Absent));
    assert!(spawns(&effects).is_empty());
    assert!(timers(&effects).is_empty());
}

#[test]
fn a_maker_that_cannot_start_lets_the_spare_start() {
    let (mut page, first) = Page::admitted(true);
    page.on(ready(first, SnapshotUse::Absent));
    page.succeed(first, "1");
    let maker = page.idle_start(Start::SnapshotMaker);
    let effects = page.on(Event::SpawnFailed(
        maker,
        RuntimeError::Worker("blocked".into()),
    ));
    assert!(matches!(
        effects.first(),
        Some(Effect::Log(Log::Warning(_)))
    ));
    page.idle_start(Start::Python);
}

#[test]
fn a_maker_that_gives_way_to_a_job_is_started_again_once_idle() {
    let (mut page, first) = Page::admitted(true);
    page.on(ready(first, SnapshotUse::Absent));
    let maker = page.idle_start(Start::SnapshotMaker);
    let (id, effects) = page.run("1");
    assert_eq!(terminated(&effects), vec![maker]);
    page.on(done(first, id, RunStatus::Ok));
    let again = page.idle_start(Start::SnapshotMaker);
    assert_ne!(again, maker);
}

#[test]
fn neither_background_worker_starts_while_the_first_run_runs() {
    let (mut page, first) = Page::admitted(true);
    let (id, effects) = page.run("print('first')");
    assert_eq!(posts(&effects), 0, "Python is not ready yet");
    let effects = page.on(ready(first, SnapshotUse::Absent));
    assert_eq!(
        runs_posted(&effects),
        vec![(first, id, "print('first')".into())]
    );
    assert!(spawns(&effects).is_empty(), "{effects:?}");
    let effects = page.on(done(first, id, RunStatus::Ok));
    assert_eq!(resolved(&effects), vec![id]);
    assert!(
        spawns(&effects).is_empty(),
        "only once the runtime has been idle a while"
    );
    page.idle_start(Start::SnapshotMaker);
}

#[test]
fn started_from_a_snapshot_the_spare_starts_once_a_session_has_the_first_worker() {
    let (mut page, first) = Page::admitted(true);
    let effects = page.on(ready(first, SnapshotUse::Used));
    assert_eq!(
        effects.first(),
        Some(&Effect::Status(RuntimeStatus::Ready {
            python: "3.14.2".into(),
            pyodide: "314.0.7".into(),
            interrupts: true,
            snapshot: SnapshotUse::Used,
        }))
    );
    assert!(timers(&effects).is_empty(), "the first worker is the spare");
    page.check(first);
    page.idle_start(Start::Python);
}

// Starting.

#[test]
fn a_failure_before_ready_fails_every_waiting_job_and_later_runs() {
    let (mut page, first) = Page::admitted(true);
    let (run, _) = page.run("print(1)");
    let (clear, _) = page.submit(Call::Clear {
        session: "other".into(),
        forget: false,
    });
    let (query, _) = page.submit(Call::Query(Query::Check {
        code: "import numpy".into(),
    }));
    let fatal = WorkerMessage::Fatal {
        message: "could not load Pyodide".into(),
    };
    let effects = page.on(message(first, fatal));
    assert_eq!(terminated(&effects), vec![first]);
    let unavailable = RuntimeError::Unavailable("could not load Pyodide".into());
    for (id, reply) in [
        (run, Reply::Run(Err(unavailable.clone()))),
        (query, Reply::Query(Err(unavailable.clone()))),
    ] {
        assert!(effects.contains(&Effect::Resolve(id, reply)), "{effects:?}");
    }
    let _ = clear;
    assert!(effects.contains(&Effect::Status(RuntimeStatus::Failed {
        message: "could not load Pyodide".into()
    })));
    assert_eq!(
        page.supervisor
            .submit(0.0, Call::Run(RunRequest::new("1")))
            .map(|(id, _)| id),
        Err(unavailable)
    );
    // The guard's late answer and its wait change nothing now.
    assert!(page.on(Event::Securing).is_empty());
    assert!(page.on(Event::Guarded(Ok(true))).is_empty());
}

#[test]
fn no_worker_but_the_early_one_starts_before_the_csp_is_checked() {
    let (mut page, early) = Page::started(true);
    let (a, effects) = page.run_in("a", "1");
    assert!(spawns(&effects).is_empty(), "the early worker is a's");
    let (b, effects) = page.run_in("b", "2");
    assert!(spawns(&effects).is_empty(), "b waits for the check");
    let effects = page.on(Event::Guarded(Ok(true)));
    assert!(effects.contains(&Effect::Init(early)));
    let second = only_spawn(&effects, Start::Python);
    let effects = page.on(ready(early, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(early, a, "1".into())]);
    let effects = page.on(ready(second, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(second, b, "2".into())]);
}

#[test]
fn the_early_worker_takes_code_only_once_its_csp_is_checked() {
    let (mut page, early) = Page::started(true);
    assert_eq!(
        page.on(Event::Securing),
        vec![Effect::Status(RuntimeStatus::Securing)]
    );
    // Created from a script served without its CSP: replaced.
    let effects = page.on(Event::Guarded(Ok(false)));
    let guarded = only_spawn(&effects, Start::Python);
    assert_eq!(terminated(&effects), vec![early]);
    assert!(!effects.contains(&Effect::Init(early)));
    let (id, _) = page.run("1");
    let effects = page.on(ready(guarded, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(guarded, id, "1".into())]);
}

#[test]
fn an_early_worker_that_could_not_be_created_is_replaced_when_the_check_passes() {
    let (mut page, early) = Page::started(true);
    let error = RuntimeError::Worker("no".into());
    assert!(page.on(Event::SpawnFailed(early, error)).is_empty());
    let effects = page.on(Event::Guarded(Ok(true)));
    only_spawn(&effects, Start::Python);
    // That one failing too fails the start.
    let worker = spawns(&effects)[0].0;
    let error = RuntimeError::Worker("still no".into());
    let effects = page.on(Event::SpawnFailed(worker, error.clone()));
    assert_eq!(
        effects,
        vec![Effect::Status(RuntimeStatus::Failed {
            message: error.to_string()
        })]
    );
}

#[test]
fn a_failed_guard_fails_the_start() {
    let (mut page, early) = Page::started(true);
    let error = RuntimeError::Unavailable("no service worker".into());
    let effects = page.on(Event::Guarded(Err(error)));
    assert_eq!(
        effects,
        vec![
            Effect::Terminate(early),
            Effect::Status(RuntimeStatus::Failed {
                message: "no service worker".into()
            })
        ]
    );
}

#[test]
fn a_worker_that_cannot_start_for_a_session_fails_only_that_sessions_jobs() {
    let (mut page, first) = Page::ready(true);
    let (_, _) = page.run_in("a", "while True: pass");
    let (b_run, effects) = page.run_in("b", "1");
    let b = only_spawn(&effects, Start::Python);
    let fatal = WorkerMessage::Fatal {
        message: "Python failed to start: no".into(),
    };
    let effects = page.on(message(b, fatal));
    assert!(effects.contains(&Effect::Resolve(
        b_run,
        Reply::Run(Err(RuntimeError::Unavailable(
            "Python failed to start: no".into()
        )))
    )));
    assert!(!terminated(&effects).contains(&first));
    assert!(!effects
        .iter()
        .any(|e| matches!(e, Effect::Status(RuntimeStatus::Failed { .. }))));
    // Its next job tries again.
    let (_, effects) = page.run_in("b", "2");
    only_spawn(&effects, Start::Python);
}

#[test]
fn the_deployments_limits_apply_to_later_decisions() {
    let (mut page, first) = Page::ready(true);
    page.succeed_in("a", first, "1");
    page.on(Event::Limits(PoolLimits {
        workers: 3,
        memory_bytes: DEFAULT_MEMORY_BYTES,
    }));
    assert_eq!(page.supervisor.limits().workers, 3);
    let (_, effects) = page.run_in("b", "while True: pass");
    only_spawn(&effects, Start::Python);
    let (_, effects) = page.run_in("c", "while True: pass");
    only_spawn(&effects, Start::Python);
    assert!(terminated(&effects).is_empty(), "room for three");
}

// Memory.

#[test]
fn runs_get_the_deployments_memory_limit_unless_they_set_their_own() {
    let (mut page, first) = Page::ready(true);
    page.on(Event::Limits(PoolLimits {
        workers: 2,
        memory_bytes: 512 << 20,
    }));
    let limit_posted = |effects: &[Effect]| {
        pick(effects, |effect| match effect {
            Effect::Post(_, HostMessage::Run { request, .. }) => Some(request.memory_limit_bytes),
            _ => None,
        })
    };
    let (id, effects) = page.run("1");
    assert_eq!(limit_posted(&effects), vec![Some(512 << 20)]);
    page.on(done(first, id, RunStatus::Ok));
    let mut request = RunRequest::new("2");
    request.memory_limit_bytes = Some(128 << 20);
    let (_, effects) = page.submit(Call::Run(request));
    assert_eq!(limit_posted(&effects), vec![Some(128 << 20)]);
}

#[test]
fn an_interpreter_that_dies_at_its_memory_limit_is_a_crash_that_says_so_and_the_session_comes_back()
{
    let (mut page, active, spare) = Page::main_and_ready_spare(true);
    page.succeed(active, "x = 1");
    let (id, _) = page.run("grow()");
    let failed = WorkerMessage::RunFailed {
        id,
        message: "Aborted(OOM)".into(),
        memory: Some(MemoryUse {
            peak_bytes: 1 << 30,
            limit_bytes: 1 << 30,
            limit_reached: true,
        }),
    };
    let effects = page.on(message(active, failed));
    assert_eq!(terminated(&effects), vec![active]);
    let replay = replay_posted(&effects, spare, "x = 1");
    let effects = page.on(done(spare, replay, RunStatus::Ok));
    let result = result_of(&effects, id);
    assert_eq!(result.status, RunStatus::Crashed);
    let error = result.error.expect("an error");
    assert_eq!(error.hint.map(|h| h.code), Some(HintCode::MemoryLimit));
    assert_eq!(result.restored.map(|r| r.replayed), Some(1));
}
