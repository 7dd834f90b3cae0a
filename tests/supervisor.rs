//! The supervisor: how runs are stopped, how a worker is replaced and its
//! sessions replayed, and when the helpers (snapshot maker, warm spare)
//! start, driven through its events and checked by the effects it decides.

use sandpit::protocol::{
    HostMessage, InputFile, OutputChunk, OutputLimits, Query, RunId, RunRequest, RunResult,
    RunStatus, SnapshotUse, StreamName, WorkerMessage,
};
use sandpit::runtime::outcome::{stopped, StopReason};
use sandpit::runtime::supervisor::{
    Call, Effect, Event, Log, Reply, RunEvent, RuntimeError, RuntimeStatus, Start, Supervisor,
    Timer, WorkerId, BACKGROUND_IDLE_MS, INTERRUPT_GRACE_MS, INTERRUPT_REPEAT_MS, NUDGE_MS,
};

/// A supervisor and a clock, with the workers it has spawned so far.
struct Page {
    supervisor: Supervisor,
    now: f64,
}

impl Page {
    /// A page just started: returns it and its early worker, not yet sent `init`.
    fn started(interrupts: bool) -> (Self, WorkerId) {
        let (supervisor, effects) = Supervisor::start(interrupts);
        let early = only_spawn(&effects, Start::Early);
        let page = Self {
            supervisor,
            now: 0.0,
        };
        (page, early)
    }

    /// A page whose early worker was admitted (its CSP in place): returns it and that worker.
    fn admitted(interrupts: bool) -> (Self, WorkerId) {
        let (mut page, early) = Self::started(interrupts);
        let effects = page.on(Event::Guarded(Ok(true)));
        assert_eq!(effects, vec![Effect::Init(early)]);
        (page, early)
    }

    /// A page whose active worker is ready (started from a snapshot, so no
    /// maker) and whose warm spare is spawned; returns (active, spare) and
    /// leaves the spare loading.
    fn ready(interrupts: bool) -> (Self, WorkerId, WorkerId) {
        let (mut page, active) = Self::admitted(interrupts);
        let effects = page.on(ready(active, SnapshotUse::Used));
        assert!(spawns(&effects).is_empty(), "{effects:?}");
        let spare = page.idle_start(Start::Python);
        (page, active, spare)
    }

    /// The background timer, armed as the runtime became idle, goes off and
    /// starts one worker as `start`; returns it.
    fn idle_start(&mut self, start: Start) -> WorkerId {
        only_spawn(&self.on(Event::Tick(Timer::Background)), start)
    }

    /// [`Page::ready`], with the spare ready too.
    fn spare_ready(interrupts: bool) -> (Self, WorkerId, WorkerId) {
        let (mut page, active, spare) = Self::ready(interrupts);
        let effects = page.on(ready(spare, SnapshotUse::Used));
        assert!(effects.is_empty(), "a spare is ready quietly: {effects:?}");
        (page, active, spare)
    }

    fn on(&mut self, event: Event) -> Vec<Effect> {
        self.now += 1.0;
        self.supervisor.handle(self.now, event)
    }

    fn submit(&mut self, call: Call) -> (RunId, Vec<Effect>) {
        self.now += 1.0;
        self.supervisor
            .submit(self.now, call)
            .expect("the call is accepted")
    }

    fn run(&mut self, code: &str) -> (RunId, Vec<Effect>) {
        self.submit(Call::Run(RunRequest::new(code)))
    }

