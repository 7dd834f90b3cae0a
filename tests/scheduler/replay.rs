//! The ledger and its replay: after a restart or a park, what comes back,
//! what is lost, clears, files kept across a reload, and failed workers.

use super::*;

#[test]
fn a_restart_replays_successful_runs_in_order_before_the_queue() {
    let mut scheduler = Session::new();
    scheduler.set_ready();
    succeed(&mut scheduler, "x = 1");
    let (failed, _) = scheduler.submit(run("boom()"));
    scheduler.complete(failed, false, "NameError");
    succeed(&mut scheduler, "y = x + 1");
    let (stuck, _) = scheduler.submit(run("while True: pass"));
    let (later, _) = scheduler.submit(run("y"));

    assert_eq!(
        scheduler.restart("timed out"),
        vec![],
        "the stuck run waits for the replay"
    );
    assert_eq!(scheduler.in_flight(), None);
    let (a, code) = posted(scheduler.set_ready()).expect("a replay");
    assert_eq!(code, "x = 1", "failed runs are not replayed");
    let (done, next) = scheduler.complete(a, true, "");
    assert_eq!(done, vec![]);
    let (b, code) = posted(next).expect("a replay");
    assert_eq!(code, "y = x + 1");
    let (done, next) = scheduler.complete(b, true, "");
    assert_eq!(
        done,
        vec![Completion::Restored(
            stuck,
            Restoration {
                replayed: 2,
                lost: vec![],
                skipped: 1,
                ms: 0,
                before_run: None,
            }
        )]
    );
    assert_eq!(
        posted(next),
        Some((later, "y".into())),
        "then the queue goes on"
    );
}

#[test]
fn a_replay_that_fails_is_reported_lost_and_not_replayed_again() {
    let mut scheduler = Session::new();
    scheduler.set_ready();
    succeed(&mut scheduler, "import random\nx = random.random()");
    succeed(&mut scheduler, "y = 2");
    let (stuck, _) = scheduler.submit(run("while True: pass"));
    scheduler.restart("timed out");
    let (a, _) = posted(scheduler.set_ready()).expect("a replay");
    let (_, next) = scheduler.complete(a, false, "ValueError: boom");
    let (b, _) = posted(next).expect("a replay");
    let (done, _) = scheduler.complete(b, true, "");
    let lost = LostRun {
        session: "main".into(),
        code_start: "import random".into(),
        reason: "ValueError: boom".into(),
    };
    assert_eq!(
        done,
        vec![Completion::Restored(
            stuck,
            Restoration {
                replayed: 1,
                lost: vec![lost],
                skipped: 0,
                ms: 0,
                before_run: None,
            }
        )]
    );

    // A second restart replays only what is left.
    let (again, _) = scheduler.submit(run("while True: pass"));
    scheduler.restart("timed out");
    let (c, code) = posted(scheduler.set_ready()).expect("a replay");
    assert_eq!(code, "y = 2");
    let (done, _) = scheduler.complete(c, true, "");
    assert!(matches!(&done[..], [Completion::Restored(id, r)] if *id == again && r.replayed == 1));
}

#[test]
fn a_replay_that_hangs_is_lost_and_the_restore_starts_over() {
    let mut scheduler = Session::new();
    scheduler.set_ready();
    succeed(&mut scheduler, "a = 1");
    succeed(&mut scheduler, "b = 2");
    let (stuck, _) = scheduler.submit(run("while True: pass"));
    scheduler.restart("timed out");
    let (first_replay, _) = posted(scheduler.set_ready()).expect("a replay");
    let (_, next) = scheduler.complete(first_replay, true, "");
    assert!(posted(next).is_some(), "second replay in flight");
    // The second replay hangs: the worker is replaced again.
    assert_eq!(scheduler.restart("timed out while being replayed"), vec![]);
    let (c, code) = posted(scheduler.set_ready()).expect("a replay");
    assert_eq!(code, "a = 1", "the new worker needs everything again");
    let (done, _) = scheduler.complete(c, true, "");
    let [Completion::Restored(id, restoration)] = &done[..] else {
        panic!("expected the restore to finish: {done:?}");
    };
    assert_eq!(*id, stuck);
    assert_eq!(restoration.replayed, 1);
    assert_eq!(restoration.lost.len(), 1);
    assert_eq!(restoration.lost[0].code_start, "b = 2");
}

