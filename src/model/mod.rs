//! Asking a model: it writes Python, Sandpit runs and checks it through the
//! same tools every MCP client gets, and the model repairs it from what
//! comes back. Everything here is plain data and decisions, tested natively;
//! the page's driver (`crate::surfaces::ask`) does the I/O.
//!
//! - [`settings`]: provider, endpoint, model, step limit, presets, the key's endpoint
//! - [`conversation`]: what was asked, answered, called and found
//! - [`request`]: the HTTP request for the next answer, per provider
//! - [`sse`], [`stream`]: the streamed answer, event by event
//! - [`agent`]: the loop's decisions
//! - [`failure`]: what to do when the endpoint fails
//! - [`diff`]: what a repair changed
//! - [`notebook`]: the conversation as a notebook and a Python file

pub mod agent;
pub mod conversation;
pub mod diff;
pub mod failure;
pub mod notebook;
pub mod request;
pub mod settings;
pub mod sse;
pub mod stream;
