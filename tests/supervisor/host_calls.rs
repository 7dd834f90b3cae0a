//! A run's calls to the embedding page's functions: which reach the run's
//! caller, what the worker hears back, the limits, replays, and the calls a
//! stopped or ended run leaves waiting.

use super::*;
use sandpit::js::bulk::Text;
use sandpit::protocol::{HostCallError, HostCallFailure, HostCallForm, HostFunction};
use sandpit::runtime::events::HostCall;
use sandpit::runtime::host_calls::{CALLS_PER_RUN, MAX_JSON_CHARS};

fn lookup() -> HostFunction {
    HostFunction {
        name: "lookup".into(),
        description: "A city's country.".into(),
        signature: "(city: str)".into(),
    }
}

/// The worker asks for call `call` of run `id`.
fn call(worker: WorkerId, id: RunId, call: u32, name: &str, arguments: &str) -> Event {
    message(
        worker,
        WorkerMessage::HostCall {
            id,
            call,
            name: name.into(),
            arguments: Text::from(arguments),
            form: HostCallForm::Await,
        },
    )
}

/// The replies `effects` post to `worker`: (run, call, value, error).
fn replies(effects: &[Effect]) -> Vec<(RunId, u32, Option<Text>, Option<HostCallError>)> {
    pick(effects, |effect| match effect {
        Effect::Post(
            _,
            HostMessage::HostReply {
                id,
                call,
                value,
                error,
            },
        ) => Some((*id, *call, value.clone(), error.clone())),
        _ => None,
    })
}

fn kinds(effects: &[Effect]) -> Vec<HostCallFailure> {
    replies(effects)
        .into_iter()
        .filter_map(|(.., error)| error.map(|e| e.kind))
        .collect()
}

/// A run in session main offered `lookup`, in Python's hands in `worker`.
fn offered(page: &mut Page) -> RunId {
    let mut request = RunRequest::new("await host.lookup(city='Paris')");
    request.host_functions = vec![lookup()];
    page.submit(Call::Run(request)).0
}

