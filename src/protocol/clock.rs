//! The messages between the page and the clock worker
//! (`pyodide-loader/clock.mjs`), which keeps the runtime's timers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::js::reader::FromSource;

/// Messages from the page to the clock worker (`pyodide-loader/clock.mjs`),
/// which keeps the runtime's timers: a dedicated worker's timers run on time
/// in a hidden tab, where Chromium wakes the page's once a second, and
/// chains of them once a minute after five minutes hidden.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ClockCommand {
    /// Say `fired` with this id after `ms` milliseconds.
    Start {
        /// The timer; a new one for every start.
        id: u32,
        /// Milliseconds.
        ms: u32,
    },
    /// Forget timer `id`: it says nothing.
    Cancel {
        /// The timer.
        id: u32,
    },
}

/// Messages from the clock worker.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ClockMessage {
    /// Timer `id`'s time has come.
    Fired {
        /// The timer.
        id: u32,
    },
}
