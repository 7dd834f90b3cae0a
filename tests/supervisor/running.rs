//! A run while it runs: its clock, packages, nudges to stream, output told
//! before its result, its input and memory limits.

use super::*;

#[test]
fn timeouts_count_only_while_python_has_the_run() {
    let (mut page, active) = Page::ready(true);
    let (id, effects) = page.submit(Call::Run(
        RunRequest::new("import numpy")
            .with_packages(vec!["numpy".into()])
            .with_timeout_ms(Some(2_000)),
    ));
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Deadline(active), 2_000)));
    assert!(effects.contains(&Effect::Notify(id, RunEvent::Started)));
    let effects = page.on(message(active, WorkerMessage::LoadingPackages { id }));
    assert_eq!(
        timers(&effects),
        vec![Effect::CancelTimer(Timer::Deadline(active))]
    );
    assert!(effects
        .iter()
        .any(|e| matches!(e, Effect::Notify(_, RunEvent::Packages { .. }))));
    // Its timeout starts again, in full, once the packages are in.
    let effects = page.on(message(active, WorkerMessage::Started { id }));
    assert_eq!(
        timers(&effects),
        vec![Effect::StartTimer(Timer::Deadline(active), 2_000)]
    );
    assert!(effects.contains(&Effect::Notify(id, RunEvent::Started)));
}

#[test]
fn a_run_stopped_while_loading_packages_keeps_its_interrupt_repeats() {
    let (mut page, active) = Page::ready(true);
    let (id, _) = page.run("import numpy");
    page.on(message(active, WorkerMessage::LoadingPackages { id }));
    assert_eq!(interrupts(&page.on(Event::Cancel(id))), vec![active]);
    let effects = page.on(message(active, WorkerMessage::Started { id }));
    assert!(timers(&effects).is_empty(), "{effects:?}");
    let effects = page.on(message(active, WorkerMessage::LoadingPackages { id }));
    assert!(timers(&effects).is_empty(), "{effects:?}");
    assert_eq!(
        interrupts(&page.on(Event::Tick(Timer::Deadline(active)))),
        vec![active]
    );
}

#[test]
fn runs_in_python_are_nudged_to_stream_while_they_run_and_only_then() {
    let (mut page, active) = Page::ready(true);
    let (id, _) = page.run("print(1); big()");
    let (other, effects) = page.run_in("other", "print(2); big()");
    let second = only_spawn(&effects, Start::Python);
    page.on(ready(second, SnapshotUse::Used));
    // One timer nudges every session's run.
    let effects = page.on(Event::Tick(Timer::Nudge));
    assert_eq!(
        effects,
        vec![
            Effect::Nudge(active),
            Effect::Nudge(second),
            Effect::StartTimer(Timer::Nudge, NUDGE_MS)
        ]
    );
    page.on(done(active, id, RunStatus::Ok));
    let effects = page.on(Event::Tick(Timer::Nudge));
    assert_eq!(
        effects,
        vec![
            Effect::Nudge(second),
            Effect::StartTimer(Timer::Nudge, NUDGE_MS)
        ]
    );
    page.on(done(second, other, RunStatus::Ok));
    assert!(page.on(Event::Tick(Timer::Nudge)).is_empty());
    // The next run starts the nudges again.
    let (_, effects) = page.run("2");
    assert!(effects.contains(&Effect::StartTimer(Timer::Nudge, NUDGE_MS)));
}

#[test]
fn output_not_yet_streamed_is_told_before_the_result() {
    let (mut page, active) = Page::ready(true);
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
    let (mut page, _) = Page::ready(true);
    let mut request = RunRequest::new("open('big').read()")
        .in_session("files")
        .with_files(vec![InputFile {
            path: "big".into(),
            content_base64: "AAAA".repeat(100),
        }]);
    request.limits = OutputLimits {
        input_bytes: 10,
        ..request.limits
    };
    page.now += 1.0;
    let refused = page.supervisor.submit(page.now, Call::Run(request));
    assert!(
        matches!(refused, Err(RuntimeError::Rejected(_))),
        "{refused:?}"
    );
    assert!(!page.supervisor.sessions().contains(&"files".to_owned()));
}

#[test]
fn a_query_stopped_by_a_restart_is_told_so() {
    let (mut page, active, spare) = Page::main_and_ready_spare(false);
    page.succeed(active, "open('out.csv', 'w').write('a')");
    let (query, effects) = page.submit(Call::Query(Query::ReadFile {
        session: "main".into(),
        path: "out.csv".into(),
    }));
    assert_eq!(posts(&effects), 1);
    let effects = page.on(Event::Error(active, "Aborted()".into()));
    assert!(
        resolved(&effects).is_empty(),
        "it is told once the session is back"
    );
    let replay = replay_posted(&effects, spare, "open('out.csv', 'w').write('a')");
    let effects = page.on(done(spare, replay, RunStatus::Ok));
    assert!(
        effects.contains(&Effect::Resolve(
            query,
            Reply::Query(Err(RuntimeError::Rejected(
                "the sandbox restarted before it could answer".into()
            )))
        )),
        "{effects:?}"
    );
}

#[test]
fn runs_get_the_deployments_memory_limit_unless_they_set_their_own() {
    let (mut page, first) = Page::ready(true);
    page.on(Event::Limits(PoolLimits {
        memory_bytes: 512 << 20,
        ..TWO
    }));
    let limit_posted = |effects: &[Effect]| {
        pick(effects, |effect| match effect {
            Effect::Post(_, HostMessage::Run { request, .. }) => Some(request.memory_limit_bytes),
            _ => None,
        })
    };
    let (id, effects) = page.run("1");
    assert_eq!(limit_posted(&effects), vec![Some(512 << 20)]);
    page.on(done(first, id, RunStatus::Ok));
    let mut request = RunRequest::new("2");
    request.memory_limit_bytes = Some(128 << 20);
    let (_, effects) = page.submit(Call::Run(request));
    assert_eq!(limit_posted(&effects), vec![Some(128 << 20)]);
}

#[test]
fn an_interpreter_that_dies_at_its_memory_limit_is_a_crash_that_says_so_and_the_session_comes_back()
{
    let (mut page, active, spare) = Page::main_and_ready_spare(true);
    page.succeed(active, "x = 1");
    let (id, _) = page.run("grow()");
    let failed = WorkerMessage::RunFailed {
        id,
        message: "Aborted(OOM)".into(),
        memory: Some(MemoryUse {
            peak_bytes: 1 << 30,
            limit_bytes: 1 << 30,
            limit_reached: true,
        }),
    };
    let effects = page.on(message(active, failed));
    assert_eq!(terminated(&effects), vec![active]);
    let replay = replay_posted(&effects, spare, "x = 1");
    let effects = page.on(done(spare, replay, RunStatus::Ok));
    let result = result_of(&effects, id);
    assert_eq!(result.status, RunStatus::Crashed);
    let error = result.error.expect("an error");
    assert_eq!(error.hint.map(|h| h.code), Some(HintCode::MemoryLimit));
    assert_eq!(result.restored.map(|r| r.replayed), Some(1));
}
