//! Reading the worker's messages, tag first ([`Tagged`]).
//!
//! serde's derive would first copy each message into a buffer of its own: a
//! run's output would pass through wasm memory, its JS strings could not be
//! kept as they are ([`crate::js::bulk`]), and every type in a message would be
//! compiled twice. The derived `Deserialize` of these enums still defines
//! them natively (tests, schema); the browser tests check every message
//! really exchanged against that schema, so this reading is checked too.

use serde_wasm_bindgen::Error;
use wasm_bindgen::JsValue;

use crate::js::tagged::Tagged;
use crate::protocol::{Answer, LoadProgress, SnapshotUse, WorkerMessage};

/// Reads a message from the worker.
pub(super) fn decode(data: JsValue) -> Result<WorkerMessage, Error> {
    let message = Tagged::new(data, "type")?;
    let id = || message.field("id");
    let decoded = match message.tag.as_str() {
        "progress" => WorkerMessage::Progress(LoadProgress {
            stage: message.field("stage")?,
            loaded: message.field("loaded")?,
            total: message.field("total")?,
        }),
        "ready" => WorkerMessage::Ready {
            python: message.field("python")?,
            pyodide: message.field("pyodide")?,
            snapshot: snapshot_use(message.field_value("snapshot")?)?,
        },
        "snapshot_stored" => WorkerMessage::SnapshotStored {
            bytes: message.field("bytes")?,
        },
        "fatal" => WorkerMessage::Fatal {
            message: message.field("message")?,
        },
        "package_progress" => WorkerMessage::PackageProgress {
            id: id()?,
            packages: message.field("packages")?,
            loaded: message.field("loaded")?,
            total: message.field("total")?,
        },
        "loading_packages" => WorkerMessage::LoadingPackages { id: id()? },
        "started" => WorkerMessage::Started { id: id()? },
        "stream" => WorkerMessage::Stream {
            id: id()?,
            chunk: message.field("chunk")?,
        },
        "run_failed" => WorkerMessage::RunFailed {
            id: id()?,
            message: message.field("message")?,
        },
        "answer" => WorkerMessage::Answer {
            id: id()?,
            answer: answer(message.field_value("answer")?)?,
            error: message.field("error")?,
        },
        "session_cleared" => WorkerMessage::SessionCleared { id: id()? },
        "done" => WorkerMessage::Done {
            id: id()?,
            result: message.field("result")?,
        },
        _ => return Err(message.unknown_tag()),
    };
    message.finish()?;
    Ok(decoded)
}

fn snapshot_use(data: JsValue) -> Result<SnapshotUse, Error> {
    let snapshot = Tagged::new(data, "status")?;
    let decoded = match snapshot.tag.as_str() {
        "used" => SnapshotUse::Used,
        "absent" => SnapshotUse::Absent,
        "rejected" => SnapshotUse::Rejected {
            reason: snapshot.field("reason")?,
        },
        _ => return Err(snapshot.unknown_tag()),
    };
    snapshot.finish()?;
    Ok(decoded)
}

fn answer(data: JsValue) -> Result<Option<Answer>, Error> {
    if data.is_null() || data.is_undefined() {
        return Ok(None);
    }
    let answer = Tagged::new(data, "kind")?;
    let decoded = match answer.tag.as_str() {
        "file" => Answer::File {
            content_base64: answer.field("content_base64")?,
        },
        "check" => Answer::Check {
            report: answer.field("report")?,
        },
        _ => return Err(answer.unknown_tag()),
    };
    answer.finish()?;
    Ok(Some(decoded))
}
