//! A session's scheduler: nothing is dropped while Python loads, one job at
//! a time, and a restart (or a park) replays every successful run before
//! anything else.

use sandpit::protocol::{HostMessage, InputFile, LostRun, Restoration, RunId, RunRequest};
use sandpit::runtime::scheduler::{Completion, Dispatch, Ids, Job, Scheduler};

fn run(code: &str) -> Job {
    Job::Run(RunRequest::new(code))
}

/// A session's scheduler with the ids its jobs get, driven as the supervisor does.
struct Session {
    scheduler: Scheduler,
    ids: Ids,
}

impl Session {
    fn new() -> Self {
        Self {
            scheduler: Scheduler::new("main"),
            ids: Ids::default(),
        }
    }

    /// Queues `job`; returns its id and what goes to the worker now.
    fn submit(&mut self, job: Job) -> (RunId, Option<Dispatch>) {
        let id = self.ids.new_id();
        self.scheduler.submit(id, job);
        (id, self.scheduler.dispatch())
    }

    fn set_ready(&mut self) -> Option<Dispatch> {
        self.scheduler.set_ready();
        self.scheduler.dispatch()
    }

    fn complete(
        &mut self,
        id: RunId,
        succeeded: bool,
        reason: &str,
    ) -> (Vec<Completion>, Option<Dispatch>) {
        let done = self.scheduler.complete(id, succeeded, reason);
        (done, self.scheduler.dispatch())
    }

    fn restart(&mut self, reason: &str) -> Vec<Completion> {
        self.scheduler.restart(reason, &mut self.ids)
    }

    fn cancel_waiting(&mut self, id: RunId) -> bool {
        self.scheduler.cancel_waiting(id)
    }

    fn in_flight(&self) -> Option<RunId> {
        self.scheduler.in_flight()
    }

    fn waiting(&self) -> usize {
        self.scheduler.waiting()
    }
}

fn posted(dispatch: Option<Dispatch>) -> Option<(RunId, String)> {
    match dispatch {
        Some(Dispatch::Post(HostMessage::Run { id, request })) => Some((id, request.code)),
        Some(Dispatch::Reset { id, .. }) => Some((id, "reset".into())),
        _ => None,
    }
}

/// Runs `code` to success on a ready scheduler; returns its id.
fn succeed(scheduler: &mut Session, code: &str) -> RunId {
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
    let mut scheduler = Session::new();
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
    let mut scheduler = Session::new();
    scheduler.set_ready();
    let (first, _) = scheduler.submit(run("1"));
    let (second, now) = scheduler.submit(run("2"));
    assert_eq!(now, None, "the second run waits for the first");
    assert_eq!(scheduler.complete(second, true, ""), (vec![], None));
    assert_eq!(scheduler.complete(first + 100, true, ""), (vec![], None));
    assert_eq!(scheduler.in_flight(), Some(first));
}

fn fresh(code: &str) -> Job {
    Job::Run(RunRequest::new(code).in_fresh_namespace())
}

#[test]
fn fresh_runs_behind_a_fresh_run_wait_in_the_worker_and_then_are_in_flight() {
    let mut scheduler = Session::new();
    scheduler.set_ready();
    let (first, _) = scheduler.submit(fresh("1"));
    let (second, now) = scheduler.submit(fresh("2"));
    assert_eq!(
        posted(now),
        Some((second, "2".into())),
        "it goes in behind the first"
    );
    let (third, now) = scheduler.submit(fresh("3"));
    assert_eq!(posted(now), Some((third, "3".into())), "and one more");
    let (fourth, now) = scheduler.submit(fresh("4"));
    assert_eq!(now, None, "no more than two wait in the worker");
    assert_eq!(
        scheduler.scheduler.ahead().collect::<Vec<_>>(),
        vec![second, third]
    );
    assert_eq!(
        scheduler.waiting(),
        3,
        "those in the worker still count as waiting"
    );

    let (done, next) = scheduler.complete(first, true, "");
    assert_eq!(done, vec![Completion::Finished(first)]);
    assert_eq!(
        scheduler.in_flight(),
        Some(second),
        "the worker started it as the first ended"
    );
    assert_eq!(
        posted(next),
        Some((fourth, "4".into())),
        "and the next goes in behind"
    );
    assert_eq!(
        scheduler.scheduler.ahead().collect::<Vec<_>>(),
        vec![third, fourth]
    );
}

#[test]
fn only_fresh_runs_go_in_behind_fresh_runs() {
    let mut scheduler = Session::new();
    scheduler.set_ready();
    let (first, _) = scheduler.submit(run("x = 1"));
    let (_, now) = scheduler.submit(fresh("2"));
    assert_eq!(now, None, "a run with state is alone in the worker");
    scheduler.complete(first, true, "");
    let (_, now) = scheduler.submit(run("x"));
    assert_eq!(
        now, None,
        "and nothing but a fresh run goes behind a fresh one"
    );
    assert_eq!(scheduler.scheduler.ahead().next(), None);
}

#[test]
fn fresh_runs_waiting_in_a_replaced_worker_go_back_to_the_head_of_the_queue() {
    let mut scheduler = Session::new();
    scheduler.set_ready();
    succeed(&mut scheduler, "x = 1");
    let (stuck, _) = scheduler.submit(fresh("while True: pass"));
    let (second, _) = scheduler.submit(fresh("2"));
    let (third, _) = scheduler.submit(fresh("3"));
    let (last, _) = scheduler.submit(fresh("4"));
    assert_eq!(
        scheduler.scheduler.ahead().collect::<Vec<_>>(),
        vec![second, third]
    );

    scheduler.restart("timed out");
    assert_eq!(scheduler.scheduler.ahead().next(), None);
    let (replay, code) = posted(scheduler.set_ready()).expect("a replay");
    assert_eq!(code, "x = 1", "the ledger first");
    let (done, next) = scheduler.complete(replay, true, "");
    assert!(matches!(&done[..], [Completion::Restored(id, _)] if *id == stuck));
    assert_eq!(
        posted(next),
        Some((second, "2".into())),
        "then the runs that were in the worker, in order"
    );
    assert_eq!(
        posted(scheduler.scheduler.dispatch()),
        Some((third, "3".into()))
    );
    assert_eq!(
        posted(scheduler.scheduler.dispatch()),
        Some((last, "4".into()))
    );

    // A worker that never comes fails the run in flight and those behind it.
    assert_eq!(
        scheduler.scheduler.fail_callers(),
        vec![second, third, last]
    );
}

#[test]
fn a_queued_run_can_be_cancelled_before_it_starts() {
    let mut scheduler = Session::new();
    let (first, _) = scheduler.submit(run("1"));
    let (second, _) = scheduler.submit(run("2"));
    assert!(scheduler.cancel_waiting(first));
    assert!(!scheduler.cancel_waiting(first), "only once");
    assert_eq!(posted(scheduler.set_ready()), Some((second, "2".into())));
}

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
            before_run: Some(true),
        }),
        "the next run's result says how the session came back"
    );
    assert_eq!(session.scheduler.take_note(), None, "once");
}

#[test]
fn fresh_runs_are_not_replayed() {
    let mut session = Session::new();
    session.set_ready();
    let (fresh, now) = session.submit(Job::Run(RunRequest::new("a = 1").in_fresh_namespace()));
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
