//! Marks in the code: what a check found (a syntax error, imports that
//! need the network or cannot work here) and the error a run ended with.
//! The editor (www/editor/code-editor.js) places each on its line.

use serde::Serialize;

use crate::protocol::{Availability, CheckReport, RunError};

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
            message: error_message(error),
            source: CHECK_SOURCE,
            expect: None,
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
        })
    });
    syntax.chain(imports).collect()
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
