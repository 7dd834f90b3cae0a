//! The queue: nothing dropped while Python loads, one job in the worker at
//! a time, fresh runs waiting in the worker behind each other, cancels.

use super::*;

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
