//! Names that Rust, JavaScript and Python must spell alike: the one
//! definition of each.
//!
//! `make schema` writes them into `www/generated/names.js` (and its `.d.ts`),
//! which the JS imports; the Python runner gets the ones it needs from the worker
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

    /// The runner's Python packages as one gzipped JSON file, beside the
    /// worker's script, which fetches it (scripts/pack-python.mjs packs it).
    pub const RUNNER_PACK: &str = "python.json.gz";

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

    /// The app's version (Cargo.toml's), which the embedding client states too.
    pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

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
    /// loads it once Python's start is over (src/ui/editor.rs).
    pub const EDITOR_MODULE: &str = "vendor/codemirror/code-editor.mjs";

    /// Where the build puts KaTeX (its module, style sheet and fonts),
    /// relative to the app's root: the page, the widget and the embedding
    /// client load it from there the first time they show math.
    pub const KATEX_DIR: &str = "vendor/katex/";

    /// Where the page keeps the theme the person picked (`light` or `dark`;
    /// none follows the system): localStorage, so the first paint has it.
    pub const THEME_STORAGE_KEY: &str = "sandpit-theme";

    /// Where the page keeps the person's choice to offer no tools to browser
    /// agents (`off`; none: they are offered): localStorage.
    pub const WEB_MCP_STORAGE_KEY: &str = "sandpit-webmcp";

    /// The BroadcastChannel on which the service worker tells pages how
    /// installing the offline copy goes, and why it failed.
    pub const SERVICE_WORKER_CHANNEL: &str = "sandpit-service-worker";

    /// The `type` of the service worker's message, on [`SERVICE_WORKER_CHANNEL`],
    /// that gives how much of the offline copy is in (`done` and `total` bytes).
    pub const SERVICE_WORKER_INSTALL_PROGRESS: &str = "install-progress";

    /// The `type` of the service worker's message, on [`SERVICE_WORKER_CHANNEL`],
    /// that says why installing the offline copy failed (`reason`).
    pub const SERVICE_WORKER_INSTALL_FAILED: &str = "install-failed";

    /// The `type` of the page's message asking the service worker in control
    /// which version it serves; the answer has the same `type`, with
    /// `version`, `files`, `bytes` and `complete` (whether every file of the
    /// offline copy is kept).
    pub const SERVICE_WORKER_STATUS: &str = "status";

    /// The `type` of the installable page's message asking the service worker
    /// in control to keep the whole offline copy (the bundled wheels too);
    /// it answers with its status once they are kept, and says how it goes
    /// on [`SERVICE_WORKER_CHANNEL`].
    pub const SERVICE_WORKER_KEEP: &str = "keep";

    /// The `type` of the page's message that lets the waiting version take
    /// over now ("Reload to update").
    pub const SERVICE_WORKER_SKIP_WAITING: &str = "skip-waiting";

    /// The `type` of the page's message asking the active service worker to
    /// control it (a forced reload leaves the page without one).
    pub const SERVICE_WORKER_CLAIM: &str = "claim";

    /// The Cache Storage cache that holds the start-up snapshot (Python's
    /// memory after start-up). Outside the `sandpit-` caches, which the
    /// service worker prunes on every update: a snapshot is checked against
    /// its own key instead, so one made while the service worker installs
    /// is not thrown away by its activation.
    pub const SNAPSHOT_CACHE: &str = "python-snapshot";

    /// The start-up snapshot's entry in [`SNAPSHOT_CACHE`], relative to
    /// Pyodide's files (a URL, as Cache Storage needs; never fetched).
    pub const SNAPSHOT_ENTRY: &str = "startup-snapshot";

    /// The BroadcastChannel on which the snapshot maker tells pages it
    /// stored a start-up snapshot (`bytes`).
    pub const SNAPSHOT_CHANNEL: &str = "sandpit-snapshot";

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
    /// says how many sessions it runs at once (`{"maxWorkers": n}`: one per
    /// core; more sessions keep their workers, and their calls take turns).
    pub const POOL_CAPABILITY: &str = "sandpit/pool";

    /// The experimental capability in which an MCP client offers its own
    /// functions to the code it runs, in `initialize`'s client capabilities:
    /// `{"functions": [{"name", "description", "inputSchema"}], "sessions": [...]}`
    /// (`sessions`, when given, the only sessions whose code may call them).
    pub const HOST_FUNCTIONS_CAPABILITY: &str = "sandpit/functions";

    /// The request the widget sends the client that offered functions, for
    /// each call the code makes: `{"name", "arguments"}`, answered by
    /// `{"value"}` or a JSON-RPC error whose message the code reads.
    pub const HOST_CALL_METHOD: &str = "sandpit/functions/call";

    /// The JSON Schema validator the widget checks a host call's arguments
    /// with (`@cfworker/json-schema`), relative to the app's root, loaded
    /// the first time a client offers functions.
    pub const JSON_SCHEMA_MODULE: &str = "vendor/json-schema/validator.mjs";

    /// The resource that lists what each of the widget's sessions is doing
    /// (JSON: `[{"name", "phase", "queued", "resident", "why"}]`), for
    /// `sessions()` in sandpit-client.js.
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

    /// The shortest an HTML output's frame is (CSS pixels): a line.
    pub const HTML_FRAME_MIN_HEIGHT: u32 = 24;

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

    /// A display output's HTML, shown only inside a sandboxed frame.
    pub const MIME_HTML: &str = "text/html";

    /// A display output's SVG image, shown as an image (which runs no scripts).
    pub const MIME_SVG: &str = "image/svg+xml";

    /// A display output's PNG image, base64.
    pub const MIME_PNG: &str = "image/png";

    /// A display output's LaTeX (math).
    pub const MIME_LATEX: &str = "text/latex";

    /// A display output's Markdown source.
    pub const MIME_MARKDOWN: &str = "text/markdown";

    /// A display output's JSON data.
    pub const MIME_JSON: &str = "application/json";

    /// A display output's plain text, which every display output has.
    pub const MIME_TEXT: &str = "text/plain";

    /// A matplotlib figure's summary, beside its image: data for a model or
    /// a test to read, never what a renderer shows.
    pub const MIME_FIGURE_SUMMARY: &str = "application/vnd.sandpit.figure+json";

    /// The exception `sandpit.verify`'s checks raise when a claim is false
    /// (pyodide-loader/sandpit/verify.py defines it): its messages name
    /// formulas between `$` signs, which the renderers show with KaTeX.
    pub const VERIFICATION_ERROR: &str = "VerificationError";

    /// The parts of a display output, in the order its renderers prefer them
    /// (the page's and the embedding client's): the first the output has is
    /// shown. HTML first; then images, SVG before PNG, since it stays sharp
    /// at any size; then the text forms, plain text last.
    pub const DISPLAY_PREFERENCE: [&str; 7] = [
        MIME_HTML,
        MIME_SVG,
        MIME_PNG,
        MIME_LATEX,
        MIME_MARKDOWN,
        MIME_JSON,
        MIME_TEXT,
    ];
}
