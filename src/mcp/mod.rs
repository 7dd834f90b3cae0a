//! Sandpit as an MCP server: JSON-RPC 2.0 messages in, replies and
//! notifications out, with no transport of its own.
//!
//! [`server`] decides what each message asks for ([`jsonrpc`] wraps its
//! answers), [`content`] turns tool outcomes into MCP results (their text
//! from [`summary`]), [`bridge`] keeps calls within a bridge's time
//! limit, [`functions`] reads the functions a client offers to the code.
//! They are plain functions of JSON, so they are tested natively; the page
//! wires them to postMessage (the embeddable widget) and to the runtime.

pub mod bridge;
pub mod content;
pub mod functions;
pub mod jsonrpc;
mod results;
pub mod server;
pub mod summary;

pub use content::{file_uri, ToolOutcome};
pub use server::{Reply, Server};
