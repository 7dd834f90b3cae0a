//! The editor's decisions: which marks a check or a run's error makes, how
//! its questions to Python queue, and how cursor offsets convert.

use sandpit::editing::chars_before;
use sandpit::editing::gate::{Offer, OneAtATime};
use sandpit::editing::marks::{from_check, from_run_error, Severity, CHECK_SOURCE, RUN_SOURCE};
use sandpit::protocol::{
    Availability, CheckReport, Fix, FixOutcome, Hint, HintCode, ImportPlan, LintRule, LintWarning,
    RunError, SourceLine, TrialStatus,
};

fn error(line: Option<u32>, hint: Option<Hint>) -> RunError {
    RunError {
        kind: "ZeroDivisionError".into(),
        message: "division by zero".into(),
        line,
        column: Some(5),
        end_column: Some(10),
        source: vec![
            SourceLine {
                line: 1,
                text: "x = 0".into(),
            },
            SourceLine {
                line: 2,
                text: "y = 1 / x".into(),
            },
        ],
        traceback: String::new(),
        hint,
        fix: None,
    }
}

fn plan(module: &str, line: u32, availability: Availability) -> ImportPlan {
    ImportPlan {
        module: module.into(),
        line,
        availability,
        package: None,
        message: format!("about {module}"),
    }
}

#[test]
fn a_run_error_is_marked_at_its_columns_while_its_line_reads_the_same() {
    let mark = from_run_error(&error(Some(2), None)).expect("a mark");
    assert_eq!(
        (mark.line, mark.column, mark.end_column),
        (2, Some(5), Some(10))
    );
    assert_eq!(mark.severity, Severity::Error);
    assert_eq!(mark.message, "ZeroDivisionError: division by zero");
    assert_eq!(mark.expect.as_deref(), Some("y = 1 / x"));
    assert_eq!(mark.source, RUN_SOURCE);
}

#[test]
fn a_run_errors_hint_follows_its_message() {
    let hint = Hint {
        code: HintCode::InputUnsupported,
        message: "Pass the data in as a variable.".into(),
    };
    let mark = from_run_error(&error(Some(1), Some(hint))).expect("a mark");
    assert_eq!(
        mark.message,
        "ZeroDivisionError: division by zero\nPass the data in as a variable."
    );
}

#[test]
fn an_error_outside_the_code_or_without_its_line_makes_no_mark() {
    assert_eq!(from_run_error(&error(None, None)), None);
    assert_eq!(from_run_error(&error(Some(7), None)), None);
}

