//! Sandpit: a Python sandbox that runs in the browser.
//!
//! The host page (this crate, compiled to wasm32) talks to Pyodide in a module
//! worker. [`protocol`] is the single definition of what crosses that boundary,
//! [`runtime`] owns the worker, and [`ui`] wires it to the page. [`store`]
//! keeps the user's work across reloads ([`store::kept_files`] decides which
//! of each session's files) and [`pwa`] is the page's side of the service
//! worker (offline, updates, install).
#![deny(clippy::unwrap_used)]
// `{:?}` prints nothing in the release build (`-Zfmt-debug=none`):
// messages quote with `format::quoted` and show JS values with `js_error`.
#![deny(clippy::use_debug)]

pub mod app;
pub mod editing;
pub mod format;
pub mod js;
pub mod mcp;
pub mod model;
pub mod names;
pub mod protocol;
pub mod pwa;
pub mod runtime;
pub mod store;
pub mod surfaces;
pub mod tools;
pub mod ui;
