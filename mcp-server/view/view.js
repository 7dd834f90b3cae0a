// @ts-check
// Sandpit's MCP App view: shown by the host for one call of run_python,
// check_python or reset_session. It claims that call from the local server,
// runs it in Sandpit's widget (a frame from the Sandpit bundle, whose worker
// is locked down as on every other surface), shows the code and what it did,
// and hands the widget's CallToolResult, unchanged, back to the server
// through an app-only tool. The server bundles this file into the view's HTML.
import { IframeParentTransport } from "@mcp-b/transports";
import { App } from "@modelcontextprotocol/ext-apps";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

import { PROGRESS_STREAM_META, STREAM_OUTPUT_META, WIDGET_PAGE } from "../../www/generated/names.js";
import { CLAIM_TOOL, OUTPUT_TOOL, RESULT_TOOL } from "../lib/view-tools.mjs";
/** How long output gathers before it goes to the server in one call. */
const OUTPUT_BATCH_MS = 100;
/**
 * Whether Python runs on this view's own thread: a host that frames views
 * without allow-same-origin gives them an opaque origin, which the widget
 * inside inherits, and where no module worker starts (www/thread-worker.js).
 */
const ON_OUR_THREAD = self.origin === "null";
/** There, a run asking for no limit gets this one: a run that never pauses would hold the view for good. */
const OUR_THREAD_TIMEOUT_SECONDS = 30;
/** What a result says there, for the model: what running here costs. */
const OUR_THREAD_NOTE =
  "Note: Python ran on the view's own thread (this host frames MCP App views without allow-same-origin, " +
  "where no worker can start), so it cannot be interrupted: a run that reaches its timeout ends the view's " +
  "interpreter, and the session's earlier runs are replayed into a new one; a stop takes effect at the " +
  `timeout or when the code awaits; timeout_seconds 0 (no limit) is ${OUR_THREAD_TIMEOUT_SECONDS} s here.`;
/** How long a call to the widget may take beyond the run's own timeout (loading Python and packages). */
const LOAD_ALLOWANCE_MS = 180_000;

/**
 * @typedef {{ content: { type: string, text?: string }[], structuredContent?: Record<string, any>, isError?: boolean }} CallToolResult
 * @typedef {import("../lib/ledger.mjs").Replay} Replay
 */

const { tool, bundle } = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("sandpit-view")).textContent ?? "{}");
/** @param {string} id */
const part = (id) => /** @type {HTMLElement} */ (document.querySelector(`[data-testid="${id}"]`));
const status = part("view-status");
const codeView = part("view-code");
const output = part("view-output");
const figures = part("view-figures");
const errorView = part("view-error");

const app = new App({ name: "Sandpit", version: "0.1.0" }, {}, { autoResize: true });
const cancel = new AbortController();
/** @type {Promise<void> | null} */
let handled = null;
app.ontoolinput = ({ arguments: args }) => {
  handled ??= handle(args ?? {}).catch((error) => show(`Sandpit could not run this: ${error?.message ?? error}`, true));
};
app.ontoolcancelled = () => cancel.abort();
await app.connect();

/**
 * Claims the call this view was shown for, runs it, and hands back its result.
 *
 * @param {Record<string, any>} args
 */
async function handle(args) {
  if (typeof args.code === "string") {
    codeView.textContent = args.code;
    codeView.hidden = false;
  }
  const claimed = await app.callServerTool({ name: CLAIM_TOOL, arguments: { tool, arguments: args } });
  const { call, replay = [] } = /** @type {{ call?: string | null, replay?: Replay[] }} */ (claimed.structuredContent ?? {});
  if (!call) {
    status.textContent = "This call was answered already.";
    return;
  }
  status.textContent = ON_OUR_THREAD ? "Starting Python on this view's own thread…" : "Starting Python…";
  const limited = ON_OUR_THREAD && args.timeout_seconds === 0 ? { ...args, timeout_seconds: OUR_THREAD_TIMEOUT_SECONDS } : args;
  const { result: ran, failed } = await runInWidget(limited, replay, forwarder(call));
  /** @type {CallToolResult} */
  const result = ON_OUR_THREAD ? { ...ran, content: [...ran.content, { type: "text", text: OUR_THREAD_NOTE }] } : ran;
  await app.callServerTool({ name: RESULT_TOOL, arguments: { call, result, failed } });
  render(result);
}

/**
 * Runs the call in Sandpit's widget, after replaying the session's ledger
 * (each view starts a fresh interpreter); answers its result and the
 * replays that failed, by ledger number, for the server to drop.
 *
 * @param {Record<string, any>} args
 * @param {Replay[]} replay
 * @param {{ add: (stream: "stdout" | "stderr", text: string) => void, flush: () => Promise<void> }} forward
 * @returns {Promise<{ result: CallToolResult, failed: { seq: number, reason: string }[] }>}
 */
