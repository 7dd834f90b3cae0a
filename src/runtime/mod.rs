//! The Python runtime as the app sees it: a worker client with its
//! scheduler, timers and recovery.

mod client;
mod message;
pub mod outcome;
pub mod scheduler;
mod timer;
mod worker;

pub use client::{RunEvent, Runtime, RuntimeError, RuntimeStatus};