    /// Runs `code` to success in `worker`; returns its id.
    fn succeed(&mut self, worker: WorkerId, code: &str) -> RunId {
        let (id, effects) = self.run(code);
        assert_eq!(runs_posted(&effects), vec![(worker, id, code.to_owned())]);
        let effects = self.on(done(worker, id, RunStatus::Ok));
        assert_eq!(result_of(&effects, id).status, RunStatus::Ok);
        id
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

#[test]
fn an_unanswered_interrupt_is_repeated_until_the_grace_is_over_then_the_worker_is_replaced() {
    let (mut page, active, spare) = Page::spare_ready(true);
    let kept = page.succeed(active, "x = 1");
    let (id, effects) = page.submit(Call::Run(
        RunRequest::new("while True: pass").with_timeout_ms(Some(5_000)),
    ));
    assert_eq!(
        timers(&effects),
        vec![Effect::StartTimer(Timer::Deadline, 5_000)],
        "the nudges of the run before go on"
    );

    // The timeout interrupts; every repeat writes the interrupt again.
    let mut effects = page.on(Event::Tick(Timer::Deadline));
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
            [Effect::StartTimer(Timer::Deadline, wait)] => {
                assert_eq!(*wait, INTERRUPT_REPEAT_MS);
                waited += wait;
            }
            other => panic!("each step starts the next: {other:?}"),
        }
        assert!(waited <= INTERRUPT_GRACE_MS, "the grace period is bounded");
        effects = page.on(Event::Tick(Timer::Deadline));
    }
    assert_eq!(waited, INTERRUPT_GRACE_MS);
    assert_eq!(sent as u32, INTERRUPT_GRACE_MS / INTERRUPT_REPEAT_MS);
    assert!(
        interrupts(&effects).is_empty(),
        "the last step interrupts no more"
    );

    // Grace over: terminated, the ready spare takes over and replays the ledger.
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
    assert!(spawns(&effects).is_empty());
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)));
    let next_spare = page.idle_start(Start::Python);
    assert_ne!(next_spare, spare);
}

#[test]
fn an_honoured_interrupt_keeps_the_worker_and_says_why_the_run_stopped() {
    let (mut page, active, _) = Page::ready(true);
    let (id, _) = page.run("import time\ntime.sleep(60)");
    let effects = page.on(Event::Cancel(id));
    assert_eq!(interrupts(&effects), vec![active]);
    assert!(terminated(&effects).is_empty());
    assert_eq!(
        timers(&effects),
        vec![Effect::StartTimer(Timer::Deadline, INTERRUPT_REPEAT_MS)]
    );

    // The runner's result for an interrupted run says `cancelled`, with its line.
    let effects = page.on(done(active, id, RunStatus::Cancelled));
    // The spare that was loading gave way to the run; it starts again once idle.
    assert_eq!(
        timers(&effects),
        vec![
            Effect::CancelTimer(Timer::Deadline),
            Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)
        ]
    );
    let result = result_of(&effects, id);
    assert_eq!(result.status, RunStatus::Cancelled);
    assert_eq!(result.restored, None, "state was kept");
    assert!(terminated(&effects).is_empty());
    // The next run goes to the same worker.
    page.succeed(active, "print(1)");
}