#[test]
fn a_restart_with_nothing_to_replay_completes_at_once() {
    let mut scheduler = Session::new();
    scheduler.set_ready();
    let (stuck, _) = scheduler.submit(run("while True: pass"));
    assert_eq!(
        scheduler.restart("timed out"),
        vec![Completion::Restored(stuck, Restoration::default())]
    );
}

#[test]
fn a_clear_drops_the_ledger_and_goes_without_waiting_for_a_worker() {
    let mut scheduler = Session::new();
    scheduler.set_ready();
    succeed(&mut scheduler, "x = 1");
    let (clear, now) = scheduler.submit(Job::Clear { forget: false });
    assert_eq!(
        posted(now),
        Some((clear, "reset".into())),
        "the worker is ended"
    );
    assert!(
        !scheduler.scheduler.is_ready(),
        "and the next job waits for a new one"
    );
    assert!(!scheduler.scheduler.has_state());
    // Nothing of the session is replayed any more.
    let (stuck, _) = scheduler.submit(run("while True: pass"));
    assert!(scheduler.scheduler.needs_worker());
    let (replayless, _) = posted(scheduler.set_ready()).expect("the run");
    assert_eq!(replayless, stuck);
    assert_eq!(
        scheduler.restart("timed out"),
        vec![Completion::Restored(stuck, Restoration::default())]
    );

    // A parked session (replays waiting for a worker) is cleared at once too.
    let mut parked = Session::new();
    parked.set_ready();
    succeed(&mut parked, "y = 1");
    assert_eq!(parked.restart(""), vec![]);
    assert!(
        !parked.scheduler.needs_worker(),
        "a park waits for the next job"
    );
    let (clear, now) = parked.submit(Job::Clear { forget: true });
    assert_eq!(posted(now), Some((clear, "reset".into())));
    assert!(parked.scheduler.is_empty(), "its replays went with it");
}

#[test]
fn a_parked_session_is_restored_before_its_next_job_which_is_told_so() {
    let mut session = Session::new();
    session.set_ready();
    succeed(&mut session, "x = 1");
    let (failed, _) = session.submit(run("boom()"));
    session.complete(failed, false, "NameError");
    assert!(session.scheduler.is_idle());

    // Parked: nothing is stopped, nothing waits.
    assert_eq!(session.restart(""), vec![]);
    assert!(session.scheduler.is_idle(), "the replays wait for a job");
    assert!(!session.scheduler.needs_worker());
    let (next, now) = session.submit(run("x + 1"));
    assert_eq!(now, None, "no worker yet");
    assert!(session.scheduler.needs_worker());
    let (replay, code) = posted(session.set_ready()).expect("a replay");
    assert_eq!(code, "x = 1");
    assert!(session.scheduler.replaying());
    let (done, now) = session.complete(replay, true, "");
    assert_eq!(done, vec![]);
    assert_eq!(posted(now), Some((next, "x + 1".into())));
    assert_eq!(
        session.scheduler.take_note(),
        Some(Restoration {
            replayed: 1,
            lost: vec![],
            skipped: 1,
            ms: 0,
            before_run: Some(true),
        }),
        "the next run's result says how the session came back, and that the failed run is not back"
    );
    assert_eq!(session.scheduler.take_note(), None, "once");
}

#[test]
fn fresh_runs_are_not_replayed() {
    let mut session = Session::new();
    session.set_ready();
    let (fresh, now) = session.submit(fresh("a = 1"));
    assert_eq!(posted(now), Some((fresh, "a = 1".into())));
    session.complete(fresh, true, "");
    assert!(!session.scheduler.has_state());
    assert_eq!(session.restart(""), vec![]);
    assert!(
        session.scheduler.is_empty(),
        "a session of fresh runs has nothing to restore"
    );
}

#[test]
fn files_kept_across_a_reload_are_replayed_first_and_not_counted_as_runs() {
    let file = InputFile {
        path: "data.csv".into(),
        content_base64: "YQ==".into(),
    };
    let mut session = Session::new();
    session
        .scheduler
        .restore_files(vec![file.clone()], &mut session.ids);
    assert!(
        !session.scheduler.needs_worker(),
        "they start no worker by themselves"
    );
    assert!(session.scheduler.has_state());
    let (run_id, _) = session.submit(run("open('data.csv').read()"));
    let (replay, code) = posted(session.set_ready()).expect("the files first");
    assert_eq!(code, "");
    let (_, next) = session.complete(replay, true, "");
    assert_eq!(
        posted(next),
        Some((run_id, "open('data.csv').read()".into()))
    );
    assert_eq!(
        session.scheduler.take_note(),
        None,
        "putting files back is not news"
    );

    // Replayed with the session when its worker is replaced.
    session.complete(run_id, true, "");
    session.restart("");
    session.submit(run("1"));
    let Some(Dispatch::Post(HostMessage::Run { request, .. })) = session.set_ready() else {
        panic!("a replay");
    };
    assert_eq!(request.files, vec![file]);
}

