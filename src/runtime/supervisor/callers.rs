//! Who waits for each job, and what they hear: a run's caller is told as
//! it starts and writes output, and every caller gets one answer, its
//! result, a stopped run's outcome or why the job will never run.

use litemap::LiteMap;

use crate::protocol::{Answer, OutputChunk, Restoration, RunId, RunResult, RunStatus};
use crate::runtime::events::{Effect, Reply, RunEvent, RuntimeError};
use crate::runtime::outcome::{self, StopReason};
use crate::runtime::scheduler::Completion;

/// Who waits for a job, and what is known of it so far.
#[derive(Debug)]
pub(super) enum Caller {
    /// A run's caller.
    Run(PendingRun),
    /// A caller told only that its job is done (a clear).
    Done,
    /// A query's caller.
    Query,
}

/// A caller's run, until its result.
#[derive(Debug, Default)]
pub(super) struct PendingRun {
    /// Output streamed so far: the result of a run whose worker dies.
    streamed: Vec<OutputChunk>,
    started_ms: Option<f64>,
    /// Set when the host stopped it; decides the status it ends with.
    stop: Option<StopReason>,
}

/// The callers of the jobs not answered yet, by job.
#[derive(Debug, Default)]
pub(super) struct Callers(LiteMap<RunId, Caller>);

impl Callers {
    /// `caller` waits for job `id`.
    pub(super) fn add(&mut self, id: RunId, caller: Caller) {
        self.0.insert(id, caller);
    }

    /// Tells run `id`'s caller about `event`, if it is a run's.
    pub(super) fn notify(&self, id: RunId, event: RunEvent, effects: &mut Vec<Effect>) {
        if let Some(Caller::Run(_)) = self.0.get(&id) {
            effects.push(Effect::Notify(id, event));
        }
    }

    /// Run `id` wrote `chunk`: kept for its result should its worker die, and told.
    pub(super) fn wrote(&mut self, id: RunId, chunk: OutputChunk, effects: &mut Vec<Effect>) {
        if let Some(Caller::Run(run)) = self.0.get_mut(&id) {
            run.streamed.push(chunk.clone());
        }
        self.notify(id, RunEvent::Output(chunk), effects);
    }

    /// Run `id` is in Python's hands from `now_ms`; whether a run's caller waits for it.
    pub(super) fn start(&mut self, id: RunId, now_ms: f64) -> bool {
        match self.0.get_mut(&id) {
            Some(Caller::Run(run)) => {
                run.started_ms = Some(now_ms);
                true
            }
            _ => false,
        }
    }

    /// The host stops run `id` for `reason`.
    pub(super) fn stopping(&mut self, id: RunId, reason: StopReason) {
        if let Some(Caller::Run(run)) = self.0.get_mut(&id) {
            run.stop = Some(reason);
        }
    }

    /// Whether a run's caller waits for run `id`.
    pub(super) fn waits(&self, id: RunId) -> bool {
        matches!(self.0.get(&id), Some(Caller::Run(_)))
    }

    /// Run `id`'s worker ends: unless the host stopped it already, `reason` is why it stopped.
    pub(super) fn ended(&mut self, id: RunId, reason: StopReason) {
        if let Some(Caller::Run(run)) = self.0.get_mut(&id) {
            run.stop.get_or_insert(reason);
        }
    }

    /// Run `id` was cancelled before it began: its caller hears so now.
    pub(super) fn cancelled(&mut self, id: RunId, effects: &mut Vec<Effect>) {
        if let Some(Caller::Run(_)) = self.0.get(&id) {
            self.0.remove(&id);
            let result = outcome::stopped(&StopReason::Cancelled, &[], 0.0, None);
            effects.push(Effect::Resolve(id, Reply::Run(Ok(Box::new(result)))));
        }
    }

    /// Job `id` is done (a clear): its caller hears so.
    pub(super) fn done(&mut self, id: RunId, effects: &mut Vec<Effect>) {
        self.0.remove(&id);
        effects.push(Effect::Resolve(id, Reply::Done(Ok(()))));
    }

