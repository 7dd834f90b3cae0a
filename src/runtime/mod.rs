//! The Python runtime as the app sees it: a worker client, and the
//! supervisor that decides for it with its scheduler.

mod client;
mod clock;
pub mod events;
mod gate;
pub mod host_calls;
mod message;
pub mod outcome;
pub mod pool;
pub mod scheduler;
pub mod supervisor;
mod worker;

pub use client::Runtime;
pub use clock::now_ms;
pub use supervisor::{RunEvent, RuntimeError, RuntimeStatus};
