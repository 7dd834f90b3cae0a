// @ts-check
// The standalone page's tools for agents, bound from Rust in src/ui/agents.rs:
// WebMCP (browser agents call `document.modelContext` tools) and the local
// relay of @mcp-b/webmcp-local-relay (desktop MCP clients reach the open page
// over a loopback WebSocket). The tools themselves, and what a call returns,
// come from Rust: here they are only registered and carried.

/**
 * An MCP tool descriptor, as Rust lists them (src/tools.json).
 *
 * @typedef {{ name: string, title: string, description: string, inputSchema: object, annotations: { readOnlyHint: boolean } }} ToolDescriptor
 */

/**
 * Carries out a tool call: resolves to its CallToolResult.
 *
 * @typedef {(name: string, args: object) => Promise<CallToolResult>} Execute
 */

/**
 * A tool call's result as MCP has it: content blocks, and the structured result.
 *
 * @typedef {{ content: { type: string, text?: string }[], structuredContent?: { artifacts?: object[] } & Record<string, unknown> }} CallToolResult
 */

/**
 * The page's model context, where the browser (or a polyfill) has one: DOM's types do not know it yet.
 *
 * @typedef {{ registerTool?: (tool: object) => Promise<unknown> }} ModelContext
 */

/**
 * Registers `tools` (MCP tool descriptors) on the page's model context;
 * `execute(name, args)` resolves to a CallToolResult. Resolves to how many
 * were registered: 0 where the browser has no model context.
 *
 * @param {ToolDescriptor[]} tools
 * @param {Execute} execute
 */
export async function registerWebMcp(tools, execute) {
  /** @type {ModelContext | undefined} */
  const context = Reflect.get(document, "modelContext") ?? Reflect.get(navigator, "modelContext");
  if (typeof context?.registerTool !== "function") return 0;
  let registered = 0;
  for (const { name, title, description, inputSchema, annotations } of tools) {
    try {
      await context.registerTool({
        name,
        title,
        description,
        inputSchema,
        annotations: { readOnlyHint: annotations.readOnlyHint },
        execute: (/** @type {object | undefined} */ args) => execute(name, args ?? {}),
      });
      registered += 1;
    } catch (error) {
      console.warn(`sandpit: WebMCP refused the tool ${name}: ${/** @type {Error} */ (error)?.message ?? error}`);
    }
  }
  return registered;
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
 * compare it with the one the server named. Returns a function that
 * disconnects for good.
 *
 * @param {number} port
 * @param {ToolDescriptor[]} tools
 * @param {Execute} execute
 * @param {(state: "connecting" | "connected" | "disconnected", detail: string) => void} onState
 * @param {string} [token]
 */
export function connectRelay(port, tools, execute, onState, token) {
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
    opened.onmessage = async (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      switch (message?.type) {
        case "server-hello":
          send({ type: "hello", tabId, origin: location.origin, url: location.href, title: document.title, token });
          send({ type: "tools/list", tools });
          onState("connected", where);
          break;
        case "ping":
          send({ type: "pong" });
          break;
        case "invoke": {
          const result = await execute(message.toolName, message.args ?? {});
          send({ type: "result", callId: message.callId, result: withinRelayLimit(result) });
          break;
        }
        default:
          break;
      }
    };
    opened.onclose = (event) => {
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
