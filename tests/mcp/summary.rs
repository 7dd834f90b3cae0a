//! The text a model reads first: a fix Sandpit proved named in the head's
//! one line with its diff below, one it could not prove said so, the
//! warnings with their fixes, and a check's fix and warnings.

use super::*;
use sandpit::mcp::summary::{check_summary, run_summary};
use sandpit::protocol::CheckReport;

const DIFF: &str = "--- submitted\n+++ fixed\n@@ -1 +1,2 @@\n+import math\n x = math.sqrt(16)\n";

fn failed_with(fix: Value) -> String {
    let error = json!({
        "type": "NameError", "message": "name 'math' is not defined", "line": 1, "column": 5,
        "end_column": 9, "source": [], "traceback": "NameError: name 'math' is not defined",
        "hint": null, "fix": fix
    });
    run_summary(&result(json!({"status": "error", "error": error}))).to_string()
}

fn fix(verified: bool, outcome: Value) -> Value {
    json!({"summary": "import math", "code": "import math\nx = math.sqrt(16)\n", "diff": DIFF,
           "verified": verified, "outcome": outcome, "trial_ms": 3})
}

#[test]
fn a_verified_fix_is_named_in_the_first_line_and_its_diff_follows() {
    let text = failed_with(fix(true, Value::Null));
    let first = text.lines().next().expect("a first line");
    assert_eq!(
        first,
        "The code raised an exception. Sandpit found a fix and ran it: it works (import math)."
    );
    assert!(
        text.contains(&format!(
            "--- fix, verified: import math ---\n{}",
            DIFF.trim_end()
        )),
        "{text}"
    );
    assert!(
        !text.contains("x = math.sqrt(16)\n--"),
        "the diff, not the whole program"
    );
}

#[test]
fn a_fix_its_trial_did_not_prove_says_so_and_why() {
    let outcome = json!({"status": "error", "error_type": "NameError",
                         "message": "the fixed program raised NameError: name 'r' is not defined on line 2"});
    let text = failed_with(fix(false, outcome));
    assert!(
        text.starts_with(
            "The code raised an exception. Sandpit suggests a fix it could not prove (import math)."
        ),
        "{text}"
    );
    assert!(
        text.contains("--- fix, not verified (the fixed program raised NameError: name 'r' is not defined on line 2): import math ---"),
        "{text}"
    );
}

#[test]
fn a_run_without_a_fix_or_warnings_says_neither() {
    let text = run_summary(&result(json!({"stdout": "1\n"}))).to_string();
    assert!(
        !text.contains("fix") && !text.contains("warnings"),
        "{text}"
    );
}

#[test]
fn warnings_come_last_each_with_its_rule_line_and_fix() {
    let warnings = json!([
        {"rule": "sql-built-from-strings", "line": 5, "column": 1, "end_column": 40,
         "message": "SQL built from strings", "fix": fix(true, Value::Null)},
        {"rule": "figure-unlabelled", "line": null, "column": null, "end_column": null,
         "message": "figure 1, axes 1 has no axis labels"}
    ]);
    let text = run_summary(&result(json!({"warnings": warnings}))).to_string();
    let section = text
        .split("--- warnings ---\n")
        .nth(1)
        .expect("a warnings section");
    assert!(section.starts_with(
        "line 5: [sql-built-from-strings] SQL built from strings\nfix (verified): import math\n--- submitted"
    ), "{section}");
    assert!(
        section.ends_with("\n[figure-unlabelled] figure 1, axes 1 has no axis labels"),
        "{section}"
    );
}

#[test]
fn a_check_shows_its_fix_and_warnings() {
    let report: CheckReport = serde_json::from_value(json!({
        "syntax_error": {"type": "SyntaxError", "message": "expected ':'", "line": 1, "column": 14,
            "end_column": null, "source": [], "traceback": "SyntaxError: expected ':'", "hint": null,
            "fix": {"summary": "add ':' after `def double(x)`", "code": "def double(x):\n", "diff": "-def double(x)\n+def double(x):\n",
                    "verified": false, "outcome": {"status": "not_run", "error_type": null, "message": "not tried: a check runs nothing"}, "trial_ms": 0}},
        "imports": []
    }))
    .expect("a CheckReport");
    let text = check_summary(&report);
    assert!(text.contains("--- fix, not verified (not tried: a check runs nothing): add ':' after `def double(x)` ---\n-def double(x)\n+def double(x):"), "{text}");
    let clean: CheckReport = serde_json::from_value(json!({"syntax_error": null, "imports": [], "warnings": [
        {"rule": "eval-of-input", "line": 2, "column": 9, "end_column": 19, "message": "eval() of a string"}]}))
    .expect("a CheckReport");
    assert!(check_summary(&clean)
        .ends_with("--- warnings ---\nline 2: [eval-of-input] eval() of a string"));
}

#[test]
fn the_calls_to_the_pages_functions_are_counted_and_the_first_listed() {
    let call = |n: u32, error: Value| {
        json!({"name": "lookup", "arguments": format!("{{\"n\": {n}}}"), "ms": 0.5, "ok": error.is_null(),
               "error": error, "form": "await"})
    };
    let mut calls: Vec<Value> = (0..12).map(|n| call(n, Value::Null)).collect();
    calls[1] = call(
        1,
        json!({"kind": "invalid_arguments", "message": "/n: not an integer"}),
    );
    let text = run_summary(&result(json!({"host_calls": calls}))).to_string();
    let section = text
        .split("--- host calls ---\n")
        .nth(1)
        .expect("a host calls section");
    let lines: Vec<&str> = section.lines().collect();
    assert_eq!(lines[0], "12 calls, 1 failed");
    assert_eq!(lines[1], "lookup({\"n\": 0}) ok, 0.5 ms");
    assert_eq!(
        lines[2],
        "lookup({\"n\": 1}) failed (invalid_arguments): /n: not an integer, 0.5 ms"
    );
    assert_eq!(lines[11], "... and 2 more");
    assert!(!run_summary(&result(json!({})))
        .to_string()
        .contains("host calls"));
}