async function runInWidget(args, replay, forward) {
  const url = new URL(WIDGET_PAGE, bundle);
  const iframe = document.createElement("iframe");
  // Hidden: this view shows the run itself, replays left out. Not headless,
  // so the widget's own run list is there to inspect.
  iframe.className = "sandpit";
  iframe.title = "Sandpit";
  iframe.src = url.href;
  document.body.append(iframe);
  const client = new Client({ name: "sandpit-mcp-view", version: "0.1.0" });
  // Output comes as progress (whose `_meta` names its stream); the same as log messages is not needed.
  client.setNotificationHandler(ProgressNotificationSchema, ({ params }) => {
    const stream = params._meta?.[PROGRESS_STREAM_META];
    if (stream === "stdout" || stream === "stderr") {
      output.hidden = false;
      output.textContent += params.message ?? "";
      forward.add(stream, params.message ?? "");
      return;
    }
    if (params.message) status.textContent = params.message === "running" ? "Running…" : params.message;
  });
  // Here the widget has an opaque origin too (sandbox flags reach nested
  // frames), which only "*" reaches; it is this view's own frame of the bundle.
  const targetOrigin = ON_OUR_THREAD ? "*" : url.origin;
  await client.connect(new IframeParentTransport({ iframe, targetOrigin }));
  await client.setLoggingLevel("warning");
  const timeoutMs = (/** @type {number} */ (args.timeout_seconds) || 3600) * 1000 + LOAD_ALLOWANCE_MS;
  const options = { signal: cancel.signal, timeout: timeoutMs, resetTimeoutOnProgress: true };
  /** @type {{ seq: number, reason: string }[]} */
  const failed = [];
  try {
    for (const { seq, arguments: earlier } of replay) {
      status.textContent = "Bringing the session back…";
      const replayed = /** @type {CallToolResult} */ (
        await client.callTool({ name: "run_python", arguments: earlier, _meta: { [STREAM_OUTPUT_META]: false } }, undefined, options)
      );
      const run = replayed.structuredContent;
      if (run?.status !== "ok") failed.push({ seq, reason: run?.error ? `${run.error.type}: ${run.error.message}` : String(run?.status) });
    }
    const _meta = { progressToken: "run" };
    const result = await client.callTool({ name: tool, arguments: args, _meta }, undefined, options);
    await forward.flush();
    return { result: /** @type {CallToolResult} */ (result), failed };
  } catch (error) {
    if (cancel.signal.aborted) return { result: { content: [{ type: "text", text: "The run was cancelled." }], isError: true }, failed };
    throw error;
  }
}

/**
 * Hands output on to the server for call `call`, gathered for OUTPUT_BATCH_MS
 * at a time (each hand-over is a tool call through the host), in order.
 *
 * @param {string} call
 */
function forwarder(call) {
  /** @type {{ stream: "stdout" | "stderr", text: string }[]} */
  let gathered = [];
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let sending = Promise.resolve();
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = gathered;
    gathered = [];
    sending = sending.then(async () => {
      for (const { stream, text } of batch) {
        await app.callServerTool({ name: OUTPUT_TOOL, arguments: { call, stream, text } }).catch(() => {});
      }
    });
    return sending;
  };
  return {
    add(/** @type {"stdout" | "stderr"} */ stream, /** @type {string} */ text) {
      const last = gathered.at(-1);
      if (last?.stream === stream) last.text += text;
      else gathered.push({ stream, text });
      timer ??= setTimeout(flush, OUTPUT_BATCH_MS);
    },
    flush,
  };
}

/**
 * Shows what the call came to, compactly: output, value, figures, the error.
 *
 * @param {CallToolResult} result
 */
function render(result) {
  const run = result.structuredContent;
  const text = result.content.find((block) => block.type === "text")?.text ?? "";
  if (!run || !("status" in run)) {
    show(text, result.isError === true);
    return;
  }
  status.textContent = run.status === "ok" ? `Ran in ${Math.round(run.duration_ms)} ms` : `Status: ${run.status}`;
  const written = (run.output ?? []).map((/** @type {{ text: string }} */ chunk) => chunk.text).join("");
  const shown = written + (run.value ? `${written && !written.endsWith("\n") ? "\n" : ""}→ ${run.value.repr}` : "");
  output.textContent = shown;
  output.hidden = shown === "";
  for (const block of result.content) {
    const image = /** @type {{ type: string, data?: string, mimeType?: string }} */ (block);
    if (image.type !== "image") continue;
    const img = document.createElement("img");
    img.alt = "figure";
    img.src = `data:${image.mimeType};base64,${image.data}`;
    figures.append(img);
  }
  if (run.error) {
    const where = run.error.line ? ` (line ${run.error.line})` : "";
    errorView.textContent = `${run.error.type}: ${run.error.message}${where}`;
    errorView.hidden = false;
  }
}

/**
 * @param {string} text
 * @param {boolean} isError
 */
function show(text, isError) {
  status.textContent = isError ? "Not run" : "Done";
  errorView.textContent = isError ? text : "";
  errorView.hidden = !isError;
  if (!isError) {
    output.textContent = text;
    output.hidden = false;
  }
}
