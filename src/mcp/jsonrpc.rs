//! JSON-RPC 2.0's envelopes: a response, an error response and a
//! notification, around whatever the server decided.

use serde::Serialize;

use crate::js::bulk::Json;

/// The JSON-RPC version every message names.
pub(super) const JSONRPC: &str = "2.0";

/// A successful JSON-RPC response with a result of any serialisable type.
#[derive(Serialize, Debug)]
pub struct Response<'a, T> {
    jsonrpc: &'static str,
    id: &'a Json,
    result: T,
}

/// A JSON-RPC error response; `id` is `null` when the request's is unknown.
#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    id: Option<&'a Json>,
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i64,
    message: &'a str,
}

/// A JSON-RPC notification with parameters of any serialisable type.
#[derive(Serialize, Debug)]
pub struct Notification<'a, T> {
    jsonrpc: &'static str,
    method: &'a str,
    params: T,
}

/// A successful JSON-RPC response, serialised where it is sent.
pub fn response_of<T>(id: &Json, result: T) -> Response<'_, T> {
    Response {
        jsonrpc: JSONRPC,
        id,
        result,
    }
}

/// A successful JSON-RPC response.
pub fn response(id: &Json, result: Json) -> Json {
    Json::of(&response_of(id, result))
}

/// A JSON-RPC error response.
pub fn error(id: Option<&Json>, code: i64, message: &str) -> Json {
    Json::of(&ErrorResponse {
        jsonrpc: JSONRPC,
        id,
        error: ErrorObject { code, message },
    })
}

/// A JSON-RPC request of ours to the client.
#[derive(Serialize, Debug)]
pub struct Request<'a, T> {
    jsonrpc: &'static str,
    id: u32,
    method: &'a str,
    params: T,
}

/// A JSON-RPC request of ours, `id` numbering our requests.
pub fn request_message<T: Serialize>(id: u32, method: &str, params: T) -> Request<'_, T> {
    Request {
        jsonrpc: JSONRPC,
        id,
        method,
        params,
    }
}

/// A JSON-RPC notification.
pub fn notification_message<T: Serialize>(method: &str, params: T) -> Notification<'_, T> {
    Notification {
        jsonrpc: JSONRPC,
        method,
        params,
    }
}

/// Field `name` of `message`, when it is a string.
pub(super) fn string(message: &Json, name: &str) -> Option<String> {
    message.get(name)?.as_string()
}
