//! Sandpit as an MCP server: JSON-RPC 2.0 messages in, replies and
//! notifications out, with no transport of its own.
//!
//! [`server`] decides what each message asks for ([`reply`]: what the
//! caller is to do about it; [`jsonrpc`] wraps its answers; [`resources`]
//! lists files and answers their reads and the sessions'), [`content`]
//! turns tool outcomes into MCP results (their text from [`summary`]),
//! [`bridge`] keeps calls within a bridge's time limit, [`functions`] reads
//! the functions a client offers to the code.
//! They are plain functions of JSON, so they are tested natively; the page
//! wires them to postMessage (the embeddable widget) and to the runtime.

pub mod bridge;
pub mod content;
pub mod functions;
pub mod jsonrpc;
pub mod reply;
pub mod resources;
mod results;
pub mod server;
pub mod summary;

pub use content::{file_uri, ToolOutcome};
pub use reply::Reply;
pub use server::Server;