#[test]
fn a_callers_failed_worker_fails_its_jobs_but_keeps_the_ledger() {
    let mut session = Session::new();
    session.set_ready();
    succeed(&mut session, "x = 1");
    session.restart("");
    let (a, _) = session.submit(run("1"));
    let (b, _) = session.submit(run("2"));
    assert_eq!(session.scheduler.fail_callers(), vec![a, b]);
    assert!(!session.scheduler.needs_worker());
    assert!(session.scheduler.has_state());
    session.submit(run("x"));
    let (_, code) = posted(session.set_ready()).expect("a replay");
    assert_eq!(code, "x = 1");
}

#[test]
fn draining_returns_every_callers_job_that_will_never_finish() {
    let mut scheduler = Session::new();
    scheduler.set_ready();
    let (first, _) = scheduler.submit(run("1"));
    let (second, _) = scheduler.submit(run("2"));
    assert_eq!(scheduler.scheduler.drain(), vec![first, second]);
    assert_eq!(scheduler.waiting(), 0);
    let (_, now) = scheduler.submit(run("3"));
    assert_eq!(now, None, "a drained scheduler waits for a new ready");
}

#[test]
fn replays_go_to_the_worker_back_to_back_and_the_restore_says_what_it_cost() {
    let mut session = Session::new();
    session.set_ready();
    for k in 0..20 {
        succeed(&mut session, &format!("x = {k}"));
    }
    let (failed, _) = session.submit(run("oops"));
    session.complete(failed, false, "NameError");
    let (stopped, _) = session.submit(run("1 / 0"));
    session.complete(stopped, false, "ZeroDivisionError");
    session.restart("");
    let (next, _) = session.submit(run("x"));
    session.scheduler.worker_assigned(1_000.0);
    session.scheduler.set_ready();
    // The first replay, then as many as may wait behind it, without a round trip each.
    let mut posted_now = Vec::new();
    while let Some(dispatch) = session.scheduler.dispatch() {
        posted_now.push(posted(Some(dispatch)).expect("a replay").1);
    }
    assert_eq!(posted_now.len(), 17, "one in flight and 16 behind it");
    assert_eq!(posted_now[0], "x = 0");
    assert_eq!(
        session.scheduler.waiting(),
        1,
        "only the caller's job counts as waiting"
    );
    // Each replay that ends lets another in; the caller's job waits for the last.
    let mut done = Vec::new();
    let mut replays = 0;
    while let Some(id) = session.in_flight() {
        assert_ne!(id, next);
        done = session
            .scheduler
            .complete(id, true, "", 1_000.0 + 10.0 * f64::from(replays));
        replays += 1;
        while let Some(dispatch) = session.scheduler.dispatch() {
            let (id, _) = posted(Some(dispatch)).expect("a post");
            if id == next {
                assert_eq!(replays, 20, "the caller's job goes after every replay");
            }
        }
        if session.in_flight() == Some(next) {
            break;
        }
    }
    assert_eq!(done, vec![]);
    assert_eq!(
        session.scheduler.take_note(),
        Some(Restoration {
            replayed: 20,
            lost: vec![],
            skipped: 2,
            ms: 190,
            before_run: Some(true),
        }),
        "the cost from the worker's start to the last replay, and the failed runs that could not come back"
    );
}

#[test]
fn a_restart_during_back_to_back_replays_queues_each_replay_once() {
    let mut session = Session::new();
    session.set_ready();
    for k in 0..5 {
        succeed(&mut session, &format!("x = {k}"));
    }
    session.restart("");
    session.submit(run("x"));
    session.scheduler.set_ready();
    while session.scheduler.dispatch().is_some() {}
    let first = session.in_flight().expect("a replay");
    session.complete(first, true, "");
    // The worker dies with replays waiting in it: the one it was running
    // is lost, and each other is queued once again.
    session.restart("crashed");
    session.scheduler.set_ready();
    let mut codes = Vec::new();
    while let Some(dispatch) = session.scheduler.dispatch() {
        codes.push(posted(Some(dispatch)).expect("a replay").1);
    }
    assert_eq!(codes, ["x = 0", "x = 2", "x = 3", "x = 4"]);
}
