//! A session's scheduler: nothing is dropped while Python loads, one job at
//! a time, and a restart (or a park) replays every successful run before
//! anything else.

use sandpit::protocol::{HostMessage, InputFile, LostRun, Restoration, RunId, RunRequest};
use sandpit::runtime::scheduler::{Completion, Dispatch, Ids, Job, Scheduler};

mod queue;
mod replay;

fn run(code: &str) -> Job {
    Job::Run(RunRequest::new(code))
}

/// A session's scheduler with the ids its jobs get, driven as the supervisor does.
struct Session {
    scheduler: Scheduler,
    ids: Ids,
}

impl Session {
    fn new() -> Self {
        Self {
            scheduler: Scheduler::new("main"),
            ids: Ids::default(),
        }
    }

    /// Queues `job`; returns its id and what goes to the worker now.
    fn submit(&mut self, job: Job) -> (RunId, Option<Dispatch>) {
        let id = self.ids.new_id();
        self.scheduler.submit(id, job);
        (id, self.scheduler.dispatch())
    }

    fn set_ready(&mut self) -> Option<Dispatch> {
        self.scheduler.set_ready();
        self.scheduler.dispatch()
    }

    fn complete(
        &mut self,
        id: RunId,
        succeeded: bool,
        reason: &str,
    ) -> (Vec<Completion>, Option<Dispatch>) {
        let done = self.scheduler.complete(id, succeeded, reason, 0.0);
        (done, self.scheduler.dispatch())
    }

    fn restart(&mut self, reason: &str) -> Vec<Completion> {
        self.scheduler.restart(reason, &mut self.ids)
    }

    fn cancel_waiting(&mut self, id: RunId) -> bool {
        self.scheduler.cancel_waiting(id)
    }

    fn in_flight(&self) -> Option<RunId> {
        self.scheduler.in_flight()
    }

    fn waiting(&self) -> usize {
        self.scheduler.waiting()
    }
}

fn posted(dispatch: Option<Dispatch>) -> Option<(RunId, String)> {
    match dispatch {
        Some(Dispatch::Post(HostMessage::Run { id, request })) => Some((id, request.code)),
        Some(Dispatch::Reset { id, .. }) => Some((id, "reset".into())),
        _ => None,
    }
}

/// Runs `code` to success on a ready scheduler; returns its id.
fn succeed(scheduler: &mut Session, code: &str) -> RunId {
    let (id, next) = scheduler.submit(run(code));
    assert_eq!(
        posted(next).map(|(i, _)| i),
        Some(id),
        "an idle worker takes the job"
    );
    let (done, _) = scheduler.complete(id, true, "");
    assert_eq!(done, vec![Completion::Finished(id)]);
    id
}

fn fresh(code: &str) -> Job {
    Job::Run(RunRequest {
        fresh: true,
        ..RunRequest::new(code)
    })
}
