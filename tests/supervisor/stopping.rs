//! Stopping runs: interrupts and their repeats, terminating and replaying,
//! crashes, cancels, and a retired worker's last words.

use super::*;

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
    // Successful runs only, in order, into the spare, back to back; a new
    // spare starts once the runtime is idle.
    let replays = runs_posted(&effects);
    let codes: Vec<_> = replays
        .iter()
        .map(|(to, _, code)| (*to, code.as_str()))
        .collect();
    assert_eq!(codes, [(spare, "x = 1"), (spare, "y = 2")]);
    let (first, second) = (replays[0].1, replays[1].1);
    assert!(spawns(&effects).is_empty());
    let effects = page.on(done(spare, first, RunStatus::Ok));
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