    /// Query `id` was answered with `answer`, or `error` says why not.
    pub(super) fn answered(
        &mut self,
        id: RunId,
        answer: Option<Answer>,
        error: Option<String>,
        effects: &mut Vec<Effect>,
    ) {
        if let Some(Caller::Query) = self.0.get(&id) {
            self.0.remove(&id);
            let answer = answer.ok_or_else(|| {
                RuntimeError::Rejected(error.unwrap_or_else(|| "Python gave no answer".into()))
            });
            effects.push(Effect::Resolve(id, Reply::Query(answer)));
        }
    }

    /// Run `id` finished with `result`: its caller hears the output it was
    /// not told yet, then the result; `note` is how its session was
    /// restored before it, if it was.
    pub(super) fn finished(
        &mut self,
        id: RunId,
        result: RunResult,
        note: impl FnOnce() -> Option<Restoration>,
        effects: &mut Vec<Effect>,
    ) {
        let Some(Caller::Run(run)) = self.0.remove(&id) else {
            return;
        };
        // The runner streams nothing at the end: what it had not sent yet is
        // only in the result, and whoever follows the run hears it from here.
        for chunk in OutputChunk::unstreamed(&result.output, &run.streamed) {
            effects.push(Effect::Notify(id, RunEvent::Output(chunk)));
        }
        let mut result = match (&run.stop, result.status) {
            (Some(reason), RunStatus::Cancelled) => outcome::interrupted(result, reason),
            _ => outcome::with_memory_hint(outcome::with_network_hint(result)),
        };
        // The worker sent stdout and stderr empty: they are `output`, joined.
        result.share_output();
        if result.restored.is_none() {
            result.restored = note();
        }
        effects.push(Effect::Resolve(id, Reply::Run(Ok(Box::new(result)))));
    }

    /// Hands finished jobs their results (at `now_ms`).
    pub(super) fn resolve(
        &mut self,
        completions: Vec<Completion>,
        now_ms: f64,
        effects: &mut Vec<Effect>,
    ) {
        for completion in completions {
            match completion {
                // A run's own result comes with `done`, a query's with `answer`.
                Completion::Finished(id) => {
                    if let Some(Caller::Done) = self.0.get(&id) {
                        self.0.remove(&id);
                        effects.push(Effect::Resolve(id, Reply::Done(Ok(()))));
                    }
                }
                Completion::Restored(id, restoration) => {
                    let reply = match self.0.remove(&id) {
                        Some(Caller::Done) => Reply::Done(Ok(())),
                        Some(Caller::Query) => {
                            let message = "the sandbox restarted before it could answer";
                            Reply::Query(Err(RuntimeError::Rejected(message.to_owned())))
                        }
                        Some(Caller::Run(run)) => {
                            let reason = run.stop.unwrap_or(StopReason::Crashed("unknown".into()));
                            let elapsed = run.started_ms.map(|t| now_ms - t).unwrap_or(0.0);
                            let result = outcome::stopped(
                                &reason,
                                &run.streamed,
                                elapsed,
                                Some(restoration),
                            );
                            Reply::Run(Ok(Box::new(result)))
                        }
                        None => continue,
                    };
                    effects.push(Effect::Resolve(id, reply));
                }
            }
        }
    }

    /// Jobs `ids` will never run: their callers hear `message`.
    pub(super) fn fail(&mut self, ids: Vec<RunId>, message: &str, effects: &mut Vec<Effect>) {
        for id in ids {
            let error = RuntimeError::Unavailable(message.to_owned());
            let reply = match self.0.remove(&id) {
                Some(Caller::Run(_)) => Reply::Run(Err(error)),
                Some(Caller::Done) => Reply::Done(Err(error)),
                Some(Caller::Query) => Reply::Query(Err(error)),
                None => continue,
            };
            effects.push(Effect::Resolve(id, reply));
        }
    }
}
