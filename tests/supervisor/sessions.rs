//! A session's jobs: fresh runs behind each other, resets, files kept across a
//! reload, reads, checks, and what each session is told to be doing.

use super::*;

#[test]
fn a_fresh_run_waits_in_the_worker_behind_another_and_its_clock_starts_when_that_one_ends() {
    let (mut page, worker) = Page::ready(true);
    let (first, effects) = fresh_run(&mut page, "1", 1_000);
    assert_eq!(started(&effects), vec![first]);
    let (second, effects) = fresh_run(&mut page, "2", 2_000);
    assert_eq!(
        runs_posted(&effects),
        vec![(worker, second, "2".to_owned())]
    );
    assert!(
        timers(&effects).is_empty(),
        "its clock has not started: {effects:?}"
    );
    assert!(started(&effects).is_empty());

    let effects = page.on(done(worker, first, RunStatus::Ok));
    assert_eq!(result_of(&effects, first).status, RunStatus::Ok);
    assert_eq!(started(&effects), vec![second]);
    assert!(timers(&effects).contains(&Effect::StartTimer(Timer::Deadline(worker), 2_000)));
    assert!(runs_posted(&effects).is_empty(), "nothing else is queued");
    let effects = page.on(done(worker, second, RunStatus::Ok));
    assert_eq!(result_of(&effects, second).status, RunStatus::Ok);
}

#[test]
fn a_timeout_with_a_run_waiting_behind_ends_the_worker_and_the_waiting_run_goes_to_the_next() {
    let (mut page, worker) = Page::ready(true);
    let (stuck, _) = fresh_run(&mut page, "while True: pass", 1_000);
    let (behind, _) = fresh_run(&mut page, "2", 1_000);

    // An interrupt could reach the run behind, if the first ended just
    // before it was written: the worker is ended instead.
    let effects = page.on(Event::Tick(Timer::Deadline(worker)));
    assert!(interrupts(&effects).is_empty(), "{effects:?}");
    assert_eq!(terminated(&effects), vec![worker]);
    assert_eq!(result_of(&effects, stuck).status, RunStatus::Timeout);
    let next = only_spawn(&effects, Start::Python);
    let effects = page.on(ready(next, SnapshotUse::Used));
    assert_eq!(runs_posted(&effects), vec![(next, behind, "2".to_owned())]);
    assert_eq!(started(&effects), vec![behind]);
}

#[test]
fn a_run_cancelled_while_it_waits_in_the_worker_is_answered_at_once() {
    let (mut page, worker) = Page::ready(true);
    let (first, _) = fresh_run(&mut page, "1", 1_000);
    let (second, _) = fresh_run(&mut page, "2", 1_000);
    let effects = page.on(Event::Cancel(second));
    assert!(
        interrupts(&effects).is_empty(),
        "the first is not stopped: {effects:?}"
    );
    assert_eq!(result_of(&effects, second).status, RunStatus::Cancelled);

    // The worker still runs it; its result goes nowhere.
    let effects = page.on(done(worker, first, RunStatus::Ok));
    assert_eq!(result_of(&effects, first).status, RunStatus::Ok);
    assert!(
        started(&effects).is_empty(),
        "no one hears it begin: {effects:?}"
    );
    let effects = page.on(done(worker, second, RunStatus::Ok));
    assert!(resolved(&effects).is_empty(), "{effects:?}");
    page.succeed_in("batch", worker, "3");
}

#[test]
fn a_reset_ends_the_sessions_worker_so_its_next_run_starts_in_a_fresh_interpreter() {
    let (mut page, main, spare) = Page::main_and_ready_spare(true);
    page.succeed(main, "import json; json.dumps = None");
    let (clear, effects) = page.submit(Call::Clear {
        session: "main".into(),
        forget: false,
    });
    assert_eq!(terminated(&effects), vec![main]);
    assert!(effects.contains(&Effect::Resolve(clear, Reply::Done(Ok(())))));
    assert_eq!(
        page.supervisor.sessions(),
        vec!["main".to_owned()],
        "reset, not deleted"
    );
    // Nothing is replayed: the spare takes the next run as it is.
    let (id, effects) = page.run("import json; json.dumps(1)");
    assert_eq!(
        runs_posted(&effects),
        vec![(spare, id, "import json; json.dumps(1)".into())]
    );
    let effects = page.on(done(spare, id, RunStatus::Ok));
    assert_eq!(result_of(&effects, id).restored, None);

    // A delete forgets the session too; one waiting behind a run goes after it.
    let (busy, _) = page.run("while True: pass");
    let (delete, effects) = page.submit(Call::Clear {
        session: "main".into(),
        forget: true,
    });
    assert!(
        terminated(&effects).is_empty(),
        "it waits for the run before it"
    );
    let effects = page.on(done(spare, busy, RunStatus::Ok));
    assert_eq!(terminated(&effects), vec![spare]);
    assert!(effects.contains(&Effect::Resolve(delete, Reply::Done(Ok(())))));
    assert!(page.supervisor.sessions().is_empty());
}

