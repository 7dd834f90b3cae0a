//! One run: its code, then what it printed, returned or raised.

use leptos::prelude::*;

use leptos::task::spawn_local;

use super::download;
use super::rich::RichOutput;
use crate::app::{RunEntry, RunPhase, SharedRuntime};
use crate::format;
use crate::js::bulk::{self, Text};
use crate::protocol::{
    Artifact, OutputChunk, Restoration, RunError, RunResult, RunStatus, StreamName, TestCase,
    Verification,
};

/// A submitted run in any phase.
#[component]
pub fn RunView(entry: RunEntry) -> impl IntoView {
    // The view keeps its entry, and so the entry's signals, until it is
    // removed: an entry can leave the run list in the very turn its phase
    // changes, and the updates already scheduled for this view still read it.
    let kept = entry.clone();
    on_cleanup(move || drop(kept));
    // Read in place: a finished phase holds the whole result.
    let error_line = move || {
        entry.phase.with(|phase| match phase {
            RunPhase::Finished(result) => result.error.as_ref().and_then(|error| error.line),
            _ => None,
        })
    };
    let phase_name = move || {
        entry.phase.with(|phase| match phase {
            RunPhase::Queued => "queued",
            RunPhase::LoadingPackages { .. } => "loading",
            RunPhase::Running { .. } => "running",
            RunPhase::Finished(result) => result.status.name(),
            RunPhase::Failed(_) => "failed",
        })
    };
    let body = move || {
        match entry.phase.get() {
        RunPhase::Queued => {
            view! { <p class="run-note">"Queued: runs when Python is ready"</p> }.into_any()
        }
        RunPhase::LoadingPackages {
            packages,
            loaded,
            total,
        } => view! {
            <div class="run-note" data-testid="packages">
                {format::package_progress(&packages, loaded, total)}
                <progress max=total.to_string() value=loaded.to_string()></progress>
            </div>
        }
        .into_any(),
        RunPhase::Running { .. } => view! { <Output chunks=entry.live.get() /> }.into_any(),
        RunPhase::Finished(result) => {
            view! { <Finished result=*result session=entry.session.get_value() phase=entry.phase /> }
                .into_any()
        }
        RunPhase::Failed(message) => view! {
            <div class="run-error" data-testid="failure">{message}</div>
        }
        .into_any(),
    }
    };
    view! {
        <article
            class="run"
            id=run_element_id(entry.seq)
            data-testid="run-entry"
            data-phase=move || phase_name().to_owned()
            data-earlier=entry.earlier.to_string()
        >
            <div class="run-session">
                {format!("session {}", entry.session.get_value())}
                {entry.earlier.then_some(" · from an earlier visit: its Python state is gone")}
            </div>
            <CodeListing code=entry.code.get_value() highlight=Signal::derive(error_line) />
            {move || body()}
        </article>
    }
}

/// The id of run `seq`'s element.
fn run_element_id(seq: usize) -> String {
    format!("run-{seq}")
}

/// Scrolls run `seq` into view where it is not (a new run below the fold),
/// once it is drawn: the run list draws new runs a moment after they come
/// (see [`super::run_list::drawn`]), so this looks again for a few frames.
pub fn reveal_run(seq: usize) {
    reveal_within(seq, 3);
}

fn reveal_within(seq: usize, frames: u32) {
    request_animation_frame(move || {
        let Some(element) = document().get_element_by_id(&run_element_id(seq)) else {
            if frames > 1 {
                reveal_within(seq, frames - 1);
            }
            return;
        };
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Nearest);
        element.scroll_into_view_with_scroll_into_view_options(&options);
    });
}

/// A finished run's result, as the run list shows it (the Ask panel shows
/// the runs of a model's tool calls so).
#[component]
pub fn ResultView(result: RunResult, session: String) -> impl IntoView {
    let phase = RwSignal::new(RunPhase::Finished(Box::new(result.clone())));
    view! { <Finished result session phase /> }
}

