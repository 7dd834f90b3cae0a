//! Background work: the snapshot maker and the warm spares, and when a
//! full pool parks an idle session to keep one.

use super::*;

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

#[test]
fn a_second_spare_is_kept_while_sessions_are_made_back_to_back_within_the_memory_budget() {
    let (mut page, _) = Page::ready_with(limits(8, 2));
    page.open(&["s0"]);
    // One spare once idle; a session made now takes it at once.
    let spare = page.idle_start(Start::Python);
    page.on(ready(spare, SnapshotUse::Used));
    let (id, effects) = page.run_in("s1", "1");
    assert_eq!(
        runs_posted(&effects),
        vec![(spare, id, "1".into())],
        "no worker start"
    );
    page.on(done(spare, id, RunStatus::Ok));
    // Two sessions made back to back: two spares, one after the other.
    let second = page.idle_start(Start::Python);
    let effects = page.on(ready(second, SnapshotUse::Used));
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)));
    let third = page.idle_start(Start::Python);
    page.on(ready(third, SnapshotUse::Used));
    for (name, spare) in [("s2", second), ("s3", third)] {
        let (id, effects) = page.run_in(name, "1");
        assert_eq!(
            runs_posted(&effects),
            vec![(spare, id, "1".into())],
            "{name} starts at once"
        );
        page.on(done(spare, id, RunStatus::Ok));
    }
    // Two spares again; then a session made long after the last keeps one.
    for _ in 0..2 {
        let spare = page.idle_start(Start::Python);
        page.on(ready(spare, SnapshotUse::Used));
    }
    page.wait(BACK_TO_BACK_MS);
    let (id, effects) = page.run_in("s4", "1");
    let [(spare, _, _)] = runs_posted(&effects)[..] else {
        panic!("a spare takes it: {effects:?}");
    };
    let effects = page.on(done(spare, id, RunStatus::Ok));
    assert!(
        !timers(&effects).contains(&Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)),
        "one spare is left, and one is enough"
    );
}

#[test]
fn spares_never_make_the_pool_park_a_session() {
    let (mut page, _) = Page::ready_with(limits(3, 2));
    page.open(&["a", "b"]);
    // Made back to back: two spares wanted, but the budget has room for one.
    let spare = page.idle_start(Start::Python);
    let effects = page.on(ready(spare, SnapshotUse::Used));
    assert!(!timers(&effects).contains(&Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)));
    page.wait(10 * BACKGROUND_IDLE_MS);
    let effects = page.on(Event::Tick(Timer::Background));
    assert!(spawns(&effects).is_empty() && terminated(&effects).is_empty());
    assert_eq!(page.state("a").phase, SessionPhase::Idle);
}

#[test]
fn a_full_pool_parks_a_long_idle_session_to_keep_a_warm_spare_which_brings_it_back_at_once() {
    let (mut page, _) = Page::ready_with(limits(3, 2));
    let workers = page.open(&["a", "b", "c"]);
    let (id, _) = page.run_in("b", "1");
    page.on(done(workers[1], id, RunStatus::Ok));
    // Not before the idle time.
    page.wait(BACKGROUND_IDLE_MS);
    let effects = page.on(Event::Tick(Timer::Background));
    assert!(terminated(&effects).is_empty() && spawns(&effects).is_empty());
    page.wait(SPARE_AFTER_IDLE_MS);
    let effects = page.on(Event::Tick(Timer::Pool));
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Background, BACKGROUND_IDLE_MS)));
    page.wait(BACKGROUND_IDLE_MS);
    let effects = page.on(Event::Tick(Timer::Background));
    assert_eq!(
        terminated(&effects),
        vec![workers[0]],
        "a, idle longest, makes room"
    );
    let spare = only_spawn(&effects, Start::Python);
    page.assert_state(
        "a",
        SessionPhase::Parked,
        "Parked, idle, to keep a warm spare ready",
    );
    page.on(ready(spare, SnapshotUse::Used));
    // Its next call needs no worker start: the spare replays it at once.
    let (back, effects) = page.run_in("a", "x");
    assert!(spawns(&effects).is_empty() && terminated(&effects).is_empty());
    let replay = replay_posted(&effects, spare, "x = 0");
    let effects = page.on(done(spare, replay, RunStatus::Ok));
    assert_eq!(runs_posted(&effects), vec![(spare, back, "x".into())]);
}

#[test]
fn a_small_pool_keeps_its_sessions_rather_than_a_spare() {
    let (mut page, _) = Page::ready_with(limits(2, 2));
    page.open(&["a", "b"]);
    page.wait(10 * SPARE_AFTER_IDLE_MS);
    let effects = page.on(Event::Tick(Timer::Pool));
    assert!(
        timers(&effects).is_empty() && terminated(&effects).is_empty(),
        "{effects:?}"
    );
    assert_eq!(page.state("a").phase, SessionPhase::Idle);
}