#[test]
fn files_kept_across_a_reload_start_no_worker_and_come_back_before_the_next_run() {
    let (mut page, first) = Page::ready(true);
    let file = InputFile {
        path: "data.csv".into(),
        content_base64: "YQ==".into(),
    };
    let (restore, effects) = page.submit(Call::RestoreFiles {
        session: "saved".into(),
        files: vec![file],
    });
    assert!(effects.contains(&Effect::Resolve(restore, Reply::Done(Ok(())))));
    assert_eq!(posts(&effects), 0, "no worker is taken for them alone");
    assert_eq!(page.phase(&effects, "saved"), Some(SessionPhase::Parked));
    assert_eq!(page.supervisor.sessions(), vec!["saved".to_owned()]);
    let (id, effects) = page.run_in("saved", "open('data.csv').read()");
    let replay = replay_posted(&effects, first, "");
    let effects = page.on(done(first, replay, RunStatus::Ok));
    assert_eq!(
        runs_posted(&effects),
        vec![(first, id, "open('data.csv').read()".into())]
    );
    let effects = page.on(done(first, id, RunStatus::Ok));
    assert_eq!(
        result_of(&effects, id).restored,
        None,
        "files put back are no news"
    );
}

#[test]
fn reading_a_file_of_a_session_with_nothing_starts_no_worker() {
    let (mut page, _) = Page::ready(true);
    let refused = page.supervisor.submit(
        1.0,
        Call::Query(Query::ReadFile {
            session: "nobody".into(),
            path: "out.csv".into(),
        }),
    );
    assert_eq!(
        refused.map(|(id, _)| id),
        Err(RuntimeError::Rejected(
            "FileNotFoundError: no such file in session \"nobody\": out.csv".into()
        ))
    );
}

#[test]
fn checks_go_to_an_idle_session_and_a_fresh_run_lists_no_session() {
    let (mut page, first) = Page::ready(true);
    let (_, effects) = page.submit(Call::Run(RunRequest {
        fresh: true,
        ..RunRequest::new("print(1)").in_session("batch-1")
    }));
    assert_eq!(runs_posted(&effects).len(), 1);
    assert!(
        page.supervisor.sessions().is_empty(),
        "a fresh run lists nothing"
    );
    let id = runs_posted(&effects)[0].1;
    page.on(done(first, id, RunStatus::Ok));
    // A check changes no session: the idle one takes it, no worker starts.
    page.check(first);
}

#[test]
fn session_states_are_told_when_they_change() {
    let (mut page, first) = Page::ready(true);
    let (id, effects) = page.run("1");
    assert_eq!(
        effects.iter().find(|e| matches!(e, Effect::Sessions(_))),
        Some(&Effect::Sessions(vec![SessionState {
            name: "main".into(),
            phase: SessionPhase::Running,
            queued: 0,
            resident: true,
            why: "Its worker runs one of its calls.".into(),
        }]))
    );
    let (_, effects) = page.run("2");
    assert_eq!(
        effects.iter().find(|e| matches!(e, Effect::Sessions(_))),
        Some(&Effect::Sessions(vec![SessionState {
            name: "main".into(),
            phase: SessionPhase::Running,
            queued: 1,
            resident: true,
            why: "Its worker runs one of its calls.".into(),
        }]))
    );
    // A change that leaves the states as they were is not told again.
    let effects = page.on(message(first, WorkerMessage::LoadingPackages { id }));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Sessions(_))));
}
