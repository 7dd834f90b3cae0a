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

    /// The URI of a file in a session's working directory (RFC 6570; both
    /// parts percent-encoded), as `resources/read` takes it.
    pub const FILE_URI_TEMPLATE: &str = "sandpit://sessions/{session}/files/{path}";
}
