//! Results the host builds for runs it had to stop.

use sandpit::protocol::{
    BlockedRequest, HintCode, MemoryUse, OutputChunk, Restoration, RunError, RunResult, RunStatus,
    StreamName, Truncation,
};
use sandpit::runtime::outcome::{
    interrupted, stopped, with_memory_hint, with_network_hint, StopReason,
};

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
        ..Restoration::default()
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
    let hint = error.hint.expect("a hint");
    assert_eq!(hint.code, HintCode::Crashed);
    assert!(
        hint.message
            .ends_with("the session had no earlier runs to replay."),
        "a session with nothing to replay does not count nothing: {}",
        hint.message
    );

    let skipped = Restoration {
        replayed: 2,
        skipped: 1,
        ..Restoration::default()
    };
    let crash = stopped(
        &StopReason::Crashed("Aborted()".into()),
        &[],
        1.0,
        Some(skipped),
    );
    let hint = crash.error.and_then(|e| e.hint).expect("a hint");
    assert!(
        hint.message.ends_with(
            "replayed 2 earlier run(s) to restore session state. 1 earlier run(s) that failed \
             were not replayed: what they changed before failing is gone."
        ),
        "what a restore cannot bring back is said: {}",
        hint.message
    );

    let cancel = stopped(&StopReason::Cancelled, &[], 0.0, None);
    assert_eq!(cancel.status, RunStatus::Cancelled);
    assert_eq!(
        cancel.restored, None,
        "a run cancelled in the queue restarted nothing"
    );
}

fn failed_run() -> RunResult {
    RunResult {
        status: RunStatus::Cancelled,
        stdout: "tick\n".into(),
        stderr: Default::default(),
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
            fix: None,
        }),
        exit_code: None,
        duration_ms: 100.0,
        truncated: Truncation::default(),
        blocked: vec![],
        artifacts: vec![],
        files: vec![],
        restored: None,
        memory: None,
        verification: None,
        warnings: vec![],
        host_calls: Vec::new(),
    }
}

#[test]
fn an_interrupted_run_keeps_the_runners_location_but_says_why() {
    let result = interrupted(failed_run(), &StopReason::Timeout(100));
    assert_eq!(result.status, RunStatus::Timeout);
    assert_eq!(result.stdout, "tick\n");
    let error = result.error.expect("error");
    assert_eq!(error.kind, "TimeoutError");
    assert_eq!((error.line, error.column), (Some(2), Some(5)));
    assert_eq!(error.traceback, "Traceback: line 2");
    assert!(error.hint.expect("hint").message.contains("kept"));
}

#[test]
fn a_failure_after_a_blocked_request_gets_the_network_hint() {
    let mut result = failed_run();
    assert_eq!(
        with_network_hint(result.clone()),
        result,
        "nothing blocked, nothing added"
    );
    result.blocked = vec![BlockedRequest {
        url: "http://127.0.0.1:9/steal".into(),
        directive: "connect-src".into(),
    }];
    let hinted = with_network_hint(result);
    let hint = hinted.error.and_then(|e| e.hint).expect("a hint");
    assert_eq!(hint.code, HintCode::NetworkBlocked);
    assert!(
        hint.message.contains("http://127.0.0.1:9/steal"),
        "{}",
        hint.message
    );
    assert!(hint.message.contains("connect-src"));
}

#[test]
fn a_memory_error_at_the_limit_says_so_and_what_to_do() {
    let mut result = failed_run();
    result.status = RunStatus::Error;
    if let Some(error) = result.error.as_mut() {
        error.kind = "MemoryError".into();
    }
    let below = MemoryUse {
        peak_bytes: 40 << 20,
        limit_bytes: 128 << 20,
        limit_reached: false,
    };
    result.memory = Some(below);
    assert_eq!(
        with_memory_hint(result.clone()),
        result,
        "a MemoryError below the limit is the code's own (a huge size asked at once, say)"
    );
    result.memory = Some(MemoryUse {
        limit_reached: true,
        ..below
    });
    let hint = with_memory_hint(result)
        .error
        .and_then(|e| e.hint)
        .expect("a hint");
    assert_eq!(hint.code, HintCode::MemoryLimit);
    assert!(
        hint.message.contains("limit of 128 MiB"),
        "{}",
        hint.message
    );
    assert!(hint.message.contains("memory_limit_mb"));

    let crash = stopped(
        &StopReason::MemoryLimit(128 << 20, "Aborted()".into()),
        &[],
        1.0,
        Some(Restoration::default()),
    );
    assert_eq!(crash.status, RunStatus::Crashed);
    let error = crash.error.expect("an error");
    assert!(
        error.message.contains("limit of 128 MiB"),
        "{}",
        error.message
    );
    assert_eq!(error.hint.map(|h| h.code), Some(HintCode::MemoryLimit));
}
