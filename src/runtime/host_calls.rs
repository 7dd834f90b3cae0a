//! What bounds a run's calls to the embedding page's functions (pure):
//! which may go to the run's caller, how many, how large, and which are
//! still waiting for an answer. The worker only carries calls; everything
//! that limits them is decided here, on the page's side.

use litemap::LiteMap;

use super::events::WorkerId;
use crate::format::quoted;
use crate::protocol::{HostCallError, HostCallFailure, HostFunction, RunId};

/// Calls one run may make, unless its caller says otherwise.
pub const CALLS_PER_RUN: u32 = 1_000;

/// The largest arguments or value of one call, in characters of JSON.
pub const MAX_JSON_CHARS: usize = 1 << 20;

/// One run's calls so far.
#[derive(Debug)]
struct RunCalls {
    /// The worker the run is in, which hears the answers.
    worker: WorkerId,
    /// Calls let through to the caller.
    made: u32,
    /// Of those, the ones not answered yet.
    pending: Vec<u32>,
    /// The run is being stopped: no more calls go out.
    stopping: bool,
}

/// The calls of the runs in progress, by run.
#[derive(Debug, Default)]
pub struct HostCalls(LiteMap<RunId, RunCalls>);

impl HostCalls {
    /// Whether call `call` of run `id` (in `worker`) to `name`, with
    /// arguments `arguments_chars` long, goes to the run's caller; why not
    /// otherwise. `functions` are the ones the run's request lists.
    pub fn admit(
        &mut self,
        id: RunId,
        worker: WorkerId,
        call: u32,
        name: &str,
        functions: &[HostFunction],
        arguments_chars: usize,
    ) -> Result<(), HostCallError> {
        if functions.is_empty() {
            let why = "no host functions are offered to this run: the page that \
                       started it registered none, or does not allow its session";
            return Err(HostCallError::new(HostCallFailure::Refused, why));
        }
        if !functions.iter().any(|function| function.name == name) {
            let names: Vec<String> = functions.iter().map(|f| quoted(&f.name)).collect();
            let why = format!(
                "no host function is called {}: the page offers {}",
                quoted(name),
                names.join(", ")
            );
            return Err(HostCallError::new(HostCallFailure::Refused, why));
        }
        let run = self.0.entry(id).or_insert_with(|| RunCalls {
            worker,
            made: 0,
            pending: Vec::new(),
            stopping: false,
        });
        if run.stopping {
            let why = "the run is being stopped";
            return Err(HostCallError::new(HostCallFailure::Cancelled, why));
        }
        if run.made >= CALLS_PER_RUN {
            let why =
                format!("this run has made {CALLS_PER_RUN} host calls, the most one run may make");
            return Err(HostCallError::new(HostCallFailure::Limit, why));
        }
        too_large("arguments", arguments_chars)?;
        run.made += 1;
        run.pending.push(call);
        Ok(())
    }

    /// Call `call` of run `id` was answered: the worker to tell, when the
    /// call was still waiting (a late answer, after a stop, goes nowhere).
    pub fn answered(&mut self, id: RunId, call: u32) -> Option<WorkerId> {
        let run = self.0.get_mut(&id)?;
        let at = run.pending.iter().position(|&pending| pending == call)?;
        run.pending.swap_remove(at);
        Some(run.worker)
    }

    /// Run `id` is being stopped: its waiting calls, which the worker and
    /// the caller are told are cancelled; later calls are refused.
    pub fn stop(&mut self, id: RunId) -> Option<(WorkerId, Vec<u32>)> {
        let run = self.0.get_mut(&id)?;
        run.stopping = true;
        Some((run.worker, std::mem::take(&mut run.pending)))
    }

    /// Run `id` ended: its calls still waiting, which its caller need no
    /// longer answer.
    pub fn end(&mut self, id: RunId) -> Vec<u32> {
        self.0
            .remove(&id)
            .map(|run| run.pending)
            .unwrap_or_default()
    }
}

/// Refuses a call's arguments or value (`what`) of `chars` characters of
/// JSON, over [`MAX_JSON_CHARS`].
pub fn too_large(what: &str, chars: usize) -> Result<(), HostCallError> {
    if chars <= MAX_JSON_CHARS {
        return Ok(());
    }
    let why = format!(
        "the {what}: {chars} characters as JSON, over the limit of {MAX_JSON_CHARS} per host call"
    );
    Err(HostCallError::new(HostCallFailure::Limit, why))
}
