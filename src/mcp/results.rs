//! The results of the requests the server answers by itself, as types
//! written straight to JS data in the browser (no `serde_json::Value` tree
//! in between). Field names are MCP's.

use serde::Serialize;

use super::content::Resource;
use crate::js::bulk::Json;
use crate::names::FILE_URI_TEMPLATE;

/// The result of `initialize`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Initialize {
    pub protocol_version: &'static str,
    pub capabilities: Capabilities,
    pub server_info: ServerInfo,
    pub instructions: &'static str,
}

/// What the server offers: tools, resources, logging.
#[derive(Serialize)]
pub struct Capabilities {
    pub tools: ListChanged,
    pub resources: ListChanged,
    pub logging: Json,
    /// `{"sandpit/pool": {"maxWorkers": n}}` when the pool's size is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Experimental>,
}

/// Sandpit's own capabilities.
#[derive(Serialize)]
pub struct Experimental {
    /// How many sessions run at once (see [`crate::names::POOL_CAPABILITY`]).
    #[serde(rename = "sandpit/pool")]
    pub pool: Pool,
}

/// The session workers' pool.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pool {
    /// Session workers alive at once: independent programs spread over more
    /// sessions than this wait for one another.
    pub max_workers: u32,
}

/// Whether the server tells clients when a list changes (it never does).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChanged {
    pub list_changed: bool,
}

/// Who the server is.
#[derive(Serialize)]
pub struct ServerInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub version: &'static str,
}

/// The result of `tools/list`: the tools' descriptors.
#[derive(Serialize)]
pub struct Tools {
    pub tools: Json,
}

/// The result of `resources/list`.
#[derive(Serialize)]
pub struct Resources<'a> {
    pub resources: Vec<FileResource<'a>>,
}

/// A file a session had after its last run, as `resources/list` lists it.
#[derive(Serialize)]
pub struct FileResource<'a> {
    pub uri: String,
    pub name: &'a str,
    pub title: String,
    pub size: u64,
}

/// The result of `resources/templates/list`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Templates {
    resource_templates: [Template; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Template {
    uri_template: &'static str,
    name: &'static str,
    title: &'static str,
}

/// The one template: a file in a session's working directory.
pub const TEMPLATES: Templates = Templates {
    resource_templates: [Template {
        uri_template: FILE_URI_TEMPLATE,
        name: "session-file",
        title: "A file in a Python session's working directory",
    }],
};

/// The result of `resources/read`: the one file read.
#[derive(Serialize)]
pub struct Contents<'a> {
    pub contents: [Resource<'a>; 1],
}