#[test]
fn stopping_a_run_being_interrupted_terminates_it_at_once() {
    let (mut page, active, spare) = Page::spare_ready(true);
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
fn without_interrupts_a_cancel_terminates_promotes_the_ready_spare_and_replays_the_ledger() {
    let (mut page, active, spare) = Page::spare_ready(false);
    page.succeed(active, "x = 1");
    let (other, _) = page.submit(Call::Run(RunRequest::new("y = 2").in_session("other")));
    let sessions = page.supervisor.sessions();
    assert_eq!(sessions, vec!["main".to_owned(), "other".to_owned()]);
    let effects = page.on(done(active, other, RunStatus::Ok));
    assert_eq!(result_of(&effects, other).status, RunStatus::Ok);
    let failing = page.run("raise ValueError").0;
    page.on(done(active, failing, RunStatus::Error));

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
    // Successful runs only, in order, into the promoted spare; a new spare
    // starts once the runtime is idle.
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
    // The promoted spare is the active worker now.
    page.succeed(spare, "print(x)");
}

#[test]
fn a_replay_that_fails_is_reported_lost() {
    let (mut page, active, spare) = Page::spare_ready(false);
    page.succeed(active, "import random\nx = random.random()");
    let (id, _) = page.run("while True: pass");
    let effects = page.on(Event::Tick(Timer::Deadline));
    let replay = replay_posted(&effects, spare, "import random\nx = random.random()");
    let effects = page.on(done(spare, replay, RunStatus::Error));
    let restored = result_of(&effects, id)
        .restored
        .expect("the sessions were restored");
    assert_eq!(restored.replayed, 0);
    assert_eq!(restored.lost.len(), 1);
    assert_eq!(restored.lost[0].code_start, "import random");
}

#[test]
fn a_job_makes_a_loading_spare_give_way_and_it_starts_again_once_idle() {
    let (mut page, active, spare) = Page::ready(true);
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
    // A job within the idle time stops the timer; the next idle time counts afresh.
    let (next, effects) = page.run("y = 2");
    assert!(timers(&effects).contains(&Effect::CancelTimer(Timer::Background)));
    page.on(done(active, next, RunStatus::Ok));
    let again = page.idle_start(Start::Python);
    assert_ne!(again, spare);
    // A ready spare stays when a job comes.
    assert!(page.on(ready(again, SnapshotUse::Used)).is_empty());
    let (_, effects) = page.run("z = 3");
    assert!(terminated(&effects).is_empty());
}

#[test]
fn a_crash_while_the_spare_is_still_loading_waits_for_its_ready() {
    let (mut page, active, spare) = Page::ready(true);
    // The worker dies between jobs, while the spare loads.
    let effects = page.on(Event::Error(active, "Aborted()".into()));
    assert_eq!(terminated(&effects), vec![active]);
    assert!(
        spawns(&effects).is_empty(),
        "the loading spare is the next worker: no cold start"
    );
    assert_eq!(
        posts(&effects),
        0,
        "nothing reaches a worker that is not ready"
    );
    assert!(resolved(&effects).is_empty());

    // Its `ready` continues the work: the run waiting for it, then (only
    // once the runtime is idle) a new spare.
    let (id, _) = page.run("x = 1");
    let effects = page.on(ready(spare, SnapshotUse::Used));
    assert!(matches!(
        effects.first(),
        Some(Effect::Status(RuntimeStatus::Ready { .. }))
    ));
    assert_eq!(runs_posted(&effects), vec![(spare, id, "x = 1".into())]);
    assert!(spawns(&effects).is_empty());
    page.on(done(spare, id, RunStatus::Ok));
    page.idle_start(Start::Python);
}

#[test]
fn a_run_failing_in_the_interpreter_restarts_like_a_crash() {
    let (mut page, active, spare) = Page::spare_ready(false);
    let (id, _) = page.run("boom");
    let failed = WorkerMessage::RunFailed {
        id,
        message: "memory access out of bounds".into(),
    };
    let effects = page.on(message(active, failed));
    assert_eq!(terminated(&effects), vec![active]);
    assert_eq!(result_of(&effects, id).status, RunStatus::Crashed);
    page.succeed(spare, "print(1)");
}

#[test]
fn a_crash_with_no_spare_at_all_starts_a_new_worker() {
    let (mut page, active) = Page::admitted(false);
    page.on(ready(active, SnapshotUse::Absent));
    let effects = page.on(Event::Error(active, "Aborted()".into()));
    assert_eq!(terminated(&effects), vec![active]);
    only_spawn(&effects, Start::Python);
}

#[test]
fn a_queued_run_cancelled_never_reaches_python() {
    let (mut page, active, _) = Page::ready(true);
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
fn without_a_snapshot_the_maker_starts_first_and_the_spare_once_it_has_stored_one() {
    let (mut page, active) = Page::admitted(true);
    let effects = page.on(ready(active, SnapshotUse::Absent));
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
    page.idle_start(Start::Python);
}

#[test]
fn a_maker_that_fails_lets_the_spare_start_and_is_not_tried_again() {
    let (mut page, active) = Page::admitted(false);
    let effects = page.on(ready(
        active,
        SnapshotUse::Rejected {
            reason: "another Pyodide".into(),
        },
    ));
    assert!(spawns(&effects).is_empty());
    let maker = page.idle_start(Start::SnapshotMaker);
    let effects = page.on(Event::Error(maker, "out of memory".into()));
    assert!(matches!(
        effects.first(),
        Some(Effect::Log(Log::Warning(_)))
    ));
    assert_eq!(terminated(&effects), vec![maker]);
    let spare = page.idle_start(Start::Python);

    // The spare takes over while it loads; ready without a snapshot either,
    // it gets no maker: a new spare comes once idle.
    let effects = page.on(Event::Error(active, "Aborted()".into()));
    assert_eq!(terminated(&effects), vec![active]);
    assert!(spawns(&effects).is_empty());
    let effects = page.on(ready(spare, SnapshotUse::Absent));
    assert!(spawns(&effects).is_empty());
    page.idle_start(Start::Python);
}

#[test]
fn a_maker_that_gives_way_to_a_job_is_started_again_once_idle() {
    let (mut page, active) = Page::admitted(true);
    page.on(ready(active, SnapshotUse::Absent));
    let maker = page.idle_start(Start::SnapshotMaker);
    let (id, effects) = page.run("1");
    assert_eq!(terminated(&effects), vec![maker]);
    page.on(done(active, id, RunStatus::Ok));
    let again = page.idle_start(Start::SnapshotMaker);
    assert_ne!(again, maker);
}

#[test]
fn a_maker_that_cannot_start_lets_the_spare_start() {
    let (mut page, active) = Page::admitted(true);
    page.on(ready(active, SnapshotUse::Absent));
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
fn neither_helper_starts_while_the_first_run_runs() {
    let (mut page, active) = Page::admitted(true);
    let (id, effects) = page.run("print('first')");
    assert_eq!(posts(&effects), 0, "Python is not ready yet");
    let effects = page.on(ready(active, SnapshotUse::Absent));
    assert_eq!(
        runs_posted(&effects),
        vec![(active, id, "print('first')".into())]
    );
    assert!(spawns(&effects).is_empty(), "{effects:?}");
    let effects = page.on(done(active, id, RunStatus::Ok));
    assert_eq!(resolved(&effects), vec![id]);
    assert!(
        spawns(&effects).is_empty(),
        "only once the runtime has been idle a while"
    );
    page.idle_start(Start::SnapshotMaker);
}

#[test]
fn started_from_a_snapshot_the_spare_starts_once_the_runtime_is_idle() {
    let (mut page, active) = Page::admitted(true);
    let effects = page.on(ready(active, SnapshotUse::Used));
    assert_eq!(
        effects.first(),
        Some(&Effect::Status(RuntimeStatus::Ready {
            python: "3.14.2".into(),
            pyodide: "314.0.7".into(),
            interrupts: true,
            snapshot: SnapshotUse::Used,
        }))
    );
    assert_eq!(
        timers(&effects),
        vec![Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)]
    );
    page.idle_start(Start::Python);
    // A tick that finds the runtime busy starts nothing.
    let (mut page, active) = Page::admitted(true);
    page.on(ready(active, SnapshotUse::Used));
    page.run("while True: pass");
    assert!(spawns(&page.on(Event::Tick(Timer::Background))).is_empty());
}

#[test]
fn messages_from_a_retired_worker_are_ignored() {
    let (mut page, active, spare) = Page::spare_ready(false);
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
fn a_failure_before_ready_fails_every_waiting_job_and_later_runs() {
    let (mut page, active) = Page::admitted(true);
    let (run, _) = page.run("print(1)");
    let (clear, _) = page.submit(Call::Clear {
        session: "main".into(),
        forget: false,
    });
    let (query, _) = page.submit(Call::Query(Query::Check {
        code: "import numpy".into(),
    }));
    let fatal = WorkerMessage::Fatal {
        message: "could not load Pyodide".into(),
    };
    let effects = page.on(message(active, fatal));
    assert_eq!(terminated(&effects), vec![active]);
    let unavailable = RuntimeError::Unavailable("could not load Pyodide".into());
    for (id, reply) in [
        (run, Reply::Run(Err(unavailable.clone()))),
        (clear, Reply::Clear(Err(unavailable.clone()))),
        (query, Reply::Query(Err(unavailable.clone()))),
    ] {
        assert!(effects.contains(&Effect::Resolve(id, reply)), "{effects:?}");
    }
    assert_eq!(
        effects.last(),
        Some(&Effect::Status(RuntimeStatus::Failed {
            message: "could not load Pyodide".into()
        }))
    );
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
fn timeouts_count_only_while_python_has_the_run() {
    let (mut page, active, _) = Page::ready(true);
    let (id, effects) = page.submit(Call::Run(
        RunRequest::new("import numpy")
            .with_packages(vec!["numpy".into()])
            .with_timeout_ms(Some(2_000)),
    ));
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Deadline, 2_000)));
    assert!(effects.contains(&Effect::Notify(id, RunEvent::Started)));
    let effects = page.on(message(active, WorkerMessage::LoadingPackages { id }));
    assert_eq!(timers(&effects), vec![Effect::CancelTimer(Timer::Deadline)]);
    assert!(matches!(
        effects.as_slice(),
        [_, Effect::Notify(_, RunEvent::Packages { .. })]
    ));
    // Its timeout starts again, in full, once the packages are in.
    let effects = page.on(message(active, WorkerMessage::Started { id }));
    assert_eq!(
        timers(&effects),
        vec![Effect::StartTimer(Timer::Deadline, 2_000)]
    );
    assert!(effects.contains(&Effect::Notify(id, RunEvent::Started)));
}

#[test]
fn a_run_stopped_while_loading_packages_keeps_its_interrupt_repeats() {
    let (mut page, active, _) = Page::ready(true);
    let (id, _) = page.run("import numpy");
    page.on(message(active, WorkerMessage::LoadingPackages { id }));
    assert_eq!(interrupts(&page.on(Event::Cancel(id))), vec![active]);
    let effects = page.on(message(active, WorkerMessage::Started { id }));
    assert!(timers(&effects).is_empty(), "{effects:?}");
    let effects = page.on(message(active, WorkerMessage::LoadingPackages { id }));
    assert!(timers(&effects).is_empty(), "{effects:?}");
    assert_eq!(
        interrupts(&page.on(Event::Tick(Timer::Deadline))),
        vec![active]
    );
}

#[test]
fn runs_in_python_are_nudged_to_stream_while_they_run_and_only_then() {
    let (mut page, active, _) = Page::ready(true);
    let (id, _) = page.run("print(1); big()");
    let effects = page.on(Event::Tick(Timer::Nudge));
    assert_eq!(
        effects,
        vec![
            Effect::Nudge(active),
            Effect::StartTimer(Timer::Nudge, NUDGE_MS)
        ]
    );
    page.on(done(active, id, RunStatus::Ok));
    assert!(page.on(Event::Tick(Timer::Nudge)).is_empty());
    // The next run starts the nudges again.
    let (_, effects) = page.run("2");
    assert!(effects.contains(&Effect::StartTimer(Timer::Nudge, NUDGE_MS)));
}

#[test]
fn output_not_yet_streamed_is_told_before_the_result() {
    let (mut page, active, _) = Page::ready(true);
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
    let (mut page, _, _) = Page::ready(true);
    let request = RunRequest::new("open('big').read()")
        .in_session("files")
        .with_files(vec![InputFile {
            path: "big".into(),
            content_base64: "AAAA".repeat(100),
        }]);
    let request = RunRequest {
        limits: OutputLimits {
            input_bytes: 10,
            ..request.limits
        },
        ..request
    };
    let refused = page.supervisor.submit(1.0, Call::Run(request));
    assert!(
        matches!(refused, Err(RuntimeError::Rejected(_))),
        "{refused:?}"
    );
    assert!(!page.supervisor.sessions().contains(&"files".to_owned()));
}

#[test]
fn a_query_stopped_by_a_restart_is_told_so_and_a_clear_counts_as_done() {
    let (mut page, active, spare) = Page::spare_ready(false);
    let (query, effects) = page.submit(Call::Query(Query::ReadFile {
        session: "main".into(),
        path: "out.csv".into(),
    }));
    assert_eq!(posts(&effects), 1);
    let effects = page.on(Event::Error(active, "Aborted()".into()));
    assert_eq!(
        effects
            .iter()
            .find(|effect| matches!(effect, Effect::Resolve(..))),
        Some(&Effect::Resolve(
            query,
            Reply::Query(Err(RuntimeError::Rejected(
                "the sandbox restarted before it could answer".into()
            )))
        ))
    );
    let (clear, _) = page.submit(Call::Clear {
        session: "main".into(),
        forget: true,
    });
    let effects = page.on(message(spare, WorkerMessage::SessionCleared { id: clear }));
    assert_eq!(effects[0], Effect::Resolve(clear, Reply::Clear(Ok(()))));
}
