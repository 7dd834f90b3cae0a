//! The protocol's wire shape: what the worker and runner must send, and the
//! schema file the browser tests validate real messages against.

use sandpit::protocol::{
    schema, Answer, CheckReport, Completions, HostMessage, OutputChunk, RunRequest, RunResult,
    RunStatus, SnapshotUse, StreamName, WorkerMessage,
};
use sandpit::runtime::events::SessionPhase;
use serde_json::{json, Value};

const SCHEMA_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/protocol.schema.json"
);

#[test]
fn a_run_message_has_the_documented_wire_shape() {
    let message = HostMessage::Run {
        id: 7,
        request: RunRequest::new("print(1)"),
    };
    assert_eq!(
        serde_json::to_value(&message).expect("serialisable"),
        json!({"run": {
            "id": 7,
            "request": {
                "code": "print(1)",
                "session": "main",
                "timeout_ms": 30000,
                "files": [],
                "packages": [],
                "figure_format": "png",
                "limits": {"output_bytes": 262144, "value_bytes": 65536, "display_bytes": 8388608,
                           "input_bytes": 33554432, "artifact_bytes": 4194304}
            }
        }})
    );
}

#[test]
fn a_done_message_as_the_runner_writes_it_is_understood() {
    let message: WorkerMessage = serde_json::from_value(json!({"done": {
        "id": 3,
        "result": {
            "status": "error",
            "stdout": "a\n",
            "stderr": "b\n",
            "output": [{"stream": "stdout", "text": "a\n"}, {"stream": "stderr", "text": "b\n"}],
            "value": null,
            "displays": [{"text/plain": "<Chart>", "image/png": "iVBORw0KGgo="}],
            "error": {"type": "ZeroDivisionError", "message": "division by zero",
                      "line": 2, "column": 5, "end_column": 10,
                      "source": [{"line": 2, "text": "1 + 1 / 0"}],
                      "traceback": "Traceback ...", "hint": null},
            "exit_code": null,
            "duration_ms": 1.5,
            "truncated": {"output": false, "output_bytes_total": 4, "displays": false},
            "blocked": [],
            "artifacts": [{"path": "out.csv", "size": 4, "mime": "text/csv", "content_base64": "YSxiCg=="}],
            "files": [{"path": "out.csv", "size": 4}],
            "restored": null
        }
    }}))
    .expect("the runner's shape parses");
    let WorkerMessage::Done { id, result } = message else {
        panic!("parsed as the wrong variant: {message:?}");
    };
    assert_eq!(id, 3);
    assert_eq!(result.status, RunStatus::Error);
    assert_eq!(
        result.output[1],
        OutputChunk {
            stream: StreamName::Stderr,
            text: "b\n".into()
        }
    );
    assert_eq!(
        result.error.map(|e| (e.kind, e.line)),
        Some(("ZeroDivisionError".into(), Some(2)))
    );
}

#[test]
fn a_kept_result_holds_its_output_once_as_the_pieces_of_output() {
    let chunk = |stream, text: &str| OutputChunk {
        stream,
        text: text.into(),
    };
    let mut chunks = Vec::new();
    for piece in [
        chunk(StreamName::Stdout, "a"),
        chunk(StreamName::Stdout, "b\n"),
        chunk(StreamName::Stderr, "oops\n"),
        chunk(StreamName::Stdout, "é\n\n"),
    ] {
        piece.append_to(&mut chunks);
    }
    assert_eq!(chunks.len(), 3, "writes to one stream in a row are joined");
    let mut result: RunResult = serde_json::from_value(json!({
        "status": "ok", "stdout": "stale", "stderr": "", "output": chunks, "value": null,
        "displays": [], "error": null, "exit_code": null, "duration_ms": 1.0,
        "truncated": {"output": false, "output_bytes_total": 10, "displays": false},
        "blocked": [], "artifacts": [], "files": [], "restored": null
    }))
    .expect("a RunResult");
    result.share_output();
    assert_eq!(result.stdout, "ab\né\n\n");
    assert_eq!(result.stderr, "oops\n");
    assert_eq!(result.stdout.trim_end_newlines(), "ab\né");
    assert_eq!(result.stdout.utf8_len(), 7, "bytes, as the limits count");
}

