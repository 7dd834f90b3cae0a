//! The scheduler: nothing is dropped while Python loads, one job at a time,
//! and a restart replays every successful run before anything else.

use sandpit::protocol::{HostMessage, LostRun, Restoration, RunId, RunRequest};
use sandpit::runtime::scheduler::{Completion, Job, Scheduler};

fn run(code: &str) -> Job {
    Job::Run(RunRequest::new(code))
}

fn posted(message: Option<HostMessage>) -> Option<(RunId, String)> {
    match message {
        Some(HostMessage::Run { id, request }) => Some((id, request.code)),
        Some(HostMessage::ClearSession { id, session }) => Some((id, format!("clear {session}"))),
        _ => None,
    }
}

/// Runs `code` to success on a ready scheduler; returns its id.
fn succeed(scheduler: &mut Scheduler, code: &str) -> RunId {
    let (id, next) = scheduler.submit(run(code));
    assert_eq!(
        posted(next).map(|(i, _)| i),
        Some(id),
        "an idle worker takes the job"
    );
    let (done, _) = scheduler.complete(id, true, "");
    assert_eq!(done, vec![Completion::Finished(id)]);
    id
}

#[test]
fn runs_submitted_while_loading_wait_and_then_go_in_order() {
    let mut scheduler = Scheduler::new();
    let (first, now) = scheduler.submit(run("1"));
    assert_eq!(now, None, "nothing may reach a worker that is not ready");
    let (second, now) = scheduler.submit(run("2"));
    assert_eq!(now, None);
    assert_eq!(scheduler.waiting(), 2);

    assert_eq!(posted(scheduler.set_ready()), Some((first, "1".into())));
    let (done, next) = scheduler.complete(first, true, "");
    assert_eq!(done, vec![Completion::Finished(first)]);
    assert_eq!(posted(next), Some((second, "2".into())));
}

#[test]
fn only_one_job_is_in_the_worker_and_stray_finishes_are_ignored() {
    let mut scheduler = Scheduler::new();
    scheduler.set_ready();
    let (first, _) = scheduler.submit(run("1"));
    let (second, now) = scheduler.submit(run("2"));
    assert_eq!(now, None, "the second run waits for the first");
    assert_eq!(scheduler.complete(second, true, ""), (vec![], None));
    assert_eq!(scheduler.complete(first + 100, true, ""), (vec![], None));
    assert_eq!(scheduler.in_flight(), Some(first));
}

#[test]
fn a_queued_run_can_be_cancelled_before_it_starts() {
    let mut scheduler = Scheduler::new();
    let (first, _) = scheduler.submit(run("1"));
    let (second, _) = scheduler.submit(run("2"));
    assert!(scheduler.cancel_waiting(first));
    assert!(!scheduler.cancel_waiting(first), "only once");
    assert_eq!(posted(scheduler.set_ready()), Some((second, "2".into())));
}

#[test]
fn a_restart_replays_successful_runs_in_order_before_the_queue() {
    let mut scheduler = Scheduler::new();
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
                lost: vec![]
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
    let mut scheduler = Scheduler::new();
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
                lost: vec![lost]
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
    let mut scheduler = Scheduler::new();
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
    let mut scheduler = Scheduler::new();
    scheduler.set_ready();
    let (stuck, _) = scheduler.submit(run("while True: pass"));
    assert_eq!(
        scheduler.restart("timed out"),
        vec![Completion::Restored(stuck, Restoration::default())]
    );
}

#[test]
fn sessions_are_listed_cleared_and_forgotten() {
    let mut scheduler = Scheduler::new();
    scheduler.set_ready();
    let (a, _) = scheduler.submit(Job::Run(RunRequest::new("x = 1").in_session("a")));
    scheduler.complete(a, true, "");
    let (b, _) = scheduler.submit(Job::Run(RunRequest::new("x = 2").in_session("b")));
    scheduler.complete(b, true, "");
    assert_eq!(scheduler.sessions(), vec!["a".to_owned(), "b".to_owned()]);

    let (clear, next) = scheduler.submit(Job::Clear {
        session: "a".into(),
        forget: true,
    });
    assert_eq!(posted(next), Some((clear, "clear a".into())));
    assert_eq!(
        scheduler.complete(clear, true, "").0,
        vec![Completion::Finished(clear)]
    );
    assert_eq!(scheduler.sessions(), vec!["b".to_owned()]);

    // A cleared session's runs are no longer replayed.
    let (stuck, _) = scheduler.submit(run("while True: pass"));
    scheduler.restart("timed out");
    let (replay, code) = posted(scheduler.set_ready()).expect("a replay");
    assert_eq!(code, "x = 2");
    let (done, _) = scheduler.complete(replay, true, "");
    assert!(matches!(&done[..], [Completion::Restored(id, r)] if *id == stuck && r.replayed == 1));
}

#[test]
fn draining_returns_every_callers_job_that_will_never_finish() {
    let mut scheduler = Scheduler::new();
    scheduler.set_ready();
    let (first, _) = scheduler.submit(run("1"));
    let (second, _) = scheduler.submit(run("2"));
    assert_eq!(scheduler.drain(), vec![first, second]);
    assert_eq!(scheduler.waiting(), 0);
    let (_, now) = scheduler.submit(run("3"));
    assert_eq!(now, None, "a drained scheduler waits for a new ready");
}
