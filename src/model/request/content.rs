//! What both APIs' requests carry: the instructions, and each tool's
//! result as a model reads it (its text, its structured result, its
//! figures) and each tool's descriptor.

use crate::js::bulk::{Json, Text};
use crate::model::conversation::ToolUse;
use crate::protocol::RunResult;
use crate::tools::Tool;

/// What the model is told before the conversation: what Sandpit is and how
/// the loop goes.
pub const INSTRUCTIONS: &str = "You work inside Sandpit, a sandbox that runs Python 3 \
(Pyodide) in the user's browser. Solve the user's task by writing Python and running it \
with the run_python tool. Always send `tests` with the code: top-level asserts or \
`def test_*` functions that check the result. When the run fails or a test fails, read the \
error (its type, line and hint) or the compared values, then call run_python again with \
repaired code and the same tests. Once the code runs and its tests pass, reply with a short \
final answer and call no tool. Variables and files persist between runs; the user may also \
edit and run the code themselves in between.";

/// A tool's result as a model reads it: its text blocks and embedded text
/// files, then its structured result as JSON.
pub(super) fn reply_text(call: &ToolUse) -> Text {
    let Some(reply) = &call.reply else {
        return Text::from("Not run.");
    };
    let mut text = Text::default();
    let mut add = |part: Text| {
        text = if text.is_empty() {
            part
        } else {
            text.concat(&Text::from("\n\n")).concat(&part)
        };
    };
    for block in reply.get("content").map(|c| c.items()).unwrap_or_default() {
        match block.get("type").and_then(|t| t.as_string()).as_deref() {
            Some("text") => add(block
                .get("text")
                .and_then(|t| t.as_text())
                .unwrap_or_default()),
            Some("resource") => {
                let resource = block.get("resource");
                let file = resource.as_ref().and_then(|r| r.get("text")?.as_text());
                let uri = resource.as_ref().and_then(|r| r.get("uri")?.as_string());
                if let (Some(file), Some(uri)) = (file, uri) {
                    add(Text::from(format!("--- file {uri} ---\n")).concat(&file));
                }
            }
            _ => {}
        }
    }
    if let Some(structured) = structured_for_model(call) {
        add(Text::from("structuredContent: ").concat(&structured.compact()));
    }
    text
}

/// The structured result without what would only repeat as bytes: a run's
/// images (sent as images) and its files' contents (listed in the text).
fn structured_for_model(call: &ToolUse) -> Option<Json> {
    let structured = call.reply.as_ref()?.get("structuredContent")?;
    if call.name != Tool::RunPython.name() {
        return Some(structured);
    }
    let Ok(mut result) = structured.read_record::<RunResult>() else {
        return Some(structured);
    };
    for display in &mut result.displays {
        display.png = None;
        display.svg = None;
    }
    for artifact in &mut result.artifacts {
        artifact.content_base64 = None;
    }
    Some(Json::of(&result))
}

/// The PNG images of a result, base64 (SVG is not an image either API takes).
pub(super) fn images(call: &ToolUse) -> Vec<Text> {
    let blocks = call
        .reply
        .as_ref()
        .and_then(|reply| reply.get("content"))
        .map(|c| c.items())
        .unwrap_or_default();
    blocks
        .into_iter()
        .filter(|block| {
            block.get("type").and_then(|t| t.as_string()).as_deref() == Some("image")
                && block.get("mimeType").and_then(|t| t.as_string()).as_deref() == Some("image/png")
        })
        .filter_map(|block| block.get("data")?.as_text())
        .collect()
}

/// Field `name` of a tool's descriptor (an empty object when it has none).
pub(super) fn field(tool: &Json, name: &str) -> Json {
    tool.get(name).unwrap_or_else(Json::empty_object)
}
