//! Results for runs the host had to stop: plain logic, tested natively.
//!
//! A run stopped by an interrupt still gets its result from the runner
//! (status `cancelled`, with the line it was stopped at); a run whose worker
//! was terminated gets one built here from the output streamed before it died.

use crate::format;
use crate::protocol::{
    Hint, HintCode, MemoryUse, OutputChunk, Restoration, RunError, RunResult, RunStatus,
    StreamName, Truncation,
};

/// Why the host stopped a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// It ran past its timeout (milliseconds).
    Timeout(u32),
    /// The caller cancelled it.
    Cancelled,
    /// The interpreter or its worker died, with what was said about it.
    Crashed(String),
    /// The interpreter died asking for more memory than its limit (bytes),
    /// with what was said about it: it could not raise `MemoryError` itself.
    MemoryLimit(u64, String),
}

impl StopReason {
    fn status(&self) -> RunStatus {
        match self {
            Self::Timeout(_) => RunStatus::Timeout,
            Self::Cancelled => RunStatus::Cancelled,
            Self::Crashed(_) | Self::MemoryLimit(..) => RunStatus::Crashed,
        }
    }

    /// The error a caller sees, with its repair hint.
    fn error(&self, state: &str) -> RunError {
        let (kind, message, code, advice) = match self {
            Self::Timeout(limit) => (
                "TimeoutError",
                format!(
                    "the run took longer than its {} timeout and was stopped",
                    format::duration_ms(f64::from(*limit))
                ),
                HintCode::TimedOut,
                "Make the code finish sooner (less work, no infinite loop) or raise the timeout.",
            ),
            Self::Cancelled => (
                "Cancelled",
                "the run was cancelled".to_owned(),
                HintCode::Cancelled,
                "The caller stopped this run.",
            ),
            Self::Crashed(detail) => (
                "InterpreterCrash",
                format!("the Python interpreter crashed: {detail}"),
                HintCode::Crashed,
                "Usually unbounded recursion through C code or running out of memory; \
                 use less memory or an iterative algorithm.",
            ),
            Self::MemoryLimit(limit, detail) => (
                "InterpreterCrash",
                format!(
                    "the Python interpreter ran out of memory at the session's limit of {}: {detail}",
                    format::mebibytes(*limit)
                ),
                HintCode::MemoryLimit,
                MEMORY_ADVICE,
            ),
        };
        RunError {
            kind: kind.to_owned(),
            message,
            line: None,
            column: None,
            end_column: None,
            source: Vec::new(),
            traceback: String::new(),
            hint: Some(Hint {
                code,
                message: format!("{advice} {state}"),
            }),
            fix: None,
        }
    }
}

/// What to do about a run that reached its memory limit.
const MEMORY_ADVICE: &str = "Use less memory (smaller data, process it in pieces, `del` what is \
     no longer needed) or raise the run's memory limit (`memory_limit_mb`).";

/// What the hint says about session state after a stop.
fn state_note(restored: Option<&Restoration>) -> String {
    let Some(r) = restored else {
        return "Session state was kept.".to_owned();
    };
    let replayed = match (r.replayed, r.lost.len()) {
        (0, 0) => "The sandbox restarted; the session had no earlier runs to replay.".to_owned(),
        (replayed, 0) => format!(
            "The sandbox restarted and replayed {replayed} earlier run(s) to restore session state."
        ),
        (replayed, lost) => format!(
            "The sandbox restarted and replayed {replayed} earlier run(s); {lost} could not be \
             replayed and their effects are gone (see `restored.lost`)."
        ),
    };
    match r.skipped {
        0 => replayed,
        skipped => format!(
            "{replayed} {skipped} earlier run(s) that failed were not replayed: what they \
             changed before failing is gone."
        ),
    }
}

/// A run stopped by the host without a result from the runner: what it
/// printed, why it stopped, and how state came back (`None`: it never started).
pub fn stopped(
    reason: &StopReason,
    streamed: &[OutputChunk],
    duration_ms: f64,
    restored: Option<Restoration>,
) -> RunResult {
    let output = merge(streamed);
    let kept: usize = output.iter().map(|c| c.text.utf8_len()).sum();
    RunResult {
        status: reason.status(),
        stdout: OutputChunk::text_of(&output, StreamName::Stdout),
        stderr: OutputChunk::text_of(&output, StreamName::Stderr),
        output,
        value: None,
        displays: Vec::new(),
        error: Some(reason.error(&state_note(restored.as_ref()))),
        exit_code: None,
        duration_ms,
        truncated: Truncation {
            output: false,
            output_bytes_total: kept as u64,
            displays: false,
        },
        blocked: Vec::new(),
        artifacts: Vec::new(),
        files: Vec::new(),
        restored,
        memory: None,
        verification: None,
        warnings: Vec::new(),
        host_calls: Vec::new(),
    }
}

/// A run the runner reports as interrupted: say why the host interrupted it,
/// keeping the runner's location of where the code was stopped.
pub fn interrupted(mut result: RunResult, reason: &StopReason) -> RunResult {
    let mut error = reason.error(&state_note(None));
    if let Some(runner) = result.error.take() {
        error.line = runner.line;
        error.column = runner.column;
        error.end_column = runner.end_column;
        error.source = runner.source;
        error.traceback = runner.traceback;
    }
    result.status = reason.status();
    result.error = Some(error);
    result
}

/// A failed run that tried to reach the network: say the policy stopped it.
///
/// The runner only sees an exception (a `TypeError: Failed to fetch`, say);
/// the worker saw the browser's CSP violation, which explains it.
pub fn with_network_hint(mut result: RunResult) -> RunResult {
    let Some(first) = result.blocked.first() else {
        return result;
    };
    let message = format!(
        "A request to {} was blocked by the sandbox's network policy ({}). \
         Code here cannot reach the network except the origins the deployment allows; \
         pass data in as files or in the code instead.",
        first.url, first.directive
    );
    if let Some(error) = result.error.as_mut() {
        if error.hint.is_none() {
            error.hint = Some(Hint {
                code: HintCode::NetworkBlocked,
                message,
            });
        }
    }
    result
}

/// A run that failed with `MemoryError` at its memory limit: say so, and
/// what to do (a `MemoryError` below the limit is the code's own business).
pub fn with_memory_hint(mut result: RunResult) -> RunResult {
    let Some(MemoryUse {
        limit_bytes,
        limit_reached: true,
        ..
    }) = result.memory
    else {
        return result;
    };
    if let Some(error) = result.error.as_mut() {
        if error.kind == "MemoryError" && error.hint.is_none() {
            error.hint = Some(Hint {
                code: HintCode::MemoryLimit,
                message: format!(
                    "The run reached the session's memory limit of {}. {MEMORY_ADVICE}",
                    format::mebibytes(limit_bytes)
                ),
            });
        }
    }
    result
}

/// Consecutive chunks of one stream joined, as the runner reports them.
fn merge(chunks: &[OutputChunk]) -> Vec<OutputChunk> {
    let mut merged = Vec::new();
    for chunk in chunks {
        chunk.clone().append_to(&mut merged);
    }
    merged
}
