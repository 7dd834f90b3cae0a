//! What the page draws of state that changes faster than anyone can read:
//! a copy brought up to date at most ten times a second.

use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;

use crate::runtime::now_ms;

/// How often at most drawn state is brought up to date: a model's calls in
/// quick succession are drawn ten times a second rather than after every
/// call, which leaves the main thread to the calls. A change after a pause
/// is drawn at once.
const REDRAW_MS: u32 = 100;

/// `source` as drawn, brought up to date at most once per [`REDRAW_MS`]
/// (and never within the task that changed it), and only when `same` says
/// it differs from what is drawn: runs that a caller's calls in quick
/// succession start and end in between are drawn once, as they are by
/// then, rather than queued, then running, then finished; a session busy
/// and idle again in between is not drawn at all; and no reply waits for
/// drawing. A change `urgent` picks out (given what is drawn and what is
/// now) is drawn after its task all the same: the person's own run.
/// A timer, not an animation frame, so that a frame the browser does not
/// render (out of view, hidden) still keeps it up to date.
pub fn drawn<T: Clone + Send + Sync + 'static>(
    source: ReadSignal<T>,
    same: fn(&T, &T) -> bool,
    urgent: fn(&T, &T) -> bool,
) -> ReadSignal<T> {
    let (drawn, set_drawn) = signal(source.get_untracked());
    let copy = move || {
        // The page may be gone by then.
        let Some(now) = source.try_get_untracked() else {
            return;
        };
        if drawn.try_with_untracked(|drawn| !same(drawn, &now)) == Some(true) {
            set_drawn.try_set(now);
        }
    };
    let track = move || source.with(|now| drawn.with_untracked(|drawn| urgent(drawn, now)));
    at_most_every_redraw(Box::new(track), Rc::new(copy));
    drawn
}

/// Calls `draw` after the task in which what `track` reads changed, and at
/// most once per [`REDRAW_MS`] unless `track` says the change is urgent.
/// Not generic, so the page has it once.
fn at_most_every_redraw(track: Box<dyn Fn() -> bool>, draw: Rc<dyn Fn()>) {
    let due = StoredValue::new(false);
    let last_ms = StoredValue::new(f64::NEG_INFINITY);
    Effect::new(move |_| {
        let urgent = track();
        if due.get_value() && !urgent {
            return;
        }
        due.set_value(true);
        let wait_ms = if urgent {
            0.0
        } else {
            last_ms.get_value() + f64::from(REDRAW_MS) - now_ms()
        };
        let draw = draw.clone();
        let run = move || {
            if due.try_set_value(false).is_none() {
                last_ms.set_value(now_ms());
                draw();
            }
        };
        // Whole milliseconds, never below zero (`as` saturates).
        set_timeout(run, Duration::from_millis(wait_ms as u64));
    });
}
