//! One Pyodide worker: the only code that touches a Python worker's
//! `web_sys::Worker` (the clock's is in `clock.rs`).

use gloo_events::{EventListener, EventListenerOptions};
use js_sys::{Atomics, Int32Array, SharedArrayBuffer};
use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    ErrorEvent, Event, MessageChannel, MessageEvent, MessagePort, Worker, WorkerOptions, WorkerType,
};

use super::supervisor::RuntimeError;
use crate::names::{
    EARLY_WORKER_GLOBAL, INTERRUPT_SIGNAL, NUDGE_SIGNAL, SNAPSHOT_MAKER_NAME, WORKER_PATH,
};
use crate::protocol::{HostMessage, HostPort, InterruptBuffer, WorkerConfig};

#[wasm_bindgen]
extern "C" {
    /// The page's `crossOriginIsolated`: shared memory exists only when it is true (COOP/COEP).
    #[wasm_bindgen(thread_local_v2, js_name = crossOriginIsolated)]
    static CROSS_ORIGIN_ISOLATED: JsValue;

    /// Logical processors (`navigator.hardwareConcurrency`).
    #[wasm_bindgen(thread_local_v2, js_namespace = navigator, js_name = hardwareConcurrency)]
    static CORES: JsValue;

    /// Memory in GiB, rounded (`navigator.deviceMemory`, Chromium's only).
    #[wasm_bindgen(thread_local_v2, js_namespace = navigator, js_name = deviceMemory)]
    static DEVICE_MEMORY: JsValue;
}

/// Whether workers get an interrupt buffer: shared memory exists only when
/// the page is cross-origin isolated.
pub(super) fn interrupts_available() -> bool {
    CROSS_ORIGIN_ISOLATED.with(|value| value.as_bool() == Some(true))
}

/// The device's logical processors and memory in GiB, where the browser says.
pub(super) fn device() -> (Option<f64>, Option<f64>) {
    (
        CORES.with(JsValue::as_f64),
        DEVICE_MEMORY.with(JsValue::as_f64),
    )
}

/// A spawned worker, its event listeners (removed when dropped), and its
/// interrupt buffer when the page allows one.
///
/// Protocol messages travel over a private `MessageChannel`, never the
/// worker's own `postMessage`, which the worker removes before user code
/// runs: whatever Python posts through the worker object is never read.
pub struct PythonWorker {
    worker: Worker,
    port: MessagePort,
    /// The worker's end of the channel, until `init` transfers it.
    worker_end: MessagePort,
    interrupt: Option<Int32Array>,
    _on_message: EventListener,
    _on_error: EventListener,
}

