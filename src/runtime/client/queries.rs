//! What the app asks Python without running code: a file's bytes, a
//! check of code, completions. Each goes through the session's queue like
//! a run, and comes back as the [`Answer`] of its kind.

use std::future::Future;

use futures_channel::oneshot;

use super::{ReplyTo, Runtime};
use crate::protocol::{Answer, CheckReport, Completions, Query};
use crate::runtime::supervisor::{Call, RuntimeError};

impl Runtime {
    /// Reads a file from a session's working directory; resolves to its bytes, base64.
    ///
    /// For artifacts too large to come back with their run's result.
    pub fn read_file(
        &self,
        session: &str,
        path: &str,
    ) -> impl Future<Output = Result<String, RuntimeError>> {
        let answer = self.query(Query::ReadFile {
            session: session.to_owned(),
            path: path.to_owned(),
        });
        async move {
            match answer.await? {
                Answer::File { content_base64 } => Ok(content_base64),
                other => Err(unexpected(&other)),
            }
        }
    }

    /// Checks that `code` compiles and where its imports would come from, without running it.
    pub fn check(&self, code: &str) -> impl Future<Output = Result<CheckReport, RuntimeError>> {
        let answer = self.query(Query::Check {
            code: code.to_owned(),
        });
        async move {
            match answer.await? {
                Answer::Check { report } => Ok(*report),
                other => Err(unexpected(&other)),
            }
        }
    }

    /// The names that could be typed at `cursor` (characters into `code`)
    /// in `session`; runs none of the session's code.
    pub fn complete(
        &self,
        session: &str,
        code: &str,
        cursor: u32,
    ) -> impl Future<Output = Result<Completions, RuntimeError>> {
        let answer = self.query(Query::Complete {
            session: session.to_owned(),
            code: code.to_owned(),
            cursor,
        });
        async move {
            match answer.await? {
                Answer::Complete { completions } => Ok(completions),
                other => Err(unexpected(&other)),
            }
        }
    }

    /// Queues `query` like a run (Python answers one thing at a time).
    fn query(&self, query: Query) -> impl Future<Output = Result<Answer, RuntimeError>> {
        let (done, receiver) = oneshot::channel();
        self.inner.submit(Call::Query(query), ReplyTo::Query(done));
        async move { receiver.await.unwrap_or(Err(RuntimeError::Closed)) }
    }
}

/// A worker that answered a query with another query's kind of answer.
fn unexpected(answer: &Answer) -> RuntimeError {
    RuntimeError::Rejected(format!(
        "the worker gave an answer of the wrong kind: {}",
        answer.wire_name()
    ))
}
