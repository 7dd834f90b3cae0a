//! The worker client: the only code that touches `web_sys::Worker`.
//!
//! It spawns the module worker, sends `init`, turns worker messages into
//! status updates and run results, and feeds runs to the worker one at a
//! time through [`RunQueue`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::rc::{Rc, Weak};

use futures_channel::oneshot;
use leptos::logging::error as console_error;
use serde::Serialize;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};

use super::queue::RunQueue;
use crate::protocol::{
    HostMessage, LoadStage, OutputChunk, RunId, RunRequest, RunResult, WorkerConfig, WorkerMessage,
};

/// Where the worker and Pyodide live, relative to the page.
const WORKER_PATH: &str = "pyodide-loader/worker.mjs";
const RUNNER_PATH: &str = "pyodide-loader/runner.py";
const PYODIDE_PATH: &str = "pyodide/";

/// What the runtime is doing, for the status line.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeStatus {
    /// Starting up.
    Loading {
        /// Current phase.
        stage: LoadStage,
        /// Bytes downloaded so far.
        loaded: u64,
        /// Bytes to download in all, when known.
        total: Option<u64>,
    },
    /// Runs go straight to Python.
    Ready {
        /// Python version.
        python: String,
        /// Pyodide version.
        pyodide: String,
    },
    /// Python could not start; runs fail with this message.
    Failed {
        /// What went wrong.
        message: String,
    },
}

/// Something that happened to one run before its result.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEvent {
    /// The run left the queue and is executing now.
    Started,
    /// The run wrote output.
    Output(OutputChunk),
}

/// Why a run produced no [`RunResult`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    /// The worker could not be created or spoken to.
    #[error("could not talk to the Python worker: {0}")]
    Worker(String),
    /// Python failed to start, so nothing can run.
    #[error("{0}")]
    Unavailable(String),
    /// The interpreter failed while running (not an exception in the code).
    #[error("the Python interpreter failed: {0}")]
    Interpreter(String),
    /// The runtime was dropped before the run finished.
    #[error("the Python runtime was shut down")]
    Closed,
}

impl RuntimeError {
    fn from_js(value: &JsValue) -> Self {
        Self::Worker(
            value
                .as_string()
                .or_else(|| value.dyn_ref::<js_sys::Error>().map(|e| e.message().into()))
                .unwrap_or_else(|| format!("{value:?}")),
        )
    }
}

type StatusCallback = Rc<dyn Fn(RuntimeStatus)>;
type EventCallback = Rc<dyn Fn(RunEvent)>;
type Outcome = Result<Box<RunResult>, RuntimeError>;

/// A run handed to the client, until its result arrives.
struct PendingRun {
    on_event: EventCallback,
    done: oneshot::Sender<Outcome>,
}

/// State shared between the client and its worker event handlers.
struct Shared {
    worker: Worker,
    queue: RunQueue,
    runs: HashMap<RunId, PendingRun>,
    on_status: StatusCallback,
    failure: Option<String>,
}

/// The Python runtime as the rest of the app sees it.
pub struct Runtime {
    shared: Rc<RefCell<Shared>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(ErrorEvent)>,
}

impl Runtime {
    /// Spawns the worker and starts loading Python; `on_status` hears every status change.
    pub fn start(on_status: impl Fn(RuntimeStatus) + 'static) -> Result<Self, RuntimeError> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(WORKER_PATH, &options)
            .map_err(|e| RuntimeError::from_js(&e))?;
        let shared = Rc::new(RefCell::new(Shared {
            worker,
            queue: RunQueue::new(),
            runs: HashMap::new(),
            on_status: Rc::new(on_status),
            failure: None,
        }));

        let weak = Rc::downgrade(&shared);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            with_shared(&weak, |shared| on_worker_message(shared, event.data()));
        });
        let weak = Rc::downgrade(&shared);
        let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |event: ErrorEvent| {
            let message = format!("the Python worker stopped: {}", event.message());
            with_shared(&weak, |shared| fail(shared, message));
        });
        {
            let state = shared.borrow();
            state
                .worker
                .set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            state
                .worker
                .set_onerror(Some(on_error.as_ref().unchecked_ref()));
        }
        let config = WorkerConfig {
            pyodide_url: page_url(PYODIDE_PATH)?,
            runner_url: page_url(RUNNER_PATH)?,
        };
        post(&shared.borrow().worker, &HostMessage::Init { config })?;
        Ok(Self {
            shared,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Queues `request`; `on_event` hears when it starts and what it prints.
    ///
    /// Runs submitted before Python is ready wait and then run in order.
    pub fn run(
        &self,
        request: RunRequest,
        on_event: impl Fn(RunEvent) + 'static,
    ) -> impl Future<Output = Outcome> {
        let (done, receiver) = oneshot::channel();
        let failure = self.shared.borrow().failure.clone();
        match failure {
            Some(message) => {
                // The receiver is alive until this function returns, so the send cannot fail.
                let _ = done.send(Err(RuntimeError::Unavailable(message)));
            }
            None => {
                let next = {
                    let mut state = self.shared.borrow_mut();
                    let (id, next) = state.queue.submit(request);
                    let on_event: EventCallback = Rc::new(on_event);
                    state.runs.insert(id, PendingRun { on_event, done });
                    next
                };
                dispatch(&self.shared, next);
            }
        }
        async move { receiver.await.unwrap_or(Err(RuntimeError::Closed)) }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        let state = self.shared.borrow();
        state.worker.set_onmessage(None);
        state.worker.set_onerror(None);
        state.worker.terminate();
    }
}

fn with_shared(weak: &Weak<RefCell<Shared>>, body: impl FnOnce(&Rc<RefCell<Shared>>)) {
    if let Some(shared) = weak.upgrade() {
        body(&shared);
    }
}

/// Resolves `path` against the page, because the worker resolves URLs against its own location.
fn page_url(path: &str) -> Result<String, RuntimeError> {
    let base = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .ok_or_else(|| RuntimeError::Worker("the page has no base URL".into()))?;
    web_sys::Url::new_with_base(path, &base)
        .map(|url| url.href())
        .map_err(|e| RuntimeError::from_js(&e))
}

fn post(worker: &Worker, message: &HostMessage) -> Result<(), RuntimeError> {
    let value = message
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| RuntimeError::Worker(e.to_string()))?;
    worker
        .post_message(&value)
        .map_err(|e| RuntimeError::from_js(&e))
}

