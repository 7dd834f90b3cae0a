//! A run's error: the exception shaped for repair, or where a stopped run
//! was and whether its session's variables stayed.

use leptos::prelude::*;

use crate::protocol::RunError;

/// A stopped run: where it was, and whether the session's variables stayed.
#[component]
pub(super) fn StoppedNote(error: RunError, kept: bool) -> impl IntoView {
    let code = error.hint.as_ref().map(|hint| hint.code.wire_name());
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
pub(super) fn ErrorView(error: RunError) -> impl IntoView {
    let location = match (error.line, error.column) {
        (Some(line), Some(column)) => format!("line {line}, column {column}"),
        (Some(line), None) => format!("line {line}"),
        _ => String::new(),
    };
    let hint = error.hint.map(|hint| {
        let code = hint.code.wire_name();
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
