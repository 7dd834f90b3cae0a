//! What the supervisor hears (calls, events) and decides (effects), and
//! what it tells the rest of the app about runs and sessions.

use super::pool::PoolLimits;
use crate::js::bulk::Text;
use crate::js::reader::WireName;
use crate::protocol::{
    Answer, HostCallError, HostMessage, InputFile, LoadProgress, OutputChunk, Query, RunId,
    RunRequest, RunResult, SnapshotUse, WorkerMessage,
};

/// What the runtime is doing, for the status line.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeStatus {
    /// Waiting for the service worker to guard Python: this host sends no
    /// security headers, and Python must not start without them.
    Securing,
    /// Starting up.
    Loading(LoadProgress),
    /// Runs go straight to Python.
    Ready {
        /// Python version.
        python: String,
        /// Pyodide version.
        pyodide: String,
        /// Runs are stopped by interrupt (state kept) rather than by restarting the worker.
        interrupts: bool,
        /// Whether Python was restored from the start-up snapshot.
        snapshot: SnapshotUse,
    },
    /// Python could not start; runs fail with this message.
    Failed {
        /// What went wrong.
        message: String,
    },
}

impl RuntimeStatus {
    /// Whether Python's start is over: it is ready, or could not start.
    pub fn start_over(&self) -> bool {
        matches!(self, Self::Ready { .. } | Self::Failed { .. })
    }
}

/// Something that happened to one run before its result.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEvent {
    /// The packages the run needs are downloading (this does not count against its timeout).
    Packages {
        /// Packages being loaded.
        packages: Vec<String>,
        /// Bytes downloaded so far.
        loaded: u64,
        /// Bytes of the downloads seen so far.
        total: u64,
    },
    /// The run is in Python's hands (again, after loading packages); its timeout runs from here.
    Started,
    /// The run wrote output.
    Output(OutputChunk),
    /// The code calls a function of the embedding page: the caller answers
    /// with [`crate::runtime::Runtime::answer_host_call`].
    HostCall(HostCall),
    /// The run (its id) was stopped or ended while this call (its number)
    /// waited: the caller need not answer it, and its handler may give up.
    HostCallCancelled(RunId, u32),
}

/// A host call as it reaches the run's caller, to be answered with
/// [`crate::runtime::Runtime::answer_host_call`].
#[derive(Debug, Clone, PartialEq)]
pub struct HostCall {
    /// The run that makes it.
    pub run: RunId,
    /// The call's number in its run.
    pub call: u32,
    /// The function's name (one the run's request lists).
    pub name: String,
    /// Its arguments, as JSON text.
    pub arguments: Text,
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
    /// The request was refused before it ran (its files are over the limit, say).
    #[error("{0}")]
    Rejected(String),
    /// The runtime was dropped before the run finished.
    #[error("the Python runtime was shut down")]
    Closed,
}

/// A run's result, or why there is none.
pub type RunReply = Result<Box<RunResult>, RuntimeError>;

/// One worker: the generation number its messages are tagged with, new for
/// every worker, so a retired worker's late messages are told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkerId(pub u64);

/// How a worker is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The worker index.html created as the page started (a new one when
    /// there is none): it loads Python by itself but takes code only once
    /// sent [`Effect::Init`].
    Early,
    /// A new worker, sent `init` at once.
    Python,
    /// The snapshot maker, sent `init` at once: it only stores a start-up snapshot.
    SnapshotMaker,
}

/// The client's timers: one at a time of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Timer {
    /// The timeout of the run in flight in this worker, or the next step of its interrupt.
    Deadline(WorkerId),
    /// The next nudge of the runs in flight.
    Nudge,
    /// The runtime has been idle long enough to start a background worker.
    Background,
    /// An idle session may now be parked to make room for a waiting one.
    Pool,
}

/// What a caller's job comes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A run's result.
    Run(RunReply),
    /// A job with nothing to tell but that it is done (a cleared session, files put back).
    Done(Result<(), RuntimeError>),
    /// A query's answer.
    Query(Result<Answer, RuntimeError>),
}

/// A message for the console: nothing the caller needs, but worth a look.
#[derive(Debug, Clone, PartialEq)]
pub enum Log {
    /// Not an error of the app (later starts just take longer, say).
    Warning(String),
    /// Something went wrong.
    Error(String),
}

