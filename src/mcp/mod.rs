//! Sandpit as an MCP server: JSON-RPC 2.0 messages in, replies and
//! notifications out, with no transport of its own.
//!
//! [`server`] decides what each message asks for, [`content`] turns tool
//! outcomes into MCP results, [`bridge`] keeps calls within a bridge's time
//! limit. They are plain functions of JSON, so they are
//! tested natively; the page wires them to postMessage (the embeddable
//! widget) and to the runtime.

pub mod bridge;
pub mod content;
mod results;
pub mod server;

pub use content::{file_uri, ToolOutcome};
pub use server::{Reply, Server};
