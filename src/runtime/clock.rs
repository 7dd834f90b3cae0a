//! The runtime's timers, kept by the clock worker (`pyodide-loader/clock.mjs`):
//! Chromium wakes a hidden page's timers once a second, and chains of them
//! (interrupt repeats, nudges) once a minute after five minutes hidden, but
//! a dedicated worker's run on time, so timeouts fire on time in a
//! background tab. Should that worker not start, the page's own timers do.
//!
//! While the page is visible its own timers are on time too, and most runs
//! end within a second: a longer timer is kept by the page for its first
//! [`HANDOVER_MS`] and only then handed to the worker, so a short run costs
//! the clock worker no message. (Hidden, a page's single timer fires at most
//! a second late, and the worker then keeps the rest on time.)

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo_events::EventListener;
use gloo_timers::callback::Timeout;
use leptos::logging::{error as console_error, warn as console_warn};
use leptos::prelude::document;
use litemap::LiteMap;
use serde::Serialize;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

use super::supervisor::Timer;
use crate::js::reader::FromSource;
use crate::names::CLOCK_PATH;
use crate::protocol::{ClockCommand, ClockMessage};

/// Milliseconds on the page clock: what the supervisor's times and the
/// page's run durations are measured in.
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// How long the page keeps a timer, when visible, before the clock worker takes it over.
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
        /// The page's timers that hand timers over to the worker.
        handing: Rc<RefCell<LiteMap<Timer, Timeout>>>,
        _on_message: EventListener,
        _on_error: EventListener,
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
                Keeper::Worker {
                    worker,
                    handing: Rc::default(),
                    _on_message: on_message,
                    _on_error: on_error,
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
                    if handing.borrow_mut().remove(&timer).is_none() {
                        post(worker, ClockCommand::Cancel { id: old });
                    }
                }
                if ms <= HANDOVER_MS || document().hidden() {
                    post(worker, ClockCommand::Start { id, ms });
                    return;
                }
                let (worker, running, kept) =
                    (worker.clone(), self.running.clone(), handing.clone());
                let handover = page_timer(HANDOVER_MS, move || {
                    kept.borrow_mut().remove(&timer);
                    if running.borrow().get(&timer) == Some(&id) {
                        post(
                            &worker,
                            ClockCommand::Start {
                                id,
                                ms: ms - HANDOVER_MS,
                            },
                        );
                    }
                });
                handing.borrow_mut().insert(timer, handover);
            }
            Keeper::Page { timeouts, on_tick } => {
                let (running, on_tick) = (self.running.clone(), on_tick.clone());
                let timeout = page_timer(ms, move || {
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
                if handing.borrow_mut().remove(&timer).is_none() {
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

/// A page timer; one kind of closure for every use, so its glue is there once.
fn page_timer(ms: u32, then: impl Fn() + 'static) -> Timeout {
    let then: Box<dyn Fn()> = Box::new(then);
    Timeout::new(ms, then)
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