#[test]
fn unknown_fields_and_types_are_rejected_not_ignored() {
    let ready = json!({"ready": {
        "python": "3.14.2", "pyodide": "314.0.7", "snapshot": "used"
    }});
    serde_json::from_value::<WorkerMessage>(ready.clone()).expect("a well-formed `ready`");
    let mut extra = ready;
    extra["ready"]["extra"] = json!(1);
    let extra = serde_json::from_value::<WorkerMessage>(extra);
    assert!(
        extra.is_err(),
        "a field the protocol does not define must not pass silently"
    );
    let unknown = serde_json::from_value::<WorkerMessage>(json!({"hello": {}}));
    assert!(unknown.is_err());
}

#[test]
fn the_committed_schema_matches_the_rust_types() {
    let generated = serde_json::to_string_pretty(&schema()).expect("serialisable") + "\n";
    if std::env::var_os("SANDPIT_BLESS").is_some() {
        std::fs::write(SCHEMA_FILE, &generated).expect("schema file is writable");
    }
    let committed = std::fs::read_to_string(SCHEMA_FILE).unwrap_or_default();
    assert!(
        committed == generated,
        "{SCHEMA_FILE} is out of date with src/protocol/; regenerate it with `make schema`"
    );
}

#[test]
fn the_output_a_run_did_not_stream_is_what_follows_its_streamed_chunks() {
    let chunk = |stream, text: &str| OutputChunk {
        stream,
        text: text.into(),
    };
    let output = [
        chunk(StreamName::Stdout, "a\nbé\n"),
        chunk(StreamName::Stderr, "oops\n"),
        chunk(StreamName::Stdout, "c"),
    ];
    // Nothing streamed: all of it.
    assert_eq!(OutputChunk::unstreamed(&output, &[]), output.to_vec());
    // Streamed up to the middle of a chunk, in two pieces: the rest of that chunk, then the others.
    let streamed = [
        chunk(StreamName::Stdout, "a\n"),
        chunk(StreamName::Stdout, "b"),
    ];
    assert_eq!(
        OutputChunk::unstreamed(&output, &streamed),
        vec![
            chunk(StreamName::Stdout, "é\n"),
            chunk(StreamName::Stderr, "oops\n"),
            chunk(StreamName::Stdout, "c"),
        ]
    );
    // Streamed to the end of a chunk: the chunks after it, whole.
    let streamed = [
        chunk(StreamName::Stdout, "a\nbé\n"),
        chunk(StreamName::Stderr, "oops\n"),
    ];
    assert_eq!(
        OutputChunk::unstreamed(&output, &streamed),
        vec![chunk(StreamName::Stdout, "c")]
    );
    // All of it streamed: nothing.
    assert_eq!(OutputChunk::unstreamed(&output, &output), Vec::new());
}

#[test]
fn a_status_is_named_as_on_the_wire() {
    for status in [
        RunStatus::Ok,
        RunStatus::Error,
        RunStatus::Timeout,
        RunStatus::Crashed,
        RunStatus::Cancelled,
    ] {
        assert_eq!(json!(status), json!(status.wire_name()));
    }
}

/// The name serde writes for a variant: the string of a unit variant, the
/// one key of a variant with data.
fn serde_name(value: impl serde::Serialize) -> String {
    match serde_json::to_value(value).expect("serialisable") {
        Value::String(name) => name,
        Value::Object(fields) if fields.len() == 1 => fields.keys().next().expect("one").clone(),
        other => panic!("not a variant: {other}"),
    }
}

#[test]
fn every_variant_is_named_as_serde_writes_it() {
    let snapshots = [
        SnapshotUse::Used,
        SnapshotUse::Absent,
        SnapshotUse::Rejected { reason: "r".into() },
    ];
    for snapshot in snapshots {
        assert_eq!(snapshot.wire_name(), serde_name(&snapshot));
    }
    let answers = [
        Answer::File {
            content_base64: "aGk=".into(),
        },
        Answer::Check {
            report: Box::new(CheckReport {
                syntax_error: None,
                imports: Vec::new(),
                warnings: Vec::new(),
            }),
        },
        Answer::Complete {
            completions: Completions {
                token: String::new(),
                options: Vec::new(),
            },
        },
    ];
    for answer in answers {
        assert_eq!(answer.wire_name(), serde_name(&answer));
    }
    let phases = [
        SessionPhase::Parked,
        SessionPhase::Waiting,
        SessionPhase::Starting,
        SessionPhase::Restoring,
        SessionPhase::Running,
        SessionPhase::Idle,
    ];
    for phase in phases {
        assert_eq!(phase.wire_name(), serde_name(phase));
    }
    assert_eq!(SessionPhase::Restoring.wire_name(), "restoring");
    assert_eq!(
        SnapshotUse::Rejected {
            reason: String::new()
        }
        .wire_name(),
        "rejected"
    );
}
