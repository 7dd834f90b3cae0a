//! The line: sessions with a job to start and nothing in their worker, in
//! the order they joined. A session leaves it when its job starts, and
//! joins again at the back when it has another: turns go round the
//! sessions, a call each. A session in line without a worker (parked, or
//! new while the memory budget is full) counts the calls that start while
//! it waits: its patience.

use std::collections::VecDeque;

/// How many calls may start while a session waits for a worker (parked, or
/// new when the memory budget is full) before the pool makes room for it by
/// parking a session that has calls of its own waiting. Until then the
/// resident sessions' calls go first: a restore costs a worker's start and
/// a replay, many calls' worth, so swapping sessions at every turn would
/// spend the cores on restores.
pub const WAIT_BEHIND_AT_MOST: u32 = 16;

/// One session's place.
#[derive(Debug)]
struct Place {
    name: String,
    /// Calls started since it joined, while it had no worker.
    passed: u32,
}

/// The sessions in line, first come first.
#[derive(Debug, Default)]
pub(super) struct Line {
    places: VecDeque<Place>,
}

impl Line {
    /// Session `name` joins at the back, unless it is in line already.
    pub(super) fn join(&mut self, name: &str) {
        if !self.contains(name) {
            self.places.push_back(Place {
                name: name.to_owned(),
                passed: 0,
            });
        }
    }

    /// Session `name` leaves the line.
    pub(super) fn leave(&mut self, name: &str) {
        self.places.retain(|place| place.name != name);
    }

    /// Whether session `name` is in line.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.places.iter().any(|place| place.name == name)
    }

    /// The sessions in line, first first.
    pub(super) fn names(&self) -> Vec<String> {
        self.places.iter().map(|place| place.name.clone()).collect()
    }

    /// Sessions ahead of `name` in line.
    pub(super) fn ahead_of(&self, name: &str) -> usize {
        let at = self.places.iter().position(|place| place.name == name);
        at.unwrap_or(self.places.len())
    }

    /// Whether no session is in line.
    pub(super) fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// Empties the line.
    pub(super) fn clear(&mut self) {
        self.places.clear();
    }

    /// A call started: each session in line that `waits_for_worker` counts it.
    pub(super) fn passed_by_one(&mut self, waits_for_worker: impl Fn(&str) -> bool) {
        for place in &mut self.places {
            if waits_for_worker(&place.name) {
                place.passed = place.passed.saturating_add(1);
            }
        }
    }

    /// Whether session `name` has let [`WAIT_BEHIND_AT_MOST`] calls start
    /// while it waited for a worker.
    pub(super) fn out_of_patience(&self, name: &str) -> bool {
        let place = self.places.iter().find(|place| place.name == name);
        place.is_some_and(|place| place.passed >= WAIT_BEHIND_AT_MOST)
    }
}
