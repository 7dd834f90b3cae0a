//! The editor's questions to Python (completions, lint): one in flight at
//! a time, none while Python is busy with runs, and of those asked
//! meanwhile only the newest waits; older ones are dropped, since the code
//! they were about has changed. Python answers one thing at a time, so a
//! question sent is one a run may wait behind: this keeps that to one
//! short question at most, and never puts one ahead of a queued run.

/// What to do with a question offered to a [`OneAtATime`].
#[derive(Debug, PartialEq, Eq)]
pub enum Offer<T> {
    /// Ask it now.
    Send(T),
    /// It waits (for the question in flight, or for Python to be free);
    /// the one it displaced, if any, is dropped unanswered.
    Wait {
        /// The question that waited before, now dropped.
        dropped: Option<T>,
    },
}

/// One question in flight, the newest waiting.
#[derive(Debug)]
pub struct OneAtATime<T> {
    in_flight: bool,
    waiting: Option<T>,
}

impl<T> Default for OneAtATime<T> {
    fn default() -> Self {
        Self {
            in_flight: false,
            waiting: None,
        }
    }
}

impl<T> OneAtATime<T> {
    /// Offers `question`; `free` says whether Python may be asked now (no
    /// run queued or running). Sent at once when it may and none is in
    /// flight, else it waits.
    pub fn offer(&mut self, question: T, free: bool) -> Offer<T> {
        if self.in_flight || !free {
            return Offer::Wait {
                dropped: self.waiting.replace(question),
            };
        }
        self.in_flight = true;
        Offer::Send(question)
    }

    /// The question in flight was answered (or failed): returns the one to
    /// send next, if one waits and Python is `free`.
    pub fn answered(&mut self, free: bool) -> Option<T> {
        self.in_flight = false;
        if free {
            self.next()
        } else {
            None
        }
    }

    /// Python became free: returns the waiting question to send, unless one is in flight.
    pub fn freed(&mut self) -> Option<T> {
        if self.in_flight {
            None
        } else {
            self.next()
        }
    }

    /// Takes the waiting question out, for a caller that would rather
    /// answer it with nothing than have it wait for Python to be free.
    pub fn take_waiting(&mut self) -> Option<T> {
        self.waiting.take()
    }

    fn next(&mut self) -> Option<T> {
        let next = self.waiting.take();
        self.in_flight = next.is_some();
        next
    }
}
