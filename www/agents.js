// @ts-check
// The standalone page's tools for agents, bound from Rust in src/surfaces/agents.rs:
// WebMCP (browser agents call `document.modelContext` tools) and the local
// relay of @mcp-b/webmcp-local-relay, or Sandpit's own MCP server (desktop
// MCP clients reach the open page over a loopback WebSocket). The tools
// themselves, what a call returns and how long a call may take come from
// Rust: here they are only registered and carried.

/**
 * An MCP tool descriptor, as Rust lists them (src/tools.json).
 *
 * @typedef {{
 *   name: string,
 *   title: string,
 *   description: string,
 *   inputSchema: object,
 *   annotations: { readOnlyHint: boolean, untrustedContentHint?: boolean },
 * }} ToolDescriptor
 */

/**
 * Carries out a tool call: resolves to its CallToolResult. `signal` stops the
 * run; `bridged` keeps it within the local relay's limit (src/mcp/bridge.rs);
 * `onOutput(stream, text)` hears output as it is written.
 *
 * @typedef {(
 *   name: string,
 *   args: object,
 *   signal: AbortSignal,
 *   bridged: boolean,
 *   onOutput?: (stream: "stdout" | "stderr", text: string) => void,
 * ) => Promise<CallToolResult>} Execute
 */

/**
 * How calls through the local relay are kept within its limit: when the page
 * stops a run still going, and what the description of `tool` (run_python) adds there.
 *
 * @typedef {{ stopAfterMs: number, tool: string, toolNote: string }} RelayBudget
 */

/**
 * A tool call's result as MCP has it: content blocks, and the structured result.
 *
 * @typedef {{ content: { type: string, text?: string }[], structuredContent?: { artifacts?: object[] } & Record<string, unknown> }} CallToolResult
 */

/**
 * The page's model context, where the browser (or a polyfill) has one: DOM's types do not know it yet.
 *
 * @typedef {{ registerTool?: (tool: object, options?: { signal?: AbortSignal }) => Promise<unknown> }} ModelContext
 */

/**
 * The document's model context (the current WebMCP draft's place for it),
 * else the navigator's, where only an older browser or polyfill has one.
 *
 * @returns {ModelContext | undefined}
 */
function modelContext() {
  return Reflect.get(document, "modelContext") ?? Reflect.get(navigator, "modelContext");
}

/**
 * Registers `tools` (MCP tool descriptors) on the page's model context until
 * `signal` aborts, which unregisters them and stops the runs their calls
 * started. Resolves to how many were registered: 0 where the browser has no
 * model context, or when `signal` aborted first.
 *
 * @param {ToolDescriptor[]} tools
 * @param {Execute} execute
 * @param {AbortSignal} signal
 */
export async function registerWebMcp(tools, execute, signal) {
  const context = modelContext();
  if (typeof context?.registerTool !== "function") return 0;
  let registered = 0;
  for (const { name, title, description, inputSchema, annotations } of tools) {
    if (signal.aborted) break;
    try {
      await context.registerTool(
        {
          name,
          title,
          description,
          inputSchema,
          // WebMCP's hints (a browser drops any other): whether the result may
          // carry what the code read from files or the network.
          annotations: {
            readOnlyHint: annotations.readOnlyHint,
            untrustedContentHint: annotations.untrustedContentHint ?? false,
          },
          execute: (/** @type {object | undefined} */ args) => execute(name, args ?? {}, signal, false),
        },
        { signal },
      );
      registered += 1;
    } catch (error) {
      if (signal.aborted) break;
      console.warn(`sandpit: WebMCP refused the tool ${name}: ${/** @type {Error} */ (error)?.message ?? error}`);
    }
  }
  return registered;
}

/** The `service` the third-party relay names in its hello. */
const RELAY_SERVICE = "webmcp-local-relay";

/**
 * `tools` with the budget's note added to its tool's description.
 *
 * @param {ToolDescriptor[]} tools
 * @param {RelayBudget} budget
 */
function withNote(tools, budget) {
  return tools.map((tool) => (tool.name === budget.tool ? { ...tool, description: tool.description + budget.toolNote } : tool));
}

/** The relay closes connections whose messages are larger than this. */
const RELAY_MAX_MESSAGE = 1_000_000;
/** How long to wait before connecting again after the relay went away. */
const RECONNECT_MS = 2_000;

