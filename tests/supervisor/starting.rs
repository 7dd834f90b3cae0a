//! Starting: the early worker, its CSP check, failures before ready, and
//! the deployment's limits.

use super::*;

#[test]
fn a_failure_before_ready_fails_every_waiting_job_and_later_runs() {
    let (mut page, first) = Page::admitted(true);
    let (run, _) = page.run("print(1)");
    let (clear, _) = page.submit(Call::Clear {
        session: "other".into(),
        forget: false,
    });
    let (query, _) = page.submit(Call::Query(Query::Check {
        code: "import numpy".into(),
    }));
    let fatal = WorkerMessage::Fatal {
        message: "could not load Pyodide".into(),
    };
    let effects = page.on(message(first, fatal));
    assert_eq!(terminated(&effects), vec![first]);
    let unavailable = RuntimeError::Unavailable("could not load Pyodide".into());
    for (id, reply) in [
        (run, Reply::Run(Err(unavailable.clone()))),
        (query, Reply::Query(Err(unavailable.clone()))),
    ] {
        assert!(effects.contains(&Effect::Resolve(id, reply)), "{effects:?}");
    }
    let _ = clear;
    assert!(effects.contains(&Effect::Status(RuntimeStatus::Failed {
        message: "could not load Pyodide".into()
    })));
    assert_eq!(
        page.supervisor
            .submit(0.0, Call::Run(RunRequest::new("1")))
            .map(|(id, _)| id),
        Err(unavailable)
    );
    // The guard's late answer and its wait change nothing now.
    assert!(page.on(Event::Securing).is_empty());
    assert!(page.on(Event::Guarded(Ok(true))).is_empty());
}

#[test]
fn no_worker_but_the_early_one_starts_before_the_csp_is_checked() {
    let (mut page, early) = Page::started(true);
    let (a, effects) = page.run_in("a", "1");
    assert!(spawns(&effects).is_empty(), "the early worker is a's");
    let (b, effects) = page.run_in("b", "2");
    assert!(spawns(&effects).is_empty(), "b waits for the check");
    let effects = page.on(Event::Guarded(Ok(true)));
    assert!(effects.contains(&Effect::Init(early)));
    let second = only_spawn(&effects, Start::Python);
    let effects = page.on(ready(early, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(early, a, "1".into())]);
    let effects = page.on(ready(second, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(second, b, "2".into())]);
}

#[test]
fn the_early_worker_takes_code_only_once_its_csp_is_checked() {
    let (mut page, early) = Page::started(true);
    assert_eq!(
        page.on(Event::Securing),
        vec![Effect::Status(RuntimeStatus::Securing)]
    );
    // Created from a script served without its CSP: replaced.
    let effects = page.on(Event::Guarded(Ok(false)));
    let guarded = only_spawn(&effects, Start::Python);
    assert_eq!(terminated(&effects), vec![early]);
    assert!(!effects.contains(&Effect::Init(early)));
    let (id, _) = page.run("1");
    let effects = page.on(ready(guarded, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(guarded, id, "1".into())]);
}

#[test]
fn an_early_worker_that_could_not_be_created_is_replaced_when_the_check_passes() {
    let (mut page, early) = Page::started(true);
    let error = RuntimeError::Worker("no".into());
    assert!(page.on(Event::SpawnFailed(early, error)).is_empty());
    let effects = page.on(Event::Guarded(Ok(true)));
    only_spawn(&effects, Start::Python);
    // That one failing too fails the start.
    let worker = spawns(&effects)[0].0;
    let error = RuntimeError::Worker("still no".into());
    let effects = page.on(Event::SpawnFailed(worker, error.clone()));
    assert_eq!(
        effects,
        vec![Effect::Status(RuntimeStatus::Failed {
            message: error.to_string()
        })]
    );
}

#[test]
fn a_failed_guard_fails_the_start() {
    let (mut page, early) = Page::started(true);
    let error = RuntimeError::Unavailable("no service worker".into());
    let effects = page.on(Event::Guarded(Err(error)));
    assert_eq!(
        effects,
        vec![
            Effect::Terminate(early),
            Effect::Status(RuntimeStatus::Failed {
                message: "no service worker".into()
            })
        ]
    );
}

#[test]
fn a_worker_that_cannot_start_for_a_session_fails_only_that_sessions_jobs() {
    let (mut page, first) = Page::ready(true);
    let (_, _) = page.run_in("a", "while True: pass");
    let (b_run, effects) = page.run_in("b", "1");
    let b = only_spawn(&effects, Start::Python);
    let fatal = WorkerMessage::Fatal {
        message: "Python failed to start: no".into(),
    };
    let effects = page.on(message(b, fatal));
    assert!(effects.contains(&Effect::Resolve(
        b_run,
        Reply::Run(Err(RuntimeError::Unavailable(
            "Python failed to start: no".into()
        )))
    )));
    assert!(!terminated(&effects).contains(&first));
    assert!(!effects
        .iter()
        .any(|e| matches!(e, Effect::Status(RuntimeStatus::Failed { .. }))));
    // Its next job tries again.
    let (_, effects) = page.run_in("b", "2");
    only_spawn(&effects, Start::Python);
}

#[test]
fn the_deployments_limits_apply_to_later_decisions() {
    let (mut page, first) = Page::ready(true);
    page.succeed_in("a", first, "1");
    page.on(Event::Limits(limits(3, 3)));
    assert_eq!(page.supervisor.limits().resident, 3);
    let (_, effects) = page.run_in("b", "while True: pass");
    only_spawn(&effects, Start::Python);
    let (_, effects) = page.run_in("c", "while True: pass");
    only_spawn(&effects, Start::Python);
    assert!(terminated(&effects).is_empty(), "room for three");
}