#[test]
fn a_call_goes_to_the_runs_caller_and_its_answer_back_to_the_worker() {
    let (mut page, active) = Page::ready(true);
    let id = offered(&mut page);
    let effects = page.on(call(active, id, 1, "lookup", r#"{"city":"Paris"}"#));
    let asked = HostCall {
        run: id,
        call: 1,
        name: "lookup".into(),
        arguments: Text::from(r#"{"city":"Paris"}"#),
    };
    assert_eq!(effects, vec![Effect::Notify(id, RunEvent::HostCall(asked))]);
    let effects = page.on(Event::HostAnswer {
        id,
        call: 1,
        value: Some(Text::from("\"France\"")),
        error: None,
    });
    assert_eq!(
        replies(&effects),
        vec![(id, 1, Some(Text::from("\"France\"")), None)]
    );
    // A second answer to the same call goes nowhere.
    let again = page.on(Event::HostAnswer {
        id,
        call: 1,
        value: Some(Text::from("1")),
        error: None,
    });
    assert!(replies(&again).is_empty());
}

#[test]
fn names_not_offered_and_runs_offered_nothing_are_refused_at_once() {
    let (mut page, active) = Page::ready(true);
    let id = offered(&mut page);
    let effects = page.on(call(active, id, 1, "secret", "{}"));
    let (.., error) = replies(&effects).remove(0);
    let error = error.expect("refused");
    assert_eq!(error.kind, HostCallFailure::Refused);
    assert_eq!(
        error.message,
        r#"no host function is called "secret": the page offers "lookup""#
    );
    assert!(!effects
        .iter()
        .any(|e| matches!(e, Effect::Notify(_, RunEvent::HostCall(_)))));
    page.on(done(active, id, RunStatus::Ok));
    // A run its caller offered nothing (the page's own, say).
    let (plain, _) = page.run("await host.lookup()");
    assert_eq!(
        kinds(&page.on(call(active, plain, 1, "lookup", "{}"))),
        vec![HostCallFailure::Refused]
    );
    // A call naming a run that is not in progress.
    assert_eq!(
        kinds(&page.on(call(active, id, 2, "lookup", "{}"))),
        vec![HostCallFailure::Refused]
    );
}

#[test]
fn a_run_makes_at_most_its_calls_and_no_call_larger_than_the_limit() {
    let (mut page, active) = Page::ready(true);
    let id = offered(&mut page);
    let big = format!("{{\"city\":\"{}\"}}", "x".repeat(MAX_JSON_CHARS));
    let effects = page.on(call(active, id, 1, "lookup", &big));
    assert_eq!(kinds(&effects), vec![HostCallFailure::Limit]);
    for n in 0..CALLS_PER_RUN {
        let effects = page.on(call(active, id, n + 2, "lookup", "{}"));
        assert!(replies(&effects).is_empty(), "call {n} went to the caller");
        page.on(Event::HostAnswer {
            id,
            call: n + 2,
            value: Some(Text::from("null")),
            error: None,
        });
    }
    let past = page.on(call(active, id, CALLS_PER_RUN + 2, "lookup", "{}"));
    let (.., error) = replies(&past).remove(0);
    assert_eq!(
        error.map(|e| e.message).as_deref(),
        Some("this run has made 1000 host calls, the most one run may make")
    );
    // A value over the limit is refused on its way back too.
    page.on(done(active, id, RunStatus::Ok));
    let next = offered(&mut page);
    page.on(call(active, next, 1, "lookup", "{}"));
    let huge = Text::from("x".repeat(MAX_JSON_CHARS + 1));
    let effects = page.on(Event::HostAnswer {
        id: next,
        call: 1,
        value: Some(huge),
        error: None,
    });
    assert_eq!(kinds(&effects), vec![HostCallFailure::Limit]);
}

#[test]
fn stopping_a_run_cancels_its_waiting_calls_in_the_worker_and_with_the_caller() {
    let (mut page, active) = Page::ready(true);
    let id = offered(&mut page);
    page.on(call(active, id, 1, "lookup", "{}"));
    let effects = page.on(Event::Cancel(id));
    assert_eq!(kinds(&effects), vec![HostCallFailure::Cancelled]);
    assert!(effects.contains(&Effect::Notify(id, RunEvent::HostCallCancelled(id, 1))));
    assert_eq!(interrupts(&effects), vec![active]);
    // Calls while it stops are refused; a late answer goes nowhere.
    assert_eq!(
        kinds(&page.on(call(active, id, 2, "lookup", "{}"))),
        vec![HostCallFailure::Cancelled]
    );
    let late = page.on(Event::HostAnswer {
        id,
        call: 1,
        value: Some(Text::from("1")),
        error: None,
    });
    assert!(replies(&late).is_empty());
}

#[test]
fn a_run_that_ends_with_calls_waiting_lets_the_caller_forget_them() {
    let (mut page, active) = Page::ready(true);
    let id = offered(&mut page);
    page.on(call(active, id, 1, "lookup", "{}"));
    let effects = page.on(done(active, id, RunStatus::Ok));
    let cancelled = effects
        .iter()
        .position(|e| *e == Effect::Notify(id, RunEvent::HostCallCancelled(id, 1)));
    let resolved = effects
        .iter()
        .position(|e| matches!(e, Effect::Resolve(run, _) if *run == id));
    assert!(cancelled.is_some() && cancelled < resolved, "{effects:?}");
}

#[test]
fn a_replay_calls_nobody() {
    // Without interrupts a cancel replaces the worker and replays the ledger.
    let (mut page, main, spare) = Page::main_and_ready_spare(false);
    let mut request = RunRequest::new("x = await host.lookup(city='Paris')");
    request.host_functions = vec![lookup()];
    let (first, _) = page.submit(Call::Run(request));
    page.on(done(main, first, RunStatus::Ok));
    let (stuck, _) = page.run("while True: pass");
    let effects = page.on(Event::Cancel(stuck));
    assert_eq!(terminated(&effects), vec![main]);
    let replay = runs_posted(&effects)
        .first()
        .map(|(_, id, _)| *id)
        .expect("the ledger is replayed into the spare");
    let effects = page.on(call(spare, replay, 1, "lookup", "{}"));
    let (.., error) = replies(&effects).remove(0);
    let error = error.expect("refused");
    assert_eq!(error.kind, HostCallFailure::Refused);
    assert!(
        error.message.starts_with("a replay makes no host calls"),
        "{}",
        error.message
    );
    assert!(!effects
        .iter()
        .any(|e| matches!(e, Effect::Notify(_, RunEvent::HostCall(_)))));
}
