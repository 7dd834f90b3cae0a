//! Tool outcomes as a model reads them first: one text block saying how a
//! run ended, with its output, error, the fix Sandpit proved (or could
//! not), its tests and its warnings; and what a check found.

use crate::js::bulk::Text;
use crate::protocol::{
    CheckReport, Fix, HostCallRecord, LintWarning, RunResult, RunStatus, Verification,
};

/// Host calls listed one by one in a summary; the rest are counted.
const HOST_CALLS_LISTED: usize = 10;

/// What a run did, as a model reads it: how it ended, its output, its value,
/// and for a failure the error with its line and a repair hint.
///
/// Put together as [`Text`]: in the browser the output is joined in, not
/// copied through wasm memory.
pub fn run_summary(result: &RunResult) -> Text {
    let mut head = match result.status {
        RunStatus::Ok => format!("Ran in {:.0} ms.", result.duration_ms),
        RunStatus::Error => "The code raised an exception.".to_owned(),
        RunStatus::Timeout => "The code ran past its timeout and was stopped.".to_owned(),
        RunStatus::Crashed => "The Python interpreter crashed and was restarted.".to_owned(),
        RunStatus::Cancelled => "The run was cancelled.".to_owned(),
    };
    if let Some(code) = result.exit_code {
        head.push_str(&format!(" Exit code {code}."));
    }
    if let Some(fix) = result.error.as_ref().and_then(|error| error.fix.as_ref()) {
        head.push_str(&fix_line(fix));
    }
    let mut text = Text::from(head);
    let mut section = |title: &str, body: &Text| {
        if !body.is_empty() {
            text = text
                .concat(&Text::from(format!("\n--- {title} ---\n")))
                .concat(&body.trim_end_newlines());
        }
    };
    section("stdout", &result.stdout);
    section("stderr", &result.stderr);
    if let Some(value) = &result.value {
        section("value", &value.repr);
    }
    if let Some(error) = &result.error {
        section("error", &error.traceback.as_str().into());
        if let Some(hint) = &error.hint {
            section("hint", &hint.message.as_str().into());
        }
        if let Some(fix) = &error.fix {
            section(&fix_title(fix), &fix.diff);
        }
    }
    let blocked: Vec<String> = result
        .blocked
        .iter()
        .map(|b| format!("{} (refused by {})", b.url, b.directive))
        .collect();
    section("blocked by the network policy", &blocked.join("\n").into());
    if result.truncated.output {
        section(
            "note",
            &format!(
                "Output was cut: {} bytes were written in all.",
                result.truncated.output_bytes_total
            )
            .into(),
        );
    }
    let files: Vec<String> = result
        .artifacts
        .iter()
        .map(|a| format!("{} ({} bytes, {})", a.path, a.size, a.mime))
        .collect();
    section("files written", &files.join("\n").into());
    section("host calls", &host_calls_summary(&result.host_calls).into());
    if let Some(verification) = &result.verification {
        section("tests", &verification_summary(verification).into());
    }
    if !result.warnings.is_empty() {
        section("warnings", &warnings_summary(&result.warnings));
    }
    text
}

/// The calls the code made to the embedding page's functions: how many
/// failed, then the first few, each with how it ended (the result's
/// `host_calls` lists them all).
fn host_calls_summary(calls: &[HostCallRecord]) -> String {
    if calls.is_empty() {
        return String::new();
    }
    let failed = calls.iter().filter(|call| !call.ok).count();
    let mut lines = vec![format!("{} calls, {failed} failed", calls.len())];
    for call in calls.iter().take(HOST_CALLS_LISTED) {
        let ended = match &call.error {
            None => "ok".to_owned(),
            Some(error) => format!("failed ({}): {}", error.kind.wire_name(), error.message),
        };
        lines.push(format!(
            "{}({}) {ended}, {:.1} ms",
            call.name, call.arguments, call.ms
        ));
    }
    if calls.len() > HOST_CALLS_LISTED {
        lines.push(format!("... and {} more", calls.len() - HOST_CALLS_LISTED));
    }
    lines.join("\n")
}

