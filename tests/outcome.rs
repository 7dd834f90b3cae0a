//! Results the host builds for runs it had to stop.

use sandpit::protocol::{
    HintCode, OutputChunk, Restoration, RunError, RunResult, RunStatus, StreamName, Truncation,
};
use sandpit::runtime::outcome::{interrupted, stopped, StopReason};

fn chunk(stream: StreamName, text: &str) -> OutputChunk {
    OutputChunk {
        stream,
        text: text.into(),
    }
}

#[test]
fn a_terminated_run_keeps_what_it_printed_and_says_how_state_came_back() {
    let streamed = [
        chunk(StreamName::Stdout, "a"),
        chunk(StreamName::Stdout, "b\n"),
        chunk(StreamName::Stderr, "warn\n"),
    ];
    let restored = Restoration {
        replayed: 3,
        lost: vec![],
    };
    let result = stopped(
        &StopReason::Timeout(5_000),
        &streamed,
        5_001.0,
        Some(restored.clone()),
    );
    assert_eq!(result.status, RunStatus::Timeout);
    assert_eq!(result.stdout, "ab\n");
    assert_eq!(result.stderr, "warn\n");
    assert_eq!(
        result.output.len(),
        2,
        "consecutive chunks of a stream are merged"
    );
    assert_eq!(result.restored, Some(restored));
    let error = result.error.expect("a stopped run has an error");
    assert_eq!(error.kind, "TimeoutError");
    assert!(error.message.contains("5.00 s"), "{}", error.message);
    let hint = error.hint.expect("and a hint");
    assert_eq!(hint.code, HintCode::TimedOut);
    assert!(hint.message.contains("replayed 3"), "{}", hint.message);
}

#[test]
fn crashes_and_cancels_have_their_own_status_and_hint() {
    let crash = stopped(
        &StopReason::Crashed("Aborted()".into()),
        &[],
        1.0,
        Some(Restoration::default()),
    );
    assert_eq!(crash.status, RunStatus::Crashed);
    let error = crash.error.expect("error");
    assert!(error.message.contains("Aborted()"));
    assert_eq!(error.hint.map(|h| h.code), Some(HintCode::Crashed));

    let cancel = stopped(&StopReason::Cancelled, &[], 0.0, None);
    assert_eq!(cancel.status, RunStatus::Cancelled);
    assert_eq!(
        cancel.restored, None,
        "a run cancelled in the queue restarted nothing"
    );
}

#[test]
fn an_interrupted_run_keeps_the_runners_location_but_says_why() {
    let from_runner = RunResult {
        status: RunStatus::Cancelled,
        stdout: "tick\n".into(),
        stderr: String::new(),
        output: vec![chunk(StreamName::Stdout, "tick\n")],
        value: None,
        displays: vec![],
        error: Some(RunError {
            kind: "KeyboardInterrupt".into(),
            message: String::new(),
            line: Some(2),
            column: Some(5),
            end_column: Some(9),
            source: vec![],
            traceback: "Traceback: line 2".into(),
            hint: None,
        }),
        exit_code: None,
        duration_ms: 100.0,
        truncated: Truncation::default(),
        restored: None,
    };
    let result = interrupted(from_runner, &StopReason::Timeout(100));
    assert_eq!(result.status, RunStatus::Timeout);
    assert_eq!(result.stdout, "tick\n");
    let error = result.error.expect("error");
    assert_eq!(error.kind, "TimeoutError");
    assert_eq!((error.line, error.column), (Some(2), Some(5)));
    assert_eq!(error.traceback, "Traceback: line 2");
    assert!(error.hint.expect("hint").message.contains("kept"));
}
