//! The browser reads run results by hand (`sandpit::js::reader`), natively the
//! derive reads them: both must read the same JSON the same way, and refuse
//! what the derive refuses in the browser.

use sandpit::js::reader::FromSource;
use sandpit::model::conversation::{AnswerEnd, NoteKind};
use sandpit::protocol::{
    Answer, Availability, CheckReport, ClockMessage, CompletionKind, HintCode, LoadStage,
    OutputChunk, RunResult, RunStatus, StreamName, WorkerMessage,
};
use sandpit::store::records::{Kept, Refusal, StoredFile, StoredOutcome, StoredRun, Workspace};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// A result with every field set, as the runner writes it.
fn full_result() -> Value {
    json!({
        "status": "error",
        "stdout": "out\n",
        "stderr": "err\n",
        "output": [{"stream": "stdout", "text": "out\n"}, {"stream": "stderr", "text": "err\n"}],
        "value": {"repr": "[1, 2]", "json": [1, 2], "truncated": true},
        "displays": [{
            "text/plain": "<Figure>",
            "text/html": "<b>hi</b>",
            "text/markdown": "# hi",
            "image/png": "iVBORw0KGgo=",
            "image/svg+xml": "<svg/>",
            "application/json": {"a": [1, null]}
        }],
        "error": {
            "type": "ZeroDivisionError",
            "message": "division by zero",
            "line": 2,
            "column": 5,
            "end_column": 8,
            "source": [{"line": 1, "text": "x = 1"}, {"line": 2, "text": "y = x / 0"}],
            "traceback": "Traceback ...",
            "hint": {"code": "network_blocked", "message": "The network is off."}
        },
        "exit_code": -3,
        "duration_ms": 12.625,
        "truncated": {"output": true, "output_bytes_total": 5_000_000_000_u64, "displays": true},
        "blocked": [{"url": "https://example.org", "directive": "connect-src"}],
        "artifacts": [
            {"path": "a.txt", "size": 2, "mime": "text/plain", "content_base64": "aGk="},
            {"path": "big.bin", "size": 9, "mime": "application/octet-stream", "content_base64": null}
        ],
        "files": [{"path": "a.txt", "size": 2}],
        "restored": {"replayed": 3, "lost": [{"session": "main", "code_start": "import x", "reason": "gone"}]},
        "verification": {"passed": false, "not_run": null, "tests": [
            {"name": "assert f() == 5", "line": 1, "passed": false, "error": null,
             "explanation": "assert 4 == 5", "compared": {"left": "4", "op": "==", "right": "5"}},
            {"name": "test_ok", "line": 2, "passed": true, "error": null, "explanation": null, "compared": null}
        ]}
    })
}

fn full_report() -> Value {
    json!({
        "syntax_error": full_result()["error"].clone(),
        "imports": [
            {"module": "numpy", "line": 1, "availability": "network", "package": "numpy", "message": "m"},
            {"module": "json", "line": 2, "availability": "offline", "package": null, "message": "n"}
        ]
    })
}

/// `value` read by hand and by the derive, which must agree.
fn both<T: FromSource + DeserializeOwned + PartialEq + std::fmt::Debug>(value: Value) -> T {
    let by_hand = T::read(value.clone()).expect("read by hand");
    let derived: T = serde_json::from_value(value).expect("read by the derive");
    assert_eq!(by_hand, derived);
    by_hand
}