/// The head's sentence on a fix: a verified one named in full, so a model
/// that reads one line has it.
fn fix_line(fix: &Fix) -> String {
    if fix.verified {
        format!(
            " Sandpit found a fix and ran it: it works ({}).",
            fix.summary
        )
    } else {
        format!(
            " Sandpit suggests a fix it could not prove ({}).",
            fix.summary
        )
    }
}

/// The title of a fix's section, above its diff.
fn fix_title(fix: &Fix) -> String {
    match (&fix.outcome, fix.verified) {
        (_, true) => format!("fix, verified: {}", fix.summary),
        (Some(outcome), false) => {
            format!("fix, not verified ({}): {}", outcome.message, fix.summary)
        }
        (None, false) => format!("fix, not verified: {}", fix.summary),
    }
}

/// Each warning on a line of its own, with its fix's diff under it.
fn warnings_summary(warnings: &[LintWarning]) -> Text {
    let mut text = Text::default();
    for (index, warning) in warnings.iter().enumerate() {
        let line = warning
            .line
            .map(|line| format!("line {line}: "))
            .unwrap_or_default();
        let separator = if index == 0 { "" } else { "\n" };
        let head = format!(
            "{separator}{line}[{}] {}",
            warning.rule.wire_name(),
            warning.message
        );
        text = text.concat(&Text::from(head));
        if let Some(fix) = &warning.fix {
            let verified = if fix.verified {
                "verified"
            } else {
                "not verified"
            };
            text = text
                .concat(&Text::from(format!(
                    "\nfix ({verified}): {}\n",
                    fix.summary
                )))
                .concat(&fix.diff.trim_end_newlines());
        }
    }
    text
}

/// What a run's tests found, as a model reads it: the count, then each
/// failed test with where, why, and the values a failed assert compared.
pub fn verification_summary(verification: &Verification) -> String {
    let passed = verification.tests.iter().filter(|t| t.passed).count();
    let failed = verification.tests.len() - passed;
    let mut text = match (failed, &verification.not_run) {
        (0, None) => format!("All {passed} test(s) passed."),
        _ => format!("{failed} test(s) failed, {passed} passed."),
    };
    for test in verification.tests.iter().filter(|t| !t.passed) {
        text.push_str(&format!(
            "\nFAILED {} (line {} of the tests)",
            test.name, test.line
        ));
        if let Some(explanation) = &test.explanation {
            text.push_str(&format!("\n{explanation}"));
        }
        match (&test.error, &test.explanation) {
            // A failed assert's explanation says it all, but its message.
            (Some(error), Some(_)) if !error.message.is_empty() => {
                text.push_str(&format!("\n{}: {}", error.kind, error.message));
            }
            (Some(error), None) => text.push_str(&format!("\n{}", error.traceback.trim_end())),
            _ => {}
        }
    }
    if let Some(reason) = &verification.not_run {
        text.push_str(&format!("\n{reason}"));
    }
    text
}

/// What `check_python` found, one line per import.
pub fn check_summary(report: &CheckReport) -> String {
    if let Some(error) = &report.syntax_error {
        let line = error
            .line
            .map(|l| format!(" on line {l}"))
            .unwrap_or_default();
        let mut text = format!(
            "The code does not compile{line}: {}: {}\n{}",
            error.kind, error.message, error.traceback
        );
        if let Some(fix) = &error.fix {
            text.push_str(&format!(
                "\n--- {} ---\n{}",
                fix_title(fix),
                fix.diff.to_string().trim_end()
            ));
        }
        return text;
    }
    let mut text = "The code compiles.".to_owned();
    if report.imports.is_empty() {
        text.push_str(" It imports nothing.");
    }
    for plan in &report.imports {
        let availability = plan.availability.wire_name();
        text.push_str(&format!(
            "\n{} (line {}): {availability}. {}",
            plan.module, plan.line, plan.message
        ));
    }
    if !report.warnings.is_empty() {
        text.push_str(&format!(
            "\n--- warnings ---\n{}",
            warnings_summary(&report.warnings)
        ));
    }
    text
}
