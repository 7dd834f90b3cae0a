//! The ways in besides the page's own buttons, all calling the same tools:
//! the embeddable widget's MCP server over postMessage, WebMCP and the local
//! relay for agents.

pub mod agents;
pub mod ask;
pub mod host_functions;
pub mod mcp_session;
pub mod postmessage;
pub mod tool_host;
