//! MCP resources: the files each session's last run left (listed, and read
//! through the caller, which asks Python for their bytes) and the sessions'
//! states; which one a `resources/read` asks for, and the responses.

use litemap::LiteMap;

use super::content::{self, parse_file_uri, Resource};
use super::jsonrpc::{error, response, string};
use super::reply::Reply;
use super::results;
use crate::format::quoted;
use crate::js::bulk::{pretty_json, Json, Text};
use crate::names::{FILE_URI_TEMPLATE, SESSIONS_URI};
use crate::protocol::FileEntry;
use crate::runtime::supervisor::SessionState;

/// MCP's code for a resource that does not exist.
const RESOURCE_NOT_FOUND: i64 = -32002;

/// `resources/list`: every file of every session, as `files` remembers them.
pub(super) fn list(files: &LiteMap<String, Vec<FileEntry>>) -> Vec<results::FileResource<'_>> {
    files
        .iter()
        .flat_map(|(session, files)| {
            files.iter().map(move |file| results::FileResource {
                uri: content::file_uri(session, &file.path),
                name: &file.path,
                title: format!("{} (session {session})", file.path),
                size: file.size,
            })
        })
        .collect()
}

/// `resources/read`: which resource request `id` asks for, or why there is none.
pub(super) fn read(id: Json, params: &Json) -> Reply {
    let uri = string(params, "uri").unwrap_or_default();
    if uri == SESSIONS_URI {
        return Reply::ReadSessions { id };
    }
    match parse_file_uri(&uri) {
        Some((session, path)) => Reply::ReadFile {
            id,
            uri,
            session,
            path,
        },
        None => {
            let message = format!(
                "{} is not a Sandpit file URI ({FILE_URI_TEMPLATE})",
                quoted(&uri)
            );
            Reply::Send(error(Some(&id), RESOURCE_NOT_FOUND, &message))
        }
    }
}

/// The response to `resources/read` request `id`: the file's bytes, or why not.
pub fn file_response(id: &Json, uri: &str, path: &str, read: Result<String, String>) -> Json {
    match read {
        Ok(content_base64) => {
            let mime = mime_of(path);
            let text = content::is_text(mime)
                .then(|| content::decode_utf8(&content_base64))
                .flatten();
            let blob = text.is_none().then(|| Text::from(content_base64));
            let contents = Resource {
                uri: uri.to_owned(),
                mime_type: mime,
                text: text.map(Text::from),
                blob,
            };
            response(
                id,
                Json::of(&results::Contents {
                    contents: [contents],
                }),
            )
        }
        Err(why) => error(Some(id), RESOURCE_NOT_FOUND, &format!("{uri}: {why}")),
    }
}

/// The response to `resources/read` request `id` of [`SESSIONS_URI`]:
/// `states` as JSON text.
pub fn sessions_response(id: &Json, states: &[SessionState]) -> Json {
    let contents = Resource {
        uri: SESSIONS_URI.to_owned(),
        mime_type: "application/json",
        text: Some(pretty_json(&states)),
        blob: None,
    };
    response(
        id,
        Json::of(&results::Contents {
            contents: [contents],
        }),
    )
}

/// The MIME type of a file name, for the few kinds a model reads.
fn mime_of(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("txt" | "log" | "py" | "md") => "text/plain",
        Some("csv") => "text/csv",
        Some("json") => "application/json",
        Some("html" | "htm") => "text/html",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("pdf") => "application/pdf",
        _ => "application/octet-stream",
    }
}