/**
 * Connects to the local relay on 127.0.0.1:`port`, offers `tools`, answers
 * its calls through `execute`, and reconnects when it goes away.
 * `onState(state, detail)` hears "connecting", "connected" and "disconnected".
 * `token` is the pairing token Sandpit's own MCP server (mcp-server/) gave
 * the person: it goes in the hello, and the detail shows it so the person can
 * compare it with the one the server named. Calls through the third-party
 * relay (its hello names its service) are kept within its limit (`budget`);
 * Sandpit's own server has none, streams output (`output` messages) and
 * cancels (`cancel`). Returns a function that disconnects for good.
 *
 * @param {number} port
 * @param {ToolDescriptor[]} tools
 * @param {Execute} execute
 * @param {(state: "connecting" | "connected" | "disconnected", detail: string) => void} onState
 * @param {string | undefined} token
 * @param {RelayBudget} budget
 */
export function connectRelay(port, tools, execute, onState, token, budget) {
  const tabId = crypto.randomUUID();
  /** @type {WebSocket | null} */
  let socket = null;
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let retry;

  const connect = () => {
    const where = token ? `ws://127.0.0.1:${port}, pairing token ${token}` : `ws://127.0.0.1:${port}`;
    onState("connecting", where);
    const opened = new WebSocket(`ws://127.0.0.1:${port}`, ["webmcp.v1"]);
    socket = opened;
    const send = (/** @type {object} */ message) => opened.send(JSON.stringify(message));
    /** Whether this is the third-party relay, whose calls have a limit. */
    let bridged = false;
    /**
     * Calls in progress, to cancel.
     *
     * @type {Map<string, AbortController>}
     */
    const calls = new Map();
    opened.onmessage = async (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      switch (message?.type) {
        case "server-hello":
          bridged = message.service === RELAY_SERVICE;
          send({ type: "hello", tabId, origin: location.origin, url: location.href, title: document.title, token });
          send({ type: "tools/list", tools: bridged ? withNote(tools, budget) : tools });
          onState("connected", where);
          break;
        case "ping":
          send({ type: "pong" });
          break;
        case "invoke": {
          const { callId } = message;
          const stop = new AbortController();
          calls.set(callId, stop);
          // The relay answers its client with an error once its limit is up
          // and drops what comes later: the run stops just before.
          const giveUp = bridged ? setTimeout(() => stop.abort(), budget.stopAfterMs) : undefined;
          const onOutput = bridged
            ? undefined
            : (/** @type {string} */ stream, /** @type {string} */ text) => send({ type: "output", callId, stream, text });
          try {
            const result = await execute(message.toolName, message.args ?? {}, stop.signal, bridged, onOutput);
            send({ type: "result", callId, result: bridged ? withinRelayLimit(result) : result });
          } finally {
            clearTimeout(giveUp);
            calls.delete(callId);
          }
          break;
        }
        case "cancel":
          calls.get(message.callId)?.abort();
          break;
        default:
          break;
      }
    };
    opened.onclose = (event) => {
      // Nobody will read these calls' results.
      for (const stop of calls.values()) stop.abort();
      // Once stopped, the page has let go of `onState`: nobody is listening.
      if (stopped) return;
      onState("disconnected", event.reason || `the relay on port ${port} is not running`);
      retry = setTimeout(connect, RECONNECT_MS);
    };
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    socket?.close();
  };
}

/**
 * A result the relay accepts: it drops the connection on messages over 1 MB,
 * so large figures and embedded files give way to a note (the run's text,
 * value and error always fit: the runner caps them far below that).
 *
 * @param {CallToolResult} result
 * @returns {CallToolResult}
 */
function withinRelayLimit(result) {
  if (JSON.stringify(result).length < RELAY_MAX_MESSAGE * 0.9) return result;
  const content = result.content.filter((block) => block.type === "text");
  content.push({
    type: "text",
    text: "Figures and files were left out: the local relay carries at most 1 MB per result.",
  });
  const structuredContent = result.structuredContent && {
    ...result.structuredContent,
    displays: [],
    artifacts: (result.structuredContent.artifacts ?? []).map((a) => ({ ...a, content_base64: null })),
  };
  return { ...result, content, structuredContent };
}
