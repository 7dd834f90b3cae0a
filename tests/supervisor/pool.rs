//! The pool: a worker per session, the warm spare, parking and restoring by replay.

use super::*;

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
