//! The Python runtime as the app sees it: a worker client plus its run queue.

mod client;
pub mod queue;

pub use client::{RunEvent, Runtime, RuntimeError, RuntimeStatus};
