//! The run queue: nothing is dropped while Python loads, one run at a time, in order.

use sandpit::protocol::{HostMessage, RunId, RunRequest};
use sandpit::runtime::queue::RunQueue;

fn run_id(message: Option<HostMessage>) -> Option<RunId> {
    match message {
        Some(HostMessage::Run { id, .. }) => Some(id),
        _ => None,
    }
}

#[test]
fn runs_submitted_while_loading_wait_and_then_go_in_order() {
    let mut queue = RunQueue::new();
    let (first, now) = queue.submit(RunRequest::new("1"));
    assert_eq!(now, None, "nothing may reach a worker that is not ready");
    let (second, now) = queue.submit(RunRequest::new("2"));
    assert_eq!(now, None);
    assert_eq!(queue.waiting(), 2);

    assert_eq!(run_id(queue.set_ready()), Some(first));
    assert_eq!(queue.in_flight(), Some(first));
    assert_eq!(run_id(queue.finish(first)), Some(second));
    assert_eq!(queue.finish(second), None);
    assert_eq!(queue.in_flight(), None);
}

#[test]
fn the_request_reaches_the_worker_unchanged() {
    let mut queue = RunQueue::new();
    queue.set_ready();
    let (id, now) = queue.submit(RunRequest::new("print(1)"));
    assert_eq!(
        now,
        Some(HostMessage::Run {
            id,
            request: RunRequest::new("print(1)")
        })
    );
}

#[test]
fn only_one_run_is_in_the_worker_at_a_time() {
    let mut queue = RunQueue::new();
    queue.set_ready();
    let (first, now) = queue.submit(RunRequest::new("1"));
    assert_eq!(run_id(now), Some(first));
    let (_, now) = queue.submit(RunRequest::new("2"));
    assert_eq!(now, None, "the second run waits for the first");
}

#[test]
fn a_stray_finish_does_not_start_a_second_run() {
    let mut queue = RunQueue::new();
    queue.set_ready();
    let (first, _) = queue.submit(RunRequest::new("1"));
    let (second, _) = queue.submit(RunRequest::new("2"));
    assert_eq!(queue.finish(first + 100), None);
    assert_eq!(queue.finish(second), None, "run 2 is not in flight yet");
    assert_eq!(queue.in_flight(), Some(first));
    assert_eq!(run_id(queue.finish(first)), Some(second));
}

#[test]
fn draining_returns_every_run_that_will_never_finish() {
    let mut queue = RunQueue::new();
    queue.set_ready();
    let (first, _) = queue.submit(RunRequest::new("1"));
    let (second, _) = queue.submit(RunRequest::new("2"));
    assert_eq!(queue.drain(), vec![first, second]);
    assert_eq!(queue.waiting(), 0);
    let (_, now) = queue.submit(RunRequest::new("3"));
    assert_eq!(now, None, "a drained queue waits for a new ready");
}
