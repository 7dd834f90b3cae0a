//! The runtime's timers, kept by the clock worker (`pyodide-loader/clock.mjs`):
//! Chromium wakes a hidden page's timers once a second, and chains of them
//! (interrupt repeats, nudges) once a minute after five minutes hidden, but
//! a dedicated worker's run on time, so timeouts fire on time in a
//! background tab. Should that worker not start, the page's own timers do.
//!
//! While the page is visible its own timers are on time too, and most runs
//! end within a second: a long timer is kept by the page for its first
//! [`HANDOVER_MS`] and only then handed to the worker (at once when the page
//! is hidden), so a short run costs the clock worker no message at all.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo_events::EventListener;
use gloo_timers::callback::Timeout;
use leptos::logging::{error as console_error, warn as console_warn};
use litemap::LiteMap;
use serde::Serialize;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

use super::supervisor::Timer;
use crate::js::reader::FromSource;
use crate::names::CLOCK_PATH;
use crate::protocol::{ClockCommand, ClockMessage};

/// How long the page keeps a timer before the clock worker takes it over.
const HANDOVER_MS: u32 = 1_000;

/// Timers of each [`Timer`] kind, one at a time of each.
pub struct Clock {
    keeper: Keeper,
    /// The id of each timer running, so a late `fired` of one replaced is told apart.
    running: Rc<RefCell<LiteMap<Timer, u32>>>,
    last_id: Cell<u32>,
}

/// Who keeps the time.
enum Keeper {
    Worker {
        worker: Worker,
        /// Timers the page keeps until they are handed over.
        handing: Handing,
        _on_message: EventListener,
        _on_error: EventListener,
        _on_hidden: EventListener,
    },
    Page {
        timeouts: RefCell<LiteMap<Timer, Timeout>>,
        on_tick: Rc<dyn Fn(Timer)>,
    },
}

impl Clock {
    /// Starts the clock; `on_tick` hears each timer that goes off.
    pub fn new(on_tick: impl Fn(Timer) + 'static) -> Self {
        let running: Rc<RefCell<LiteMap<Timer, u32>>> = Rc::default();
        let on_tick: Rc<dyn Fn(Timer)> = Rc::new(on_tick);
        let keeper = match clock_worker() {
            Ok(worker) => {
                let running = running.clone();
                let on_tick = on_tick.clone();
                let on_message = EventListener::new(&worker, "message", move |event| {
                    let Some(event) = event.dyn_ref::<MessageEvent>() else {
                        return;
                    };
                    match ClockMessage::read(event.data()) {
                        Ok(ClockMessage::Fired { id }) => {
                            let timer = fired(&running, id);
                            // Nothing borrowed: the tick may start timers again.
                            if let Some(timer) = timer {
                                on_tick(timer);
                            }
                        }
                        Err(error) => {
                            console_error!("sandpit: malformed message from the clock: {error}")
                        }
                    }
                });
                // Its script is the bundle's own: one that fails to load is a bug, made loud.
                let on_error = EventListener::new(&worker, "error", |_| {
                    console_error!("sandpit: the clock worker stopped; runs may not time out")
                });
                let handing = Handing::default();
                let on_hidden = {
                    let (worker, handing) = (worker.clone(), handing.clone());
                    EventListener::new(&document(), "visibilitychange", move |_| {
                        if page_hidden() {
                            handing.hand_over_all(&worker);
                        }
                    })
                };
                Keeper::Worker {
                    worker,
                    handing,
                    _on_message: on_message,
                    _on_error: on_error,
                    _on_hidden: on_hidden,
                }
            }
            Err(why) => {
                console_warn!("sandpit: the clock worker did not start ({why}); runs' timeouts may be late in a hidden tab");
                Keeper::Page {
                    timeouts: RefCell::default(),
                    on_tick,
                }
            }
        };
        Self {
            keeper,
            running,
            last_id: Cell::new(0),
        }
    }