/// A job a caller asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// Run code.
    Run(RunRequest),
    /// Empty a session; `forget` also drops it from the session list.
    Clear {
        /// The session.
        session: String,
        /// Delete rather than reset.
        forget: bool,
    },
    /// Ask Python something that changes no session.
    Query(Query),
    /// Put files kept across a reload back into a session: they are
    /// replayed into its worker before its next job, without starting one
    /// for them alone.
    RestoreFiles {
        /// The session.
        session: String,
        /// The files.
        files: Vec<InputFile>,
    },
}

/// Something that happened, for [`Supervisor::handle`].
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The page's check of the worker's CSP: `Ok(true)` when the worker's
    /// script came with its own CSP, `Ok(false)` when the service worker
    /// now adds it (a worker created before then is unguarded).
    Guarded(Result<bool, RuntimeError>),
    /// The check waits for the service worker to control the page.
    Securing,
    /// The caller cancelled run `id`.
    Cancel(RunId),
    /// A worker sent a message.
    Message(WorkerId, WorkerMessage),
    /// A worker died (its `error` event), with a description.
    Error(WorkerId, String),
    /// [`Effect::Spawn`] or [`Effect::Init`] failed; the worker is gone.
    SpawnFailed(WorkerId, RuntimeError),
    /// [`Effect::Post`] failed.
    PostFailed(WorkerId, RuntimeError),
    /// A timer started by [`Effect::StartTimer`] went off.
    Tick(Timer),
    /// The deployment's limits were read (see [`PoolLimits::with_config`]).
    Limits(PoolLimits),
    /// A run's caller answered one of its host calls ([`RunEvent::HostCall`]).
    HostAnswer {
        /// The run.
        id: RunId,
        /// The call's number.
        call: u32,
        /// The value, as JSON text.
        value: Option<Text>,
        /// Why there is none.
        error: Option<HostCallError>,
    },
}

/// Something for the client to do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Start a worker; report a failure as [`Event::SpawnFailed`].
    Spawn {
        /// Its id.
        worker: WorkerId,
        /// How.
        start: Start,
    },
    /// Send the [`Start::Early`] worker `init`; report a failure as [`Event::SpawnFailed`].
    Init(WorkerId),
    /// Post a message to a worker; report a failure as [`Event::PostFailed`].
    Post(WorkerId, HostMessage),
    /// End a worker.
    Terminate(WorkerId),
    /// Write SIGINT into the interrupt buffer of a worker.
    Interrupt(WorkerId),
    /// Ask a worker's runner to stream the output it holds.
    Nudge(WorkerId),
    /// Start a timer of this kind (milliseconds), replacing the one running.
    StartTimer(Timer, u32),
    /// Stop the timer of this kind.
    CancelTimer(Timer),
    /// Tell run `id`'s caller what happened to it.
    Notify(RunId, RunEvent),
    /// Answer job `id`'s caller; it hears nothing more.
    Resolve(RunId, Reply),
    /// The runtime's status changed.
    Status(RuntimeStatus),
    /// What each session is doing changed.
    Sessions(Vec<SessionState>),
    /// Write to the console.
    Log(Log),
}

/// What a session is doing, for the page and the clients.
#[derive(serde::Serialize, Debug, Clone, PartialEq, Eq)]
pub struct SessionState {
    /// The session.
    pub name: String,
    /// Where it stands.
    pub phase: SessionPhase,
    /// Callers' jobs waiting behind the one it runs.
    pub queued: usize,
    /// It holds a worker (alive, or starting), which counts against the
    /// memory budget.
    pub resident: bool,
    /// Why it is where it stands, in a sentence.
    pub why: String,
}

/// Where a session stands with its worker.
#[derive(serde::Serialize, Debug, Clone, Copy, PartialEq, Eq, WireName)]
#[serde(rename_all = "snake_case")]
pub enum SessionPhase {
    /// No worker: its next job starts one (and replays its earlier runs, if any).
    Parked,
    /// It has a job but no worker yet: the memory budget is full.
    Waiting,
    /// Its worker is ready and it has a job, which waits for a core: as
    /// many sessions run at once as there are cores.
    Queued,
    /// Its worker is loading Python.
    Starting,
    /// Its worker is replaying its earlier runs.
    Restoring,
    /// Its worker runs one of its jobs.
    Running,
    /// Its worker is ready and has nothing to do.
    Idle,
}
