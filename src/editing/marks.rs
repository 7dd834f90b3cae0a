//! Marks in the code: what a check found (a syntax error, imports that
//! need the network or cannot work here, dangerous code) and the error a
//! run ended with. The editor (www/editor/code-editor.js) places each on
//! its line; a mark with a fix offers to apply it.

use serde::Serialize;

use crate::protocol::{Availability, CheckReport, Fix, RunError};

/// How serious a mark is; the editor colours it by this.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The code will fail here.
    Error,
    /// It may fail here.
    Warning,
    /// Worth knowing.
    Info,
}

/// One mark, as the editor takes it.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters) where it starts, when known.
    pub column: Option<u32>,
    /// 1-based column just past its end, when known.
    pub end_column: Option<u32>,
    /// A name on the line to mark instead of columns (an imported module).
    pub word: Option<String>,
    /// How serious.
    pub severity: Severity,
    /// What it says on hover.
    pub message: String,
    /// Where it comes from, shown under the message.
    pub source: &'static str,
    /// The line's text when the mark was made, for a mark about code that
    /// may have changed since (a run's error): the editor shows it only
    /// while its line still reads so.
    pub expect: Option<String>,
    /// The whole code with the mark's fix applied, which the editor offers
    /// to put in place of the code checked.
    pub fix: Option<String>,
}

/// What a mark from a check says it comes from.
pub const CHECK_SOURCE: &str = "Python's check";
/// What a run error's mark says it comes from.
pub const RUN_SOURCE: &str = "The last run";

/// The marks for what a check of the code found.
pub fn from_check(report: &CheckReport) -> Vec<Mark> {
    let syntax = report.syntax_error.iter().filter_map(|error| {
        Some(Mark {
            line: error.line?,
            column: error.column,
            end_column: error.end_column,
            word: None,
            severity: Severity::Error,
            message: with_fix(error_message(error), error.fix.as_deref()),
            source: CHECK_SOURCE,
            expect: None,
            fix: error.fix.as_ref().map(|fix| fix.code.to_string()),
        })
    });
    let imports = report.imports.iter().filter_map(|plan| {
        let severity = match plan.availability {
            Availability::Offline => return None,
            Availability::Network => Severity::Info,
            Availability::Unavailable => Severity::Warning,
        };
        Some(Mark {
            line: plan.line,
            column: None,
            end_column: None,
            word: Some(plan.module.clone()),
            severity,
            message: plan.message.clone(),
            source: CHECK_SOURCE,
            expect: None,
            fix: None,
        })
    });
    let warnings = report.warnings.iter().filter_map(|warning| {
        let message = format!("{} [{}]", warning.message, warning.rule.wire_name());
        Some(Mark {
            line: warning.line?,
            column: warning.column,
            end_column: warning.end_column,
            word: None,
            severity: Severity::Warning,
            message: with_fix(message, warning.fix.as_ref()),
            source: CHECK_SOURCE,
            expect: None,
            fix: warning.fix.as_ref().map(|fix| fix.code.to_string()),
        })
    });
    syntax.chain(imports).chain(warnings).collect()
}

/// `message`, then what `fix` would change, if there is one.
fn with_fix(message: String, fix: Option<&Fix>) -> String {
    match fix {
        Some(fix) if fix.verified => format!("{message}\nFix: {}", fix.summary),
        Some(fix) => format!("{message}\nFix, not verified: {}", fix.summary),
        None => message,
    }
}

/// The mark for the error a run ended with, when it points into the code.
pub fn from_run_error(error: &RunError) -> Option<Mark> {
    let line = error.line?;
    let text = error.source.iter().find(|source| source.line == line)?;
    Some(Mark {
        line,
        column: error.column,
        end_column: error.end_column,
        word: None,
        severity: Severity::Error,
        message: error_message(error),
        source: RUN_SOURCE,
        expect: Some(text.text.clone()),
        fix: None,
    })
}

/// `"ZeroDivisionError: division by zero"`, then the hint, if any, on a line of its own.
fn error_message(error: &RunError) -> String {
    let head = if error.message.is_empty() {
        error.kind.clone()
    } else {
        format!("{}: {}", error.kind, error.message)
    };
    match &error.hint {
        Some(hint) => format!("{head}\n{}", hint.message),
        None => head,
    }
}