    /// Starts a timer of this kind (milliseconds), replacing the one running.
    pub fn start(&self, timer: Timer, ms: u32) {
        // Timers fire at once past i32::MAX ms: capped there instead.
        let ms = ms.min(i32::MAX.unsigned_abs());
        let id = self.last_id.get().wrapping_add(1);
        self.last_id.set(id);
        let replaced = self.running.borrow_mut().insert(timer, id);
        match &self.keeper {
            Keeper::Worker {
                worker, handing, ..
            } => {
                if let Some(old) = replaced {
                    if !handing.drop_timer(timer) {
                        post(worker, ClockCommand::Cancel { id: old });
                    }
                }
                if ms <= HANDOVER_MS || page_hidden() {
                    post(worker, ClockCommand::Start { id, ms });
                } else {
                    handing.keep(worker, timer, id, ms);
                }
            }
            Keeper::Page { timeouts, on_tick } => {
                let (running, on_tick) = (self.running.clone(), on_tick.clone());
                let timeout = Timeout::new(ms, move || {
                    if let Some(timer) = fired(&running, id) {
                        on_tick(timer);
                    }
                });
                // Replacing the running one cancels it.
                timeouts.borrow_mut().insert(timer, timeout);
            }
        }
    }

    /// Stops the timer of this kind.
    pub fn cancel(&self, timer: Timer) {
        let Some(id) = self.running.borrow_mut().remove(&timer) else {
            return;
        };
        match &self.keeper {
            Keeper::Worker {
                worker, handing, ..
            } => {
                if !handing.drop_timer(timer) {
                    post(worker, ClockCommand::Cancel { id });
                }
            }
            Keeper::Page { timeouts, .. } => {
                timeouts.borrow_mut().remove(&timer);
            }
        }
    }
}

impl Drop for Clock {
    fn drop(&mut self) {
        if let Keeper::Worker { worker, .. } = &self.keeper {
            worker.terminate();
        }
    }
}

/// The timers the page keeps for their first [`HANDOVER_MS`].
#[derive(Clone, Default)]
struct Handing(Rc<RefCell<LiteMap<Timer, Kept>>>);

/// A timer kept by the page: its id, when it is due, and the page's timer
/// that hands it over.
struct Kept {
    id: u32,
    due_ms: f64,
    _handover: Timeout,
}

impl Handing {
    /// Keeps timer `id` (due in `ms`) until [`HANDOVER_MS`] have passed.
    fn keep(&self, worker: &Worker, timer: Timer, id: u32, ms: u32) {
        let due_ms = now_ms() + f64::from(ms);
        let (this, worker) = (self.clone(), worker.clone());
        let handover = Timeout::new(HANDOVER_MS, move || {
            let kept = this.0.borrow_mut().remove(&timer);
            if let Some(kept) = kept {
                hand_over(&worker, &kept);
            }
        });
        let kept = Kept {
            id,
            due_ms,
            _handover: handover,
        };
        self.0.borrow_mut().insert(timer, kept);
    }

    /// Forgets `timer` if the page still keeps it; says whether it did.
    fn drop_timer(&self, timer: Timer) -> bool {
        self.0.borrow_mut().remove(&timer).is_some()
    }

    /// Hands every kept timer to the worker (the page is going hidden).
    fn hand_over_all(&self, worker: &Worker) {
        let kept = std::mem::take(&mut *self.0.borrow_mut());
        for (_, kept) in kept.iter() {
            hand_over(worker, kept);
        }
    }
}

fn hand_over(worker: &Worker, kept: &Kept) {
    let left = (kept.due_ms - now_ms()).max(0.0).ceil();
    // In u32 range: it was at most the `ms` the timer started with.
    let ms = left as u32;
    post(worker, ClockCommand::Start { id: kept.id, ms });
}

fn page_hidden() -> bool {
    document().hidden()
}

fn document() -> web_sys::Document {
    web_sys::window()
        .and_then(|window| window.document())
        .expect("the clock runs on a page")
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// The timer whose run is `id`, taken out of `running`; none for one
/// cancelled or replaced since.
fn fired(running: &RefCell<LiteMap<Timer, u32>>, id: u32) -> Option<Timer> {
    let mut running = running.borrow_mut();
    let timer = running
        .iter()
        .find(|(_, running)| **running == id)?
        .0
        .to_owned();
    running.remove(&timer);
    Some(timer)
}

fn clock_worker() -> Result<Worker, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    Worker::new_with_options(CLOCK_PATH, &options).map_err(|e| crate::js::error::message(&e))
}

fn post(worker: &Worker, command: ClockCommand) {
    let sent = command
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| e.to_string())
        .and_then(|message| {
            worker
                .post_message(&message)
                .map_err(|e| crate::js::error::message(&e))
        });
    if let Err(why) = sent {
        console_error!("sandpit: could not reach the clock: {why}");
    }
}
