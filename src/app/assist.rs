//! The editor's questions to Python, carried out on the runtime: lint
//! marks from a check of the code, and completions at the cursor. Each kind
//! goes one at a time, the newest waiting ([`OneAtATime`]), and never while
//! a run is queued or running: a lint asked meanwhile waits for the runs to
//! end, a completion is declined at once (the editor then offers Python's
//! builtins and keywords as it knows them).

use futures_channel::oneshot;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::SharedRuntime;
use crate::editing::chars_before;
use crate::editing::gate::{Offer, OneAtATime};
use crate::editing::marks::{self, Mark};
use crate::protocol::Completions;

/// A question waiting with whoever waits for its answer (`None`: dropped or failed).
type Pending<Q, A> = (Q, oneshot::Sender<Option<A>>);

/// A completion question: the session, the code, the cursor in characters.
type Completion = (String, String, u32);

/// The questions under way; copied into the editor's hooks.
#[derive(Clone, Copy)]
pub struct Assist {
    runtime: SharedRuntime,
    busy: Signal<bool>,
    lints: StoredValue<OneAtATime<Pending<String, Vec<Mark>>>, LocalStorage>,
    completions: StoredValue<OneAtATime<Pending<Completion, Completions>>, LocalStorage>,
}

impl Assist {
    /// Asks `runtime`, whenever `busy` (Python loading, or runs queued or running) is false.
    pub fn new(runtime: SharedRuntime, busy: Signal<bool>) -> Self {
        let this = Self {
            runtime,
            busy,
            lints: StoredValue::new_local(OneAtATime::default()),
            completions: StoredValue::new_local(OneAtATime::default()),
        };
        // A lint asked while runs went on is asked once they are over.
        Effect::new(move |_| {
            if !busy.get() {
                if let Some(next) = this.lints.try_update_value(OneAtATime::freed).flatten() {
                    this.check(next);
                }
            }
        });
        this
    }

    /// The marks for `code` from Python's check; `None` when the question
    /// was dropped for a newer one or failed.
    pub async fn lint(self, code: String) -> Option<Vec<Mark>> {
        let (done, answer) = oneshot::channel();
        let offered = self
            .lints
            .try_update_value(|gate| gate.offer((code, done), !self.busy.get_untracked()));
        match offered {
            Some(Offer::Send(question)) => self.check(question),
            // Dropping the displaced question's sender answers it with nothing.
            Some(Offer::Wait { dropped }) => drop(dropped),
            None => return None,
        }
        answer.await.ok().flatten()
    }

    /// The names that could be typed at `cursor` (UTF-16 code units into
    /// `code`, as the editor counts) in `session`; `None` when Python is
    /// busy, or the question was dropped for a newer one or failed.
    pub async fn complete(self, session: String, code: String, cursor: u32) -> Option<Completions> {
        if self.busy.get_untracked() {
            return None;
        }
        let cursor = chars_before(&code, cursor);
        let (done, answer) = oneshot::channel();
        let offered = self
            .completions
            .try_update_value(|gate| gate.offer(((session, code, cursor), done), true));
        match offered {
            Some(Offer::Send(question)) => self.ask_completion(question),
            Some(Offer::Wait { dropped }) => drop(dropped),
            None => return None,
        }
        answer.await.ok().flatten()
    }

    fn check(self, (code, done): Pending<String, Vec<Mark>>) {
        let report = self.runtime.with_value(|runtime| runtime.check(&code));
        spawn_local(async move {
            let found = report.await.ok().map(|report| marks::from_check(&report));
            let _ = done.send(found);
            let free = !self.busy.get_untracked();
            if let Some(next) = self
                .lints
                .try_update_value(|gate| gate.answered(free))
                .flatten()
            {
                self.check(next);
            }
        });
    }

    fn ask_completion(self, ((session, code, cursor), done): Pending<Completion, Completions>) {
        let found = self
            .runtime
            .with_value(|runtime| runtime.complete(&session, &code, cursor));
        spawn_local(async move {
            let _ = done.send(found.await.ok());
            // A completion is no use once runs go on: one waiting is dropped.
            let free = !self.busy.get_untracked();
            let next = self.completions.try_update_value(|gate| {
                let next = gate.answered(free);
                drop(gate.take_waiting());
                next
            });
            if let Some(next) = next.flatten() {
                self.ask_completion(next);
            }
        });
    }
}
