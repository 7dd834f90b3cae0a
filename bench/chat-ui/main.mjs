// @ts-check
// The chat-UI path's page for `make bench`, bundled by bench/chat-ui.mjs:
// what a chat UI built on the official MCP SDK does with Sandpit's widget.
// It frames the widget, connects the SDK's Client over @mcp-b/transports'
// IframeParentTransport (as tests/e2e/widget-demo-sdk.test.mjs does), and
// calls run_python as soon as the widget has answered `initialize`, without
// waiting for the page to settle (its warm spare and snapshot maker then
// start while the calls go on). `window.chatUi.session` is what the harness drives.
import { IframeParentTransport } from "@mcp-b/transports";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";

/**
 * One call's round trip on the page clock, and how it ended.
 *
 * @typedef {{ ms: number, ok: boolean, error: string | null }} Call
 */

/**
 * Connects to the widget at `widgetUrl`, then at once calls run_python with
 * `first` (it waits for Python to load) and each of `codes` in turn, each
 * call sent when the one before has answered. Times are the page clock's.
 *
 * @param {string} widgetUrl
 * @param {string} first
 * @param {string[]} codes
 */
async function session(widgetUrl, first, codes) {
  const started = performance.now();
  const iframe = document.createElement("iframe");
  iframe.src = widgetUrl;
  iframe.title = "Sandpit";
  document.body.append(iframe);
  const client = new Client({ name: "bench-chat-ui", version: "1.0.0" });
  await client.connect(new IframeParentTransport({ iframe, targetOrigin: new URL(widgetUrl).origin }));
  const initializedAt = performance.now();
  /** @param {string} code @returns {Promise<Call>} */
  const call = async (code) => {
    const sent = performance.now();
    const result = /** @type {{ isError?: boolean, content: { type: string, text?: string }[] }} */ (
      await client.callTool({ name: "run_python", arguments: { code } })
    );
    const text = result.content.find((block) => block.type === "text")?.text ?? "";
    return { ms: performance.now() - sent, ok: result.isError !== true, error: result.isError ? text.slice(0, 300) : null };
  };
  const firstCall = await call(first);
  const firstResultAt = performance.now();
  const seriesStarted = performance.now();
  /** @type {Call[]} */
  const calls = [];
  for (const code of codes) calls.push(await call(code));
  const seriesMs = performance.now() - seriesStarted;
  await client.close();
  return { initializeMs: initializedAt - started, firstCall, firstResultAt, calls, seriesMs };
}

const chatUi = { session, opened: /** @type {any} */ (null) };
window.chatUi = chatUi;

// `?widget=URL&run=CODE`: a first visit (figure 15), the call made as the page opens.
const query = new URL(location.href).searchParams;
const widget = query.get("widget");
const run = query.get("run");
if (widget !== null && run !== null) {
  session(widget, run, []).then(
    (opened) => (chatUi.opened = opened),
    (error) => (chatUi.opened = { firstCall: { ok: false, error: String(error?.message ?? error) }, firstResultAt: null }),
  );
}
