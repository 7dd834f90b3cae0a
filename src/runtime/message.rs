//! Reading the worker's messages, tag first.
//!
//! serde reads an internally tagged enum (`{"type": "done", ...}`) by first
//! copying the whole object into a buffer of its own (`Content`), then
//! reading the variant from that buffer. For messages that carry output
//! that costs twice: the output passes through wasm memory, and its JS
//! strings could not be kept as they are ([`crate::bulk`]); and every type
//! that can sit in a message is compiled a second time, to be read from the
//! buffer, which made that copy about a tenth of the app's wasm (issue 6).
//! So here the tag is read first, then each field straight from the JS
//! object. The derived `Deserialize` of these enums still defines them
//! natively (tests, schema); the browser tests check that every message
//! really exchanged matches that schema, and so reads here.

use js_sys::{Object, Reflect};
use serde::de::{DeserializeOwned, Error as _};
use serde_wasm_bindgen::Error;
use wasm_bindgen::{JsCast, JsValue};

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
        other => return Err(message.unknown_tag(other)),
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
        other => return Err(snapshot.unknown_tag(other)),
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
        other => return Err(answer.unknown_tag(other)),
    };
    answer.finish()?;
    Ok(Some(decoded))
}

/// A JS object whose tag is read, and whose fields are read one by one.
struct Tagged {
    data: JsValue,
    tag_name: &'static str,
    tag: String,
    /// The fields read so far: any other is unknown, an error as with serde's
    /// `deny_unknown_fields` on the protocol's types.
    read: std::cell::RefCell<Vec<&'static str>>,
}

impl Tagged {
    fn new(data: JsValue, tag_name: &'static str) -> Result<Self, Error> {
        let tag = Reflect::get(&data, &tag_name.into())
            .ok()
            .and_then(|tag| tag.as_string())
            .ok_or_else(|| Error::missing_field(tag_name))?;
        Ok(Self {
            data,
            tag_name,
            tag,
            read: Default::default(),
        })
    }

    /// The field `name` as it is in JS (`undefined` when absent).
    fn field_value(&self, name: &'static str) -> Result<JsValue, Error> {
        self.read.borrow_mut().push(name);
        Reflect::get(&self.data, &name.into()).map_err(|_| Error::missing_field(name))
    }

    /// The field `name`, read as a `T` (an absent field reads as `None`).
    fn field<T: DeserializeOwned>(&self, name: &'static str) -> Result<T, Error> {
        serde_wasm_bindgen::from_value(self.field_value(name)?)
            .map_err(|error| Error::custom(format_args!("field `{name}`: {error}")))
    }

    fn unknown_tag(&self, tag: &str) -> Error {
        Error::custom(format_args!("unknown {} `{tag}`", self.tag_name))
    }

    /// Fails on a field that was not read: one the protocol does not define.
    fn finish(self) -> Result<(), Error> {
        let read = self.read.into_inner();
        for key in Object::keys(self.data.unchecked_ref::<Object>()).iter() {
            let key = key.as_string().unwrap_or_default();
            if key != self.tag_name && !read.contains(&key.as_str()) {
                return Err(Error::custom(format_args!("unknown field `{key}`")));
            }
        }
        Ok(())
    }
}
