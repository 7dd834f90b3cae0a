//! Names that Rust, JavaScript and Python must spell alike: the one
//! definition of each.
//!
//! `make schema` writes them into `www/generated/names.js` (and its `.d.ts`),
//! which the JS imports; `runner.py` gets the ones it needs from the worker
//! at `configure`, and a native test checks the literals of the files that
//! cannot import (index.html's inline script, Trunk.toml).

/// Defines each constant as written, and [`all`] listing them with their
/// doc comments, from which the JS module is generated.
macro_rules! shared_names {
    ($( $(#[doc = $doc:literal])+ pub const $name:ident: $ty:ty = $value:expr; )+) => {
        $( $(#[doc = $doc])+ pub const $name: $ty = $value; )+

        /// Every shared name with its doc comment and value, in the order defined.
        pub fn all() -> Vec<SharedName> {
            vec![$(SharedName {
                name: stringify!($name),
                doc: &[$($doc),+],
                value: serde_json::json!($name),
            }),+]
        }
    };
}

/// One shared name, as the generated JS module writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct SharedName {
    /// The constant's name, the same in Rust and JS.
    pub name: &'static str,
    /// Its doc comment, one entry per line.
    pub doc: &'static [&'static str],
    /// Its value.
    pub value: serde_json::Value,
}

shared_names! {
    /// The Python worker's script, relative to the app's root: Pyodide and the
    /// runner are found beside it, and it is the one file served with its own CSP.
    pub const WORKER_PATH: &str = "pyodide-loader/worker.mjs";

    /// The clock worker's script, relative to the app's root: it keeps the
    /// runtime's timers, which run on time in a hidden tab where the page's
    /// own are throttled.
    pub const CLOCK_PATH: &str = "pyodide-loader/clock.mjs";
    /// The page that hosts the Python worker's script on a frame's own thread
    /// where no module worker can start (a page with an opaque origin, as a
    /// frame sandboxed without `allow-same-origin` has), beside the script.
    pub const THREAD_PAGE: &str = "pyodide-loader/thread.html";

    /// The global under which index.html's inline script leaves the worker it
    /// created as the page started, for the app to adopt.
    pub const EARLY_WORKER_GLOBAL: &str = "sandpitWorker";

    /// The global under which index.html's inline script leaves its fetch of
    /// the worker's script (a promise, then the response), whose CSP the page checks.
    pub const EARLY_WORKER_CHECK_GLOBAL: &str = "sandpitWorkerCheck";

    /// The worker name the host gives the snapshot maker: every other worker
    /// starts Python as its script runs, the maker its own way at `init`.
    pub const SNAPSHOT_MAKER_NAME: &str = "sandpit-snapshot-maker";

    /// The signal the host writes into Pyodide's interrupt buffer to stop the
    /// running code (SIGINT, which Python raises as `KeyboardInterrupt`).
    pub const INTERRUPT_SIGNAL: i32 = 2;

    /// The signal the host writes into Pyodide's interrupt buffer to have the
    /// runner stream the output it holds (SIGUSR1, which nothing else sends).
    pub const NUDGE_SIGNAL: i32 = 10;

    /// The session used when a caller names none.
    pub const DEFAULT_SESSION: &str = "main";

    /// Timeout used when a caller names none: long enough for real work, short
    /// enough that a model's accidental infinite loop comes back in reasonable time.
    pub const DEFAULT_TIMEOUT_MS: u32 = 30_000;

    /// The deployment's settings beside the app: who may embed the widget,
    /// what Python may reach, where packages come from.
    pub const CONFIG_FILE: &str = "sandpit.config.json";

    /// The code editor (CodeMirror, bundled by the build from
    /// www/editor/code-editor.js), relative to the app's root: the page
    /// loads it once the app is on screen.
    pub const EDITOR_MODULE: &str = "vendor/codemirror/code-editor.mjs";

    /// Where the page keeps the theme the person picked (`light` or `dark`;
    /// none follows the system): localStorage, so the first paint has it.
    pub const THEME_STORAGE_KEY: &str = "sandpit-theme";

    /// Where the page keeps the person's choice to offer no tools to browser
    /// agents (`off`; none: they are offered): localStorage.
    pub const WEB_MCP_STORAGE_KEY: &str = "sandpit-webmcp";

    /// The BroadcastChannel on which the service worker tells pages why
    /// installing the offline copy failed.
    pub const SERVICE_WORKER_CHANNEL: &str = "sandpit-service-worker";

    /// The embeddable widget: the app's page under this name, relative to its root.
    pub const WIDGET_PAGE: &str = "widget.html";

    /// The widget page's query parameter that picks its look: `light` or `dark`.
    pub const WIDGET_THEME_PARAM: &str = "theme";

    /// The widget page's query parameter that hides it: only the API is used.
    pub const WIDGET_HEADLESS_PARAM: &str = "headless";

    /// MCP protocol revisions the widget speaks, newest first: a client asks
    /// for the first.
    pub const MCP_PROTOCOL_VERSIONS: [&str; 4] =
        ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

    /// The `channel` of every message of the iframe transport of
    /// `@mcp-b/transports`, in which the widget speaks MCP over postMessage.
    pub const IFRAME_CHANNEL: &str = "mcp-iframe";

    /// The `type` of the iframe transport's messages that carry MCP.
    pub const IFRAME_MCP_TYPE: &str = "mcp";

    /// The `direction` of the iframe transport's messages from the embedding page.
    pub const IFRAME_TO_SERVER: &str = "client-to-server";

    /// The `direction` of the iframe transport's messages from the widget.
    pub const IFRAME_TO_CLIENT: &str = "server-to-client";

    /// The page's question in the iframe transport's handshake: is the widget listening?
    pub const IFRAME_CHECK_READY: &str = "mcp-check-ready";

    /// The widget's answer in the iframe transport's handshake, also sent
    /// unasked once it listens.
    pub const IFRAME_SERVER_READY: &str = "mcp-server-ready";

    /// The `type` of the widget's own messages on the iframe channel, beside MCP.
    pub const WIDGET_EVENT_TYPE: &str = "sandpit";

    /// The `event` of the widget's message that gives its new content `height`.
    pub const WIDGET_RESIZED: &str = "resize";

    /// The `_meta` key of a tool call that, set to false, asks for no output
    /// notifications: the result holds all of the output anyway.
    pub const STREAM_OUTPUT_META: &str = "sandpit/streamOutput";

    /// The key in a `run_python` call's `_meta` that runs the code in a fresh
    /// namespace of its own, dropped afterwards (`runMany` in sandpit-client.js).
    pub const FRESH_RUN_META: &str = "sandpit/freshNamespace";

    /// The experimental capability, in the widget's `initialize` result, that
    /// says how many sessions it runs at once (`{"maxWorkers": n}`).
    pub const POOL_CAPABILITY: &str = "sandpit/pool";

    /// The resource that lists what each of the widget's sessions is doing
    /// (JSON: `[{"name", "phase", "queued"}]`), for `sessions()` in sandpit-client.js.
    pub const SESSIONS_URI: &str = "sandpit://sessions";

    /// The URI of a file in a session's working directory (RFC 6570; both
    /// parts percent-encoded), as `resources/read` takes it.
    pub const FILE_URI_TEMPLATE: &str = "sandpit://sessions/{session}/files/{path}";

    /// Put in front of every HTML output, shown in a frame sandboxed to
    /// `allow-scripts` only (an opaque origin): the frame may run its own inline
    /// scripts and styles (tables, interactive charts) but load nothing from
    /// anywhere, so HTML cannot carry data out in an image or a request.
    pub const HTML_OUTPUT_CSP: &str =
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; \
font-src data:; media-src data: blob:\">";

    /// The key of the message an HTML output's frame sends with its height.
    pub const HTML_FRAME_HEIGHT_KEY: &str = "sandpitFrameHeight";

    /// The tallest an HTML output's frame grows (CSS pixels); beyond, it scrolls.
    pub const HTML_FRAME_MAX_HEIGHT: u32 = 640;

    /// Also in front of every HTML output: it reports the document's height to
    /// the page whenever it changes, so the frame can be as tall as its content.
    pub const HTML_OUTPUT_SIZER: &str = "<script>(()=>{const post=()=>parent.postMessage(\
{sandpitFrameHeight:document.documentElement.scrollHeight},\"*\");\
new ResizeObserver(post).observe(document.documentElement);addEventListener(\"load\",post)})()</script>";

    /// The widget page's query parameter that orders its runs: `oldest-first`
    /// (the newest at the bottom); by default the newest is at the top.
    pub const WIDGET_ORDER_PARAM: &str = "order";

    /// The widget page's query parameter that leaves parts out of every run it
    /// shows, a comma-separated list of `code` (the code listing) and `json`
    /// (the result as JSON).
    pub const WIDGET_HIDE_PARAM: &str = "hide";

    /// The `_meta` key of a `notifications/progress` that carries output as it
    /// is written, in its `message`: which stream it was written to (`stdout` or
    /// `stderr`). Progress without it is status ("running", package downloads).
    pub const PROGRESS_STREAM_META: &str = "sandpit/stream";

    /// The `_meta` key of a failed tool result (`isError` with no structured
    /// result) that gives a JSON-RPC error code for why: [`ERROR_INVALID_PARAMS`]
    /// for bad arguments, [`ERROR_INTERNAL`] when the call could not be made.
    pub const ERROR_CODE_META: &str = "sandpit/errorCode";

    /// JSON-RPC's code for invalid parameters: a tool's arguments did not fit its schema.
    pub const ERROR_INVALID_PARAMS: i32 = -32602;

    /// JSON-RPC's code for an internal error: the call could not be made (Python
    /// did not start, the run ended without a result).
    pub const ERROR_INTERNAL: i32 = -32603;

    /// The code of the widget's refusal of a page its deployment does not list in `embed.allow`.
    pub const ERROR_REFUSED: i32 = -32001;

    /// The code the JS client rejects with when the widget is gone (destroyed,
    /// or its frame closed) before a call ended, as the MCP SDK's ConnectionClosed.
    pub const ERROR_CLOSED: i32 = -32000;

    /// The code the JS client rejects with when the widget did not answer in time.
    pub const ERROR_WIDGET_TIMEOUT: i32 = -32004;
}
