//! Sandpit: a Python sandbox that runs in the browser.
//!
//! The host page (this crate, compiled to wasm32) talks to Pyodide in a module
//! worker. [`protocol`] is the single definition of what crosses that boundary,
//! [`runtime`] owns the worker, and [`ui`] wires it to the page.
#![deny(clippy::unwrap_used)]

pub mod format;
pub mod protocol;
pub mod runtime;
pub mod ui;