/// The submitted code with line numbers; the failing line, if any, is marked.
///
/// The numbers and the code are one text each, not an element per line: the
/// page shows up to a hundred runs and builds one per run. Lines do not
/// wrap, so the numbers stay beside their lines, and the failing line's mark
/// is a band that style.css places from `--error-line`.
#[component]
pub fn CodeListing(code: String, highlight: Signal<Option<u32>>) -> impl IntoView {
    let numbers = (1..=code.lines().count().max(1))
        .map(|number| number.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    view! {
        <pre
            class="code-listing"
            tabindex="0"
            aria-label="Code of this run"
            data-testid="code-listing"
            data-error-line=move || highlight.get().map(|line| line.to_string())
            style=move || highlight.get().map(|line| format!("--error-line: {line}"))
        >
            <span class="line-numbers">{numbers}</span>
            <span class="line-text">{code}</span>
        </pre>
    }
}

/// Output longer than this many characters is cut into blocks of whole
/// lines that the browser lays out and paints only while they are in view
/// (`content-visibility: auto`, see `.output-block` in style.css): laying
/// out 100 KB of text at once took the page about 25 ms per run, laying
/// out the blocks in view well under one. Every block stays in the DOM, so
/// the output is still complete for copying and finding.
const OUTPUT_BLOCK_CHARS: usize = 8192;

/// stdout and stderr in the order written; stderr styled apart.
#[component]
fn Output(chunks: Vec<OutputChunk>) -> impl IntoView {
    (!chunks.is_empty()).then(|| {
        view! {
            // Focusable: it scrolls, and keyboard users must reach all of it.
            <pre class="output" data-testid="output" tabindex="0">
                {chunks.into_iter().map(output_chunk).collect_view()}
            </pre>
        }
        .into_any()
    })
}

/// One run of a stream. Properties are set from the JS strings themselves:
/// the text goes from the worker's message to the DOM without entering wasm
/// memory.
fn output_chunk(chunk: OutputChunk) -> impl IntoView {
    let class = match chunk.stream {
        StreamName::Stdout => "stdout",
        StreamName::Stderr => "stderr",
    };
    let mut pieces = chunk.text.line_pieces(OUTPUT_BLOCK_CHARS);
    if pieces.len() == 1 {
        return view! { <span class=class data-testid=class prop:textContent=chunk.text.to_js()></span> }
            .into_any();
    }
    // The first piece may continue a line the previous chunk began, and a
    // last piece without a newline may be continued by the next chunk: both
    // stay inline. The pieces between are whole lines, so blocks.
    let head = pieces.remove(0);
    let tail = pieces.pop_if(|last| !last.ends_with_newline());
    let inline = |text: Text| view! { <span prop:textContent=text.to_js()></span> }.into_any();
    view! {
        <span class=class data-testid=class>
            {inline(head)}
            {pieces
                .into_iter()
                .map(|block| {
                    // Until a block is first in view, the browser takes it to be this tall.
                    let height = format!("auto {}lh", block.newlines());
                    view! {
                        <span class="output-block" style:contain-intrinsic-block-size=height prop:textContent=block.to_js()></span>
                    }
                    .into_any()
                })
                .collect_view()}
            {tail.map(inline)}
        </span>
    }
    .into_any()
}

/// A finished run: output, a truncation marker, the value or the error, the
/// duration, and the whole structured result as JSON (what a model receives).
#[component]
fn Finished(result: RunResult, session: String, phase: RwSignal<RunPhase>) -> impl IntoView {
    // Written out only when opened: a long history would otherwise hold every result twice.
    let as_json = move || {
        phase.with_untracked(|phase| match phase {
            RunPhase::Finished(result) => bulk::pretty_json(result),
            _ => Text::default(),
        })
    };
    let json_open = RwSignal::new(false);
    let truncated = result.truncated.output.then(|| {
        let kept: usize = result.output.iter().map(|c| c.text.utf8_len()).sum();
        view! {
            <div class="truncated" data-testid="truncated">
                {format!(
                    "Output truncated: showing the first {} of {}",
                    format::bytes(kept as u64),
                    format::bytes(result.truncated.output_bytes_total),
                )}
            </div>
        }
        .into_any()
    });
    // A value shown in its rich form is not printed again as its repr.
    let displayed = |repr: &Text| result.displays.iter().any(|bundle| bundle.text == *repr);
    let value = result
        .value
        .filter(|value| !displayed(&value.repr))
        .map(|value| {
            view! {
                <pre class="value" data-testid="value">
                    <span class="value-marker">"→ "</span>
                    <span prop:textContent=value.repr.to_js()></span>
                </pre>
            }
            .into_any()
        });
    let displays_cut = result.truncated.displays.then(|| {
        view! {
            <div class="truncated" data-testid="displays-truncated">
                "Some rich outputs were dropped: over the size limit"
            </div>
        }
        .into_any()
    });
    // A run the person stopped is not a failure of the code: said neutrally.
    let kept = result
        .restored
        .as_ref()
        .is_none_or(|restored| restored.before_run == Some(true));
    let error = result.error.map(|error| match result.status {
        RunStatus::Cancelled => view! { <StoppedNote error kept /> }.into_any(),
        _ => view! { <ErrorView error /> }.into_any(),
    });
    let exit = result.exit_code.map(|code| {
        view! { <div class="run-meta" data-testid="exit-code" data-code=code.to_string()>{format!("Exited with code {code}")}</div> }.into_any()
    });
    let restored = result
        .restored
        .map(|restored| view! { <RestoredNote restored /> });
    let verification = result
        .verification
        .map(|verification| view! { <VerificationView verification /> });
    let artifacts = (!result.artifacts.is_empty()).then(|| {
        view! {
            <ul class="artifacts" data-testid="artifacts">
                {result
                    .artifacts
                    .into_iter()
                    .map(|artifact| view! { <ArtifactItem artifact session=session.clone() /> })
                    .collect_view()}
            </ul>
        }
        .into_any()
    });
    view! {
        <Output chunks=result.output />
        {truncated}
        <div class="displays">
            {result.displays.into_iter().map(|bundle| view! { <RichOutput bundle /> }).collect_view()}
        </div>
        {displays_cut}
        {value}
        {error}
        {verification}
        {artifacts}
        {restored}
        {exit}
        <div class="run-meta" data-testid="duration" data-ms=result.duration_ms.to_string()>
            {format::duration_ms(result.duration_ms)}
        </div>
        // A button, not a <details>: each <details> brings a shadow root with
        // a style sheet of its own, which cost every run's frame about 1 ms.
        <div class="result-json">
            <button
                type="button"
                class="disclosure"
                data-testid="result-json-toggle"
                aria-expanded=move || json_open.get().to_string()
                on:click=move |_| json_open.update(|open| *open = !*open)
            >
                "Result as JSON"
            </button>
            <Show when=move || json_open.get()>
                {view! {
                    <pre data-testid="result-json" tabindex="0" aria-label="Result as JSON" prop:textContent=move || as_json().to_js()></pre>
                }
                .into_any()}
            </Show>
        </div>
    }
}

/// A file the run wrote: a download link when its bytes came back with the
/// result; otherwise a button that reads it from the session first.
#[component]
fn ArtifactItem(artifact: Artifact, session: String) -> impl IntoView {
    let label = format!(
        "{} ({}, {})",
        artifact.path,
        artifact.mime,
        format::bytes(artifact.size)
    );
    match artifact.content_base64 {
        Some(content) => {
            let file_name = download::file_name(&artifact.path).to_owned();
            let href = Text::from(format!("data:{};base64,", artifact.mime)).concat(&content);
            view! {
                <li data-testid="artifact" data-path=artifact.path.clone()>
                    <a prop:href=href.to_js() download=file_name>{label}</a>
                </li>
            }
            .into_any()
        }
        None => {
            let runtime = use_context::<SharedRuntime>();
            let failed = RwSignal::new(None::<String>);
            let (path, mime) = (artifact.path.clone(), artifact.mime.clone());
            let fetch_and_save = move |_| {
                let Some(pending) =
                    runtime.map(|runtime| runtime.with_value(|r| r.read_file(&session, &path)))
                else {
                    return;
                };
                let (path, mime) = (path.clone(), mime.clone());
                spawn_local(async move {
                    let saved = match pending.await {
                        Ok(content) => download::save(&path, &mime, &content),
                        Err(error) => Err(error.to_string()),
                    };
                    failed.set(saved.err());
                });
            };
            view! {
                <li data-testid="artifact" data-path=artifact.path.clone()>
                    {label}
                    " "
                    <button data-testid="download" on:click=fetch_and_save>"Download"</button>
                    {move || failed.get().map(|e| view! { <span class="status-error">{e}</span> }.into_any())}
                </li>
            }
            .into_any()
        }
    }
}

/// What the run's tests found: a line for the whole, then each test, a
/// failed one with the values its assert compared.
#[component]
fn VerificationView(verification: Verification) -> impl IntoView {
    let passed = verification.tests.iter().filter(|t| t.passed).count();
    let failed = verification.tests.len() - passed;
    let head = if verification.passed {
        format!("Tests: all {passed} passed")
    } else {
        format!("Tests: {failed} failed, {passed} passed")
    };
    view! {
        <div class="verification" data-testid="verification" data-passed=verification.passed.to_string()>
            <strong class=if verification.passed { "status-ok" } else { "status-error" }>{head}</strong>
            <ul>{verification.tests.into_iter().map(|test| view! { <TestLine test /> }).collect_view()}</ul>
            {verification.not_run.map(|reason| view! { <p class="run-note" data-testid="tests-not-run">{reason}</p> }.into_any())}
        </div>
    }
}

/// One test: a mark, its name and line; for a failure, why.
#[component]
fn TestLine(test: TestCase) -> impl IntoView {
    let mark = if test.passed { "✓ " } else { "✗ " };
    let why = (!test.passed).then(|| {
        let error = test.error.map(|error| {
            if error.message.is_empty() {
                error.kind
            } else {
                format!("{}: {}", error.kind, error.message)
            }
        });
        view! {
            {test.explanation.map(|text| view! { <pre class="test-explanation" data-testid="test-explanation">{text}</pre> }.into_any())}
            {error.map(|text| view! { <div class="test-error">{text}</div> }.into_any())}
        }.into_any()
    });
    view! {
        <li data-testid="test-case" data-passed=test.passed.to_string() class:test-failed=!test.passed>
            <span aria-hidden="true">{mark}</span>
            <span class="visually-hidden">{if test.passed { "Passed: " } else { "Failed: " }}</span>
            <code>{test.name}</code>
            <span class="run-meta">{format!(" (line {})", test.line)}</span>
            {why}
        </li>
    }
}

/// Says that the sandbox restarted and what came back.
#[component]
fn RestoredNote(restored: Restoration) -> impl IntoView {
    let lost = restored.lost.len();
    let what = if restored.before_run == Some(true) {
        "Before this run, the session's worker was started again (it had been parked to make room, or had ended)"
    } else {
        "The sandbox restarted"
    };
    let text = if lost == 0 && restored.replayed == 0 {
        format!("{what}; the session had no earlier runs to replay.")
    } else if lost == 0 {
        format!(
            "{what}; session state was restored by replaying {} earlier run(s).",
            restored.replayed
        )
    } else {
        format!(
            "{what}; {} earlier run(s) replayed, {lost} could not be restored.",
            restored.replayed
        )
    };
    view! {
        <div class="restored" data-testid="restored" data-replayed=restored.replayed.to_string() data-lost=lost.to_string()>
            {text}
            <ul>
                {restored
                    .lost
                    .into_iter()
                    .map(|run| view! { <li>{format!("{}: {} ({})", run.session, run.code_start, run.reason)}</li> }.into_any())
                    .collect_view()}
            </ul>
        </div>
    }
}

/// A stopped run: where it was, and whether the session's variables stayed.
#[component]
fn StoppedNote(error: RunError, kept: bool) -> impl IntoView {
    let code = error.hint.as_ref().map(|hint| bulk::wire_name(&hint.code));
    view! {
        <div class="run-stopped" data-testid="stopped" data-line=error.line.map(|line| line.to_string())>
            <span data-testid="hint" data-code=code>{stopped_text(error.line, kept)}</span>
        </div>
    }
}

/// `"Stopped at line 3; variables kept."`, or what came back after a restart.
fn stopped_text(line: Option<u32>, kept: bool) -> String {
    let at = line.map_or_else(
        || "Stopped".to_owned(),
        |line| format!("Stopped at line {line}"),
    );
    if kept {
        format!("{at}; variables kept.")
    } else {
        format!("{at}; the sandbox restarted (see below).")
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
    let hint = error.hint.map(|hint| {
        let code = bulk::wire_name(&hint.code);
        view! { <div class="error-hint" data-testid="hint" data-code=code>{hint.message}</div> }
            .into_any()
    });
    let caret_line = error.line;
    let (from, to) = (error.column, error.end_column);
    let source = (!error.source.is_empty()).then(|| {
        view! {
            <pre class="error-source" data-testid="error-source">
                {error
                    .source
                    .into_iter()
                    .map(|line| {
                        let failing = Some(line.line) == caret_line;
                        let caret = failing.then(|| caret_under(from, to)).flatten();
                        view! {
                            <div class="code-line" class:error-line=failing>
                                <span class="line-number">{line.line.to_string()}</span>
                                <span class="line-text">{line.text}</span>
                            </div>
                            {caret.map(|c| view! { <div class="caret-line" data-testid="caret"><span class="line-number"></span><span>{c}</span></div> }.into_any())}
                        }
                        .into_any()
                    })
                    .collect_view()}
            </pre>
        }.into_any()
    });
    view! {
        <div class="run-error" data-testid="error">
            <div class="error-head">
                <strong data-testid="error-type">{error.kind}</strong>
                ": "
                <span data-testid="error-message">{error.message}</span>
            </div>
            <div class="error-location" data-testid="error-line" data-line=error.line.map(|line| line.to_string())>
                {location}
            </div>
            {hint}
            {source}
            <details>
                <summary>"Traceback"</summary>
                <pre class="traceback">{error.traceback}</pre>
            </details>
        </div>
    }
}

/// `   ^^^` under columns `from` (1-based) up to `to` (exclusive), when known.
fn caret_under(from: Option<u32>, to: Option<u32>) -> Option<String> {
    let from = from?.max(1);
    let width = to.map_or(1, |to| to.saturating_sub(from).max(1));
    Some(format!(
        "{}{}",
        " ".repeat((from - 1) as usize),
        "^".repeat(width as usize)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_run_says_where_and_what_stayed() {
        assert_eq!(
            stopped_text(Some(3), true),
            "Stopped at line 3; variables kept."
        );
        assert_eq!(stopped_text(None, true), "Stopped; variables kept.");
        assert_eq!(
            stopped_text(Some(2), false),
            "Stopped at line 2; the sandbox restarted (see below)."
        );
    }
}
