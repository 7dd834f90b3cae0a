//! One run: its code, then what it printed, returned or raised.

use leptos::prelude::*;

mod details;
mod error;
mod findings;

use super::rich::RichOutput;
use crate::app::{RunEntry, RunPhase};
use crate::format;
use crate::js::bulk::{self, Text};
use crate::protocol::{OutputChunk, RunResult, RunStatus, StreamName};
use details::{ArtifactItem, RestoredNote};
use error::{ErrorView, StoppedNote};
use findings::Findings;

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
            RunPhase::Finished(result) => result.status.wire_name(),
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
/// (see [`crate::app::drawn::drawn`]), so this looks again for a few frames.
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
/// (`content-visibility: auto`, see `.output-block` in style.css), so long
/// output costs a run's layout only what is on screen. Every block stays
/// in the DOM, so the output is still complete for copying and finding.
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
    let mut fix = None;
    let error = result.error.map(|mut error| match result.status {
        RunStatus::Cancelled => view! { <StoppedNote error kept /> }.into_any(),
        _ => {
            fix = error.fix.take();
            view! { <ErrorView error /> }.into_any()
        }
    });
    let verification = result.verification;
    let findings =
        (fix.is_some() || verification.is_some() || !result.warnings.is_empty()).then(|| {
            view! { <Findings fix verification warnings=result.warnings session=session.clone() /> }
        });
    let exit = result.exit_code.map(|code| {
        view! { <div class="run-meta" data-testid="exit-code" data-code=code.to_string()>{format!("Exited with code {code}")}</div> }.into_any()
    });
    let restored = result
        .restored
        .map(|restored| view! { <RestoredNote restored /> });
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
        {findings}
        {artifacts}
        {restored}
        {exit}
        <div class="run-meta" data-testid="duration" data-ms=result.duration_ms.to_string()>
            {format::duration_ms(result.duration_ms)}
        </div>
        // A button, not a <details>: each <details> brings a shadow root with
        // a style sheet of its own, which every run's frame would pay for.
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
