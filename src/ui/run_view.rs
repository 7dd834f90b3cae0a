//! One run: its code, then what it printed, returned or raised.

use leptos::prelude::*;

use super::{RunEntry, RunPhase};
use crate::format;
use crate::protocol::{OutputChunk, RunError, RunResult, StreamName};

/// A submitted run in any phase.
#[component]
pub fn RunView(entry: RunEntry) -> impl IntoView {
    let error_line = move || match entry.phase.get() {
        RunPhase::Finished(result) => result.error.and_then(|error| error.line),
        _ => None,
    };
    let phase_name = move || match entry.phase.get() {
        RunPhase::Queued => "queued",
        RunPhase::Running { .. } => "running",
        RunPhase::Finished(result) if result.error.is_some() => "error",
        RunPhase::Finished(_) => "ok",
        RunPhase::Failed(_) => "failed",
    };
    let body = move || match entry.phase.get() {
        RunPhase::Queued => {
            view! { <p class="run-note">"Queued: runs when Python is ready"</p> }.into_any()
        }
        RunPhase::Running { .. } => view! { <Output chunks=entry.live.get() /> }.into_any(),
        RunPhase::Finished(result) => view! { <Finished result=*result /> }.into_any(),
        RunPhase::Failed(message) => view! {
            <div class="run-error" data-testid="failure">{message}</div>
        }
        .into_any(),
    };
    view! {
        <article class="run" data-testid="run-entry" data-phase=phase_name>
            <CodeListing code=entry.code.get_value() highlight=Signal::derive(error_line) />
            {body}
        </article>
    }
}

/// The submitted code with line numbers; the failing line, if any, is marked.
#[component]
fn CodeListing(code: String, highlight: Signal<Option<u32>>) -> impl IntoView {
    let lines: Vec<(u32, String)> = code
        .lines()
        .enumerate()
        .map(|(i, line)| (u32::try_from(i + 1).unwrap_or(u32::MAX), line.to_owned()))
        .collect();
    view! {
        <pre class="code-listing">
            {lines
                .into_iter()
                .map(|(number, line)| {
                    let marked = move || highlight.get() == Some(number);
                    view! {
                        <div class="code-line" class:error-line=marked data-line=number>
                            <span class="line-number">{number}</span>
                            <span class="line-text">{line}</span>
                        </div>
                    }
                })
                .collect_view()}
        </pre>
    }
}

/// stdout and stderr in the order written; stderr styled apart.
#[component]
fn Output(chunks: Vec<OutputChunk>) -> impl IntoView {
    (!chunks.is_empty()).then(|| {
        view! {
            <pre class="output" data-testid="output">
                {chunks
                    .into_iter()
                    .map(|chunk| {
                        let class = match chunk.stream {
                            StreamName::Stdout => "stdout",
                            StreamName::Stderr => "stderr",
                        };
                        view! { <span class=class data-testid=class>{chunk.text}</span> }
                    })
                    .collect_view()}
            </pre>
        }
    })
}

/// A finished run: output, a truncation marker, the value or the error, the duration.
#[component]
fn Finished(result: RunResult) -> impl IntoView {
    let kept: usize = result.output.iter().map(|c| c.text.len()).sum();
    let truncated = result.truncated.output.then(|| {
        view! {
            <div class="truncated" data-testid="truncated">
                {format!(
                    "Output truncated: showing the first {} of {}",
                    format::bytes(kept as u64),
                    format::bytes(result.truncated.output_bytes_total),
                )}
            </div>
        }
    });
    let value = result.value.map(|value| {
        view! {
            <pre class="value" data-testid="value">
                <span class="value-marker">"→ "</span>
                {value.repr}
            </pre>
        }
    });
    let error = result.error.map(|error| view! { <ErrorView error /> });
    view! {
        <Output chunks=result.output />
        {truncated}
        {value}
        {error}
        <div class="run-meta" data-testid="duration">{format::duration_ms(result.duration_ms)}</div>
    }
}

/// An exception: type and message first, where it happened, then the traceback.
#[component]
fn ErrorView(error: RunError) -> impl IntoView {
    let location = match (error.line, error.column) {
        (Some(line), Some(column)) => format!("line {line}, column {column}"),
        (Some(line), None) => format!("line {line}"),
        _ => String::new(),
    };
    view! {
        <div class="run-error" data-testid="error">
            <div class="error-head">
                <strong data-testid="error-type">{error.kind}</strong>
                ": "
                <span data-testid="error-message">{error.message}</span>
            </div>
            <div class="error-location" data-testid="error-line" data-line=error.line>
                {location}
            </div>
            <details>
                <summary>"Traceback"</summary>
                <pre class="traceback">{error.traceback}</pre>
            </details>
        </div>
    }
}