fn refused<T: FromSource>(value: Value) -> String {
    match T::read(value) {
        Ok(_) => panic!("accepted"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn every_field_is_read_as_the_derive_reads_it() {
    let result: RunResult = both(full_result());
    // Spot checks that the values are there at all, not only equal.
    assert_eq!(result.restored.expect("restored").lost[0].reason, "gone");
    assert_eq!(result.displays[0].svg.as_ref().expect("svg"), "<svg/>");
    let verification = result.verification.expect("verification");
    assert_eq!(
        verification.tests[0]
            .compared
            .as_ref()
            .expect("compared")
            .right,
        "5"
    );
    assert_eq!(result.error.expect("error").end_column, Some(8));
    let report: CheckReport = both(full_report());
    assert_eq!(report.imports[1].package, None);
    let chunk: OutputChunk = both(json!({"stream": "stderr", "text": "x"}));
    assert_eq!(chunk.text, "x");
}

#[test]
fn optional_fields_may_be_null_or_absent() {
    let mut result = full_result();
    let fields = result.as_object_mut().expect("an object");
    fields.insert("value".into(), Value::Null);
    fields.remove("error");
    fields.remove("restored");
    fields.insert("exit_code".into(), Value::Null);
    fields.insert("displays".into(), json!([{"text/plain": "1"}]));
    let read: RunResult = both(result);
    assert!(read.value.is_none() && read.error.is_none() && read.restored.is_none());
    assert!(read.displays[0].png.is_none());
}

#[test]
fn what_the_derive_refuses_is_refused() {
    let without = |field: &str| {
        let mut result = full_result();
        result.as_object_mut().expect("an object").remove(field);
        result
    };
    assert!(refused::<RunResult>(without("status")).contains("missing field `status`"));
    assert!(refused::<RunResult>(without("output")).contains("missing field `output`"));
    let mut result = full_result();
    result["error"]["source"][1]["line"] = json!("two");
    assert!(refused::<RunResult>(result).contains("field `error`: field `source`: field `line`"));
    let mut result = full_result();
    result["status"] = json!("fine");
    assert!(refused::<RunResult>(result).contains("field `status`"));
    let mut result = full_result();
    result["files"] = json!({"path": "a.txt", "size": 2});
    assert!(refused::<RunResult>(result).contains("expected an array"));
    let mut result = full_result();
    result["truncated"] = json!(true);
    assert!(refused::<RunResult>(result).contains("field `truncated`: expected an object"));
    assert!(refused::<OutputChunk>(json!("text")).contains("expected an object"));
    assert!(refused::<OutputChunk>(json!({"stream": "stdout", "text": 1})).contains("`text`"));
}

#[test]
fn unknown_fields_are_ignored_as_in_the_browser_before() {
    // serde_wasm_bindgen reads only the fields a struct names, so the derive
    // never saw unknown ones there (the worker's messages themselves are
    // checked for them, `sandpit::runtime`).
    let mut result = full_result();
    result["later"] = json!(1);
    result["value"]["later"] = json!(1);
    assert!(RunResult::read(result).is_ok());
}

#[test]
fn stored_records_are_read_as_the_derive_reads_them() {
    let run: StoredRun = both(json!({
        "session": "main", "code": "1/0", "outcome": {"finished": full_result()}
    }));
    let StoredOutcome::Finished(result) = run.outcome else {
        panic!("a finished run");
    };
    assert_eq!(result.stdout, "out\n");
    let run: StoredRun =
        both(json!({"session": "s", "code": "", "outcome": {"failed": "no Python"}}));
    assert_eq!(run.outcome, StoredOutcome::Failed("no Python".into()));
    let file: StoredFile = both(json!({
        "session": "main", "path": "a.txt", "size": 2, "kept": {"content": "aGk="}
    }));
    assert_eq!(file.kept, Kept::Content("aGk=".into()));
    for (refusal, expected) in [
        (json!({"kind": "too_large"}), Refusal::TooLarge),
        (json!({"kind": "no_room"}), Refusal::NoRoom),
        (json!({"kind": "too_many"}), Refusal::TooMany),
        (
            json!({"kind": "failed", "message": "m"}),
            Refusal::Failed {
                message: "m".into(),
            },
        ),
    ] {
        let file: StoredFile = both(json!({
            "session": "main", "path": "big.bin", "size": 20_000_000_u64, "kept": {"refused": refusal}
        }));
        assert_eq!(file.kept, Kept::Refused(expected));
    }
    let workspace: Workspace = both(json!({
        "sessions": ["main", "b"], "current": "b", "drafts": {"main": "1", "b": "2"}
    }));
    assert_eq!(workspace.code(), "2");
    assert_eq!(workspace.cursor(), 0, "kept before cursors were: none");
    let workspace: Workspace = both(json!({
        "sessions": ["main", "b"], "current": "b", "drafts": {"main": "1", "b": "2"}, "cursors": {"b": 1}
    }));
    assert_eq!(workspace.cursor(), 1);
}

#[test]
fn stored_records_the_derive_refuses_are_refused() {
    let file = |kept: Value| json!({"session": "main", "path": "a", "size": 1, "kept": kept});
    for kept in [
        json!({"content": "aGk=", "refused": {"kind": "no_room"}}),
        json!({}),
        json!({"kept": "aGk="}),
        json!("content"),
        json!({"content": 1}),
    ] {
        let why = refused::<StoredFile>(file(kept.clone()));
        assert!(why.contains("field `kept`"), "{why}");
        assert!(
            serde_json::from_value::<StoredFile>(file(kept)).is_err(),
            "the derive refuses it too"
        );
    }
    assert!(refused::<StoredFile>(file(json!({"kept": "x"})))
        .contains("unknown variant `kept`, expected `content` or `refused`"));
    assert!(refused::<StoredFile>(
        json!({"session": "main", "path": "a", "kept": {"content": ""}})
    )
    .contains("missing field `size`"));
    assert!(
        refused::<StoredRun>(json!({"session": "s", "code": "", "outcome": {"finished": {}}}))
            .contains("field `outcome`: field `finished`: missing field `status`")
    );
    assert!(
        refused::<Workspace>(json!({"sessions": "main", "current": "main", "drafts": {}}))
            .contains("field `sessions`")
    );
    assert!(refused::<Workspace>(
        json!({"sessions": ["main"], "current": "main", "drafts": ["print(1)"]})
    )
    .contains("field `drafts`: expected an object"));
    assert!(refused::<Workspace>(
        json!({"sessions": ["main"], "current": "main", "drafts": {}, "cursors": {"main": "top"}})
    )
    .contains("field `cursors`: field `main`"));
}

#[test]
fn worker_messages_are_read_as_the_derive_reads_them() {
    let messages = [
        json!({"progress": {"stage": "download", "loaded": 10, "total": null}}),
        json!({"progress": {"stage": "runner", "loaded": 10, "total": 20}}),
        json!({"ready": {"python": "3.14.2", "pyodide": "314.0.7", "snapshot": "used"}}),
        json!({"ready": {"python": "3", "pyodide": "3", "snapshot": {"rejected": {"reason": "old"}}}}),
        json!({"snapshot_stored": {"bytes": 5_000_000_000_u64}}),
        json!({"fatal": {"message": "no wasm"}}),
        json!({"package_progress": {"id": 3, "packages": ["sympy"], "loaded": 1, "total": 2}}),
        json!({"loading_packages": {"id": 3}}),
        json!({"started": {"id": 3}}),
        json!({"stream": {"id": 3, "chunk": {"stream": "stdout", "text": "hi"}}}),
        json!({"run_failed": {"id": 3, "message": "crashed"}}),
        json!({"run_failed": {"id": 3, "message": "crashed",
            "memory": {"peak_bytes": 9, "limit_bytes": 8, "limit_reached": true}}}),
        json!({"answer": {"id": 4, "answer": {"file": {"content_base64": "aGk="}}, "error": null}}),
        json!({"answer": {"id": 4, "answer": {"check": {"report": full_report()}}, "error": null}}),
        json!({"answer": {"id": 4, "answer": {"complete": {"completions": {"token": "pr",
            "options": [{"name": "print", "kind": "function"}, {"name": "os", "kind": "module"}]}}},
            "error": null}}),
        json!({"answer": {"id": 4, "answer": null, "error": "no such file"}}),
        json!({"done": {"id": 3, "result": full_result()}}),
    ];
    for message in messages {
        both::<WorkerMessage>(message);
    }
    assert_eq!(
        both::<ClockMessage>(json!({"fired": {"id": 7}})),
        ClockMessage::Fired { id: 7 }
    );
    let answer: Answer = both(json!({"file": {"content_base64": "aGk="}}));
    assert_eq!(answer.wire_name(), "file");
    assert!(
        refused::<WorkerMessage>(json!({"started": {"id": 3}, "done": {"id": 3}}))
            .contains("invalid length 2")
    );
    assert!(refused::<WorkerMessage>(json!({"finished": {"id": 3}}))
        .contains("unknown variant `finished`"));
    assert!(refused::<WorkerMessage>(json!({"stream": {"id": 3}}))
        .contains("field `stream`: missing field `chunk`"));
    assert!(
        refused::<WorkerMessage>(json!({"done": {"id": 3, "result": {}}}))
            .contains("field `done`: field `result`: missing field `status`")
    );
}

/// Every name `T`'s JSON Schema lists, each read by hand as the derive reads it.
fn every_name_reads<
    T: FromSource + DeserializeOwned + schemars::JsonSchema + PartialEq + std::fmt::Debug,
>() {
    let schema = schemars::schema_for!(T).to_value();
    let mut names = Vec::new();
    collect_names(&schema, &mut names);
    assert!(!names.is_empty(), "{schema}");
    for name in names {
        both::<T>(name);
    }
}

/// The strings a schema allows: its `enum` lists and `const`s, at any depth.
fn collect_names(schema: &Value, names: &mut Vec<Value>) {
    match schema {
        Value::Object(fields) => {
            for (key, value) in fields {
                match (key.as_str(), value) {
                    ("const", Value::String(_)) => names.push(value.clone()),
                    ("enum", Value::Array(items)) => names.extend(items.iter().cloned()),
                    _ => collect_names(value, names),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_names(item, names)),
        _ => {}
    }
}

/// Every name `T`'s JSON Schema lists is the `wire_name` of the variant it reads as.
fn every_name_is_a_wire_name<T: DeserializeOwned + schemars::JsonSchema>(
    wire_name: impl Fn(&T) -> &'static str,
) {
    let schema = schemars::schema_for!(T).to_value();
    let mut names = Vec::new();
    collect_names(&schema, &mut names);
    assert!(!names.is_empty(), "{schema}");
    for name in names {
        let read: T = serde_json::from_value(name.clone()).expect("a name the schema lists");
        assert_eq!(json!(wire_name(&read)), name);
    }
}

#[test]
fn unit_variants_are_named_as_serde_names_them() {
    every_name_is_a_wire_name::<RunStatus>(RunStatus::wire_name);
    every_name_is_a_wire_name::<HintCode>(HintCode::wire_name);
    every_name_is_a_wire_name::<Availability>(Availability::wire_name);
}

#[test]
fn names_of_unit_variants_are_read_as_the_derive_reads_them() {
    every_name_reads::<RunStatus>();
    every_name_reads::<StreamName>();
    every_name_reads::<HintCode>();
    every_name_reads::<Availability>();
    every_name_reads::<LoadStage>();
    every_name_reads::<CompletionKind>();
    // No schema for these: every variant, by a match that a new one breaks.
    for end in [
        AnswerEnd::Streaming,
        AnswerEnd::Complete,
        AnswerEnd::Cut,
        AnswerEnd::Stopped,
    ] {
        match end {
            AnswerEnd::Streaming | AnswerEnd::Complete | AnswerEnd::Cut | AnswerEnd::Stopped => {}
        }
        assert_eq!(
            both::<AnswerEnd>(serde_json::to_value(end).expect("a name")),
            end
        );
    }
    for kind in [
        NoteKind::Stopped,
        NoteKind::StepLimit,
        NoteKind::Failed,
        NoteKind::Waiting,
        NoteKind::Reloaded,
    ] {
        match kind {
            NoteKind::Stopped
            | NoteKind::StepLimit
            | NoteKind::Failed
            | NoteKind::Waiting
            | NoteKind::Reloaded => {}
        }
        assert_eq!(
            both::<NoteKind>(serde_json::to_value(kind).expect("a name")),
            kind
        );
    }
    assert!(refused::<StreamName>(json!("stdin")).contains("unknown variant `stdin`"));
    assert!(refused::<RunStatus>(json!(3)).contains("invalid type"));
}