/// Posts the run the queue chose, if any, and tells its caller it started.
fn dispatch(shared: &Rc<RefCell<Shared>>, next: Option<HostMessage>) {
    let Some(message) = next else { return };
    let HostMessage::Run { id, .. } = &message else {
        return;
    };
    let id = *id;
    let posted = post(&shared.borrow().worker, &message);
    match posted {
        Ok(()) => {
            let on_event = shared.borrow().runs.get(&id).map(|r| r.on_event.clone());
            if let Some(on_event) = on_event {
                on_event(RunEvent::Started);
            }
        }
        Err(error) => finish(shared, id, Err(error)),
    }
}

/// Resolves run `id` and sends the next queued run.
fn finish(shared: &Rc<RefCell<Shared>>, id: RunId, outcome: Outcome) {
    let (pending, next) = {
        let mut state = shared.borrow_mut();
        (state.runs.remove(&id), state.queue.finish(id))
    };
    if let Some(pending) = pending {
        // A caller that stopped waiting has dropped the receiver; nothing to tell it.
        let _ = pending.done.send(outcome);
    }
    dispatch(shared, next);
}

/// Python cannot run any more: every waiting run fails with `message`.
fn fail(shared: &Rc<RefCell<Shared>>, message: String) {
    let (on_status, pending) = {
        let mut state = shared.borrow_mut();
        state.failure = Some(message.clone());
        let ids = state.queue.drain();
        let pending: Vec<_> = ids.iter().filter_map(|id| state.runs.remove(id)).collect();
        (state.on_status.clone(), pending)
    };
    for run in pending {
        let _ = run
            .done
            .send(Err(RuntimeError::Unavailable(message.clone())));
    }
    on_status(RuntimeStatus::Failed { message });
}

fn on_worker_message(shared: &Rc<RefCell<Shared>>, data: JsValue) {
    let message: WorkerMessage = match serde_wasm_bindgen::from_value(data) {
        Ok(message) => message,
        Err(error) => {
            // A shape the protocol does not define: a bug on the worker side, made loud.
            console_error!("sandpit: malformed message from the worker: {error}");
            return;
        }
    };
    let on_status = shared.borrow().on_status.clone();
    match message {
        WorkerMessage::Progress {
            stage,
            loaded,
            total,
        } => on_status(RuntimeStatus::Loading {
            stage,
            loaded,
            total,
        }),
        WorkerMessage::Ready { python, pyodide } => {
            on_status(RuntimeStatus::Ready { python, pyodide });
            let next = shared.borrow_mut().queue.set_ready();
            dispatch(shared, next);
        }
        WorkerMessage::Fatal { message } => fail(shared, message),
        WorkerMessage::Stream { id, chunk } => {
            let on_event = shared.borrow().runs.get(&id).map(|r| r.on_event.clone());
            if let Some(on_event) = on_event {
                on_event(RunEvent::Output(chunk));
            }
        }
        WorkerMessage::RunFailed { id, message } => {
            finish(shared, id, Err(RuntimeError::Interpreter(message)))
        }
        WorkerMessage::Done { id, result } => finish(shared, id, Ok(result)),
    }
}