#[test]
fn a_check_marks_its_syntax_error_and_the_imports_that_are_not_offline() {
    let report = CheckReport {
        syntax_error: Some(RunError {
            kind: "SyntaxError".into(),
            message: "invalid syntax".into(),
            ..error(Some(2), None)
        }),
        imports: vec![
            plan("json", 1, Availability::Offline),
            plan("numpy", 3, Availability::Network),
            plan("requests", 4, Availability::Unavailable),
        ],
        warnings: Vec::new(),
    };
    let marks = from_check(&report);
    let summary: Vec<_> = marks
        .iter()
        .map(|m| {
            (
                m.line,
                m.word.as_deref(),
                m.severity,
                m.expect.is_none(),
                m.source,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (2, None, Severity::Error, true, CHECK_SOURCE),
            (3, Some("numpy"), Severity::Info, true, CHECK_SOURCE),
            (4, Some("requests"), Severity::Warning, true, CHECK_SOURCE),
        ]
    );
    assert_eq!(marks[0].message, "SyntaxError: invalid syntax");
    assert_eq!(marks[1].message, "about numpy");
}

fn fix(summary: &str, code: &str) -> Fix {
    Fix {
        summary: summary.into(),
        code: code.into(),
        diff: "".into(),
        verified: false,
        outcome: Some(FixOutcome {
            status: TrialStatus::NotRun,
            error_type: None,
            message: "not tried: a check runs nothing".into(),
        }),
        trial_ms: 0,
    }
}

#[test]
fn a_checks_fixes_go_with_their_marks_and_its_warnings_are_marked_as_warnings() {
    let report = CheckReport {
        syntax_error: Some(RunError {
            kind: "SyntaxError".into(),
            message: "expected ':'".into(),
            fix: Some(Box::new(fix("add ':'", "def f():\n    pass"))),
            ..error(Some(1), None)
        }),
        imports: Vec::new(),
        warnings: vec![LintWarning {
            rule: LintRule::SqlBuiltFromStrings,
            line: Some(3),
            column: Some(1),
            end_column: Some(20),
            message: "SQL built from strings".into(),
            fix: Some(fix("parameters", "fixed")),
        }],
    };
    let marks = from_check(&report);
    assert_eq!(
        marks[0].message,
        "SyntaxError: expected ':'\nFix, not verified: add ':'"
    );
    assert_eq!(marks[0].fix.as_deref(), Some("def f():\n    pass"));
    assert_eq!(
        (marks[1].line, marks[1].column, marks[1].severity),
        (3, Some(1), Severity::Warning)
    );
    assert_eq!(
        marks[1].message,
        "SQL built from strings [sql-built-from-strings]\nFix, not verified: parameters"
    );
    assert_eq!(marks[1].fix.as_deref(), Some("fixed"));
    assert_eq!(
        from_run_error(&error(Some(2), None)).and_then(|m| m.fix),
        None
    );
}

#[test]
fn a_clean_check_makes_no_marks() {
    let report = CheckReport {
        syntax_error: None,
        imports: vec![plan("json", 1, Availability::Offline)],
        warnings: Vec::new(),
    };
    assert!(from_check(&report).is_empty());
}

#[test]
fn one_question_in_flight_and_only_the_newest_waits() {
    let mut gate = OneAtATime::default();
    assert_eq!(gate.offer(1, true), Offer::Send(1));
    assert_eq!(gate.offer(2, true), Offer::Wait { dropped: None });
    assert_eq!(gate.offer(3, true), Offer::Wait { dropped: Some(2) });
    assert_eq!(gate.answered(true), Some(3), "the newest goes next");
    assert_eq!(
        gate.offer(4, true),
        Offer::Wait { dropped: None },
        "3 is in flight"
    );
    assert_eq!(gate.answered(true), Some(4));
    assert_eq!(gate.answered(true), None);
    assert_eq!(
        gate.offer(5, true),
        Offer::Send(5),
        "nothing in flight any more"
    );
}

#[test]
fn no_question_goes_while_python_is_busy_with_runs() {
    let mut gate = OneAtATime::default();
    assert_eq!(gate.offer(1, false), Offer::Wait { dropped: None });
    assert_eq!(gate.offer(2, false), Offer::Wait { dropped: Some(1) });
    assert_eq!(gate.freed(), Some(2), "sent once Python is free");
    assert_eq!(gate.offer(3, true), Offer::Wait { dropped: None });
    assert_eq!(
        gate.answered(false),
        None,
        "a run began meanwhile: 3 waits for it"
    );
    assert_eq!(gate.offer(4, false), Offer::Wait { dropped: Some(3) });
    assert_eq!(gate.freed(), Some(4));
    assert_eq!(gate.freed(), None, "4 is in flight");
    assert_eq!(gate.answered(true), None);
    assert_eq!(gate.offer(5, false), Offer::Wait { dropped: None });
    assert_eq!(gate.take_waiting(), Some(5), "a caller may drop what waits");
    assert_eq!(gate.freed(), None);
}

#[test]
fn cursor_offsets_count_characters_for_python() {
    assert_eq!(chars_before("abc", 2), 2);
    assert_eq!(chars_before("é = 1", 1), 1);
    // 😀 is two UTF-16 units and one character.
    assert_eq!(chars_before("😀x", 2), 1);
    assert_eq!(chars_before("😀x", 3), 2);
    assert_eq!(
        chars_before("😀x", 1),
        0,
        "inside a character: the ones wholly before"
    );
    assert_eq!(chars_before("ab", 99), 2, "past the end: all of them");
}