impl PythonWorker {
    /// Spawns the module worker, or (`early`) adopts the one index.html
    /// created as the page started, when there is one. It starts Python as
    /// its script runs (the snapshot maker, `make_snapshot`, at init), but
    /// takes no code before [`PythonWorker::init`]. `on_message` gets each
    /// message's data; `on_error` gets a description when the worker dies.
    pub fn spawn(
        early: bool,
        make_snapshot: bool,
        mut on_message: impl FnMut(JsValue) + 'static,
        mut on_error: impl FnMut(String) + 'static,
    ) -> Result<Self, RuntimeError> {
        let early = early.then(take_early_worker).flatten();
        let worker = match early {
            Some(worker) => worker,
            None => {
                let options = WorkerOptions::new();
                options.set_type(WorkerType::Module);
                if make_snapshot {
                    options.set_name(SNAPSHOT_MAKER_NAME);
                }
                Worker::new_with_options(WORKER_PATH, &options).map_err(|e| js_error(&e))?
            }
        };
        let channel = MessageChannel::new().map_err(|e| js_error(&e))?;
        let port = channel.port1();
        let on_message = EventListener::new(&port, "message", move |event| {
            if let Some(event) = event.dyn_ref::<MessageEvent>() {
                on_message(event.data());
            }
        });
        // A port listened to this way (not through `onmessage`) delivers only once started.
        port.start();
        // Not passive: the default (the error reported again on the page) is prevented.
        let options = EventListenerOptions::enable_prevent_default();
        let on_error = EventListener::new_with_options(&worker, "error", options, move |event| {
            event.prevent_default();
            on_error(format!("the Python worker stopped: {}", why_stopped(event)))
        });
        let interrupt = interrupts_available().then(|| Int32Array::new(&SharedArrayBuffer::new(4)));
        Ok(Self {
            worker,
            port,
            worker_end: channel.port2(),
            interrupt,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Sends `init`, which brings the port runs come over (and starts Python
    /// in the snapshot maker). With `make_snapshot` the worker only stores a
    /// start-up snapshot (see [`WorkerConfig::make_snapshot`]).
    pub fn init(&self, make_snapshot: bool) -> Result<(), RuntimeError> {
        let config = WorkerConfig {
            interrupt_buffer: self
                .interrupt
                .as_ref()
                .map(|word| InterruptBuffer(word.buffer().unchecked_into())),
            port: HostPort(self.worker_end.clone()),
            make_snapshot,
        };
        let init = to_js(&HostMessage::Init { config })?;
        self.worker
            .post_message_with_transfer(&init, &js_sys::Array::of1(&self.worker_end))
            .map_err(|e| js_error(&e))
    }

    /// Sends one protocol message over the private channel.
    pub fn post(&self, message: &HostMessage) -> Result<(), RuntimeError> {
        self.port
            .post_message(&to_js(message)?)
            .map_err(|e| js_error(&e))
    }

    /// Asks Python to raise `KeyboardInterrupt` in the running code (where
    /// the page gives workers an interrupt buffer, see [`interrupts_available`]).
    pub fn interrupt(&self) {
        if let Some(buffer) = &self.interrupt {
            // Writing a valid index of an Int32Array cannot fail.
            let _ = Atomics::store(buffer, 0, INTERRUPT_SIGNAL);
        }
    }

    /// Asks the running code's runner to stream the output it holds. Only
    /// into an empty buffer: an interrupt waiting there wins.
    pub fn nudge(&self) {
        if let Some(buffer) = &self.interrupt {
            let _ = Atomics::compare_exchange(buffer, 0, 0, NUDGE_SIGNAL);
        }
    }
}

impl Drop for PythonWorker {
    /// Terminates the worker; its listeners go with the fields.
    fn drop(&mut self) {
        self.port.close();
        self.worker.terminate();
    }
}

/// The worker index.html's inline script created, taken once: later workers
/// are created here. None when there is none, or when its script failed to
/// load before this (the script then dropped it: a new one reports why).
/// Adopted, it gets its error listener on this thread, so no error is missed
/// in between; the script's own handler stays, forgetting a global already gone.
fn take_early_worker() -> Option<Worker> {
    let window = web_sys::window()?;
    let key = JsValue::from_str(EARLY_WORKER_GLOBAL);
    let found = js_sys::Reflect::get(&window, &key).ok()?;
    js_sys::Reflect::delete_property(&window, &key).ok()?;
    found.dyn_into::<Worker>().ok()
}

/// Resolves when the worker's script will run under its own CSP: at once
/// where the host sends it (true), else once the service worker (which adds
/// it) controls the page (false: a worker created before then is unguarded;
/// `securing` hears that the wait begins). No code reaches Python without it.
pub(super) async fn guard(securing: impl FnOnce()) -> Result<bool, RuntimeError> {
    if !super::gate::needs_service_worker(WORKER_PATH)
        .await
        .map_err(RuntimeError::Unavailable)?
    {
        return Ok(true);
    }
    securing();
    super::gate::wait_for_service_worker(WORKER_PATH)
        .await
        .map_err(RuntimeError::Unavailable)?;
    Ok(false)
}

fn js_error(value: &JsValue) -> RuntimeError {
    RuntimeError::Worker(crate::js::error::message(value))
}

fn to_js(message: &HostMessage) -> Result<JsValue, RuntimeError> {
    message
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| RuntimeError::Worker(e.to_string()))
}

/// What a worker's `error` event says: an uncaught error is an `ErrorEvent`;
/// a script that could not be loaded gets a plain `Event`, with no message.
fn why_stopped(event: &Event) -> String {
    match event.dyn_ref::<ErrorEvent>() {
        Some(error) => error.message(),
        None => "its script could not be loaded".to_owned(),
    }
}
