// @ts-check
// Sandpit's embedding client: one ES module, no dependencies (the build
// writes the names it imports into it).
//
//   import { Sandpit } from "https://sandpit.example/sandpit-client.js";
//   const sandpit = await Sandpit.create({ container: document.querySelector("#out") });
//   const result = await sandpit.run("print(1)\n2 + 2", { onStdout: (text) => ... });
//
// It puts the widget (widget.html, from the same place as this file) in an
// iframe and talks MCP to it over postMessage, in the wire format of the
// iframe transport of @mcp-b/transports, so any MCP client can drive the same
// widget. See the README ("Embedding") for every option.
import {
  DEFAULT_SESSION,
  FILE_URI_TEMPLATE,
  IFRAME_CHANNEL,
  IFRAME_CHECK_READY,
  IFRAME_MCP_TYPE,
  IFRAME_SERVER_READY,
  IFRAME_TO_CLIENT,
  IFRAME_TO_SERVER,
  MCP_PROTOCOL_VERSIONS,
  STREAM_OUTPUT_META,
  WIDGET_EVENT_TYPE,
  WIDGET_HEADLESS_PARAM,
  WIDGET_PAGE,
  WIDGET_RESIZED,
  WIDGET_THEME_PARAM,
} from "./generated/names.js";

/**
 * @import { ToolCalls } from "./generated/protocol.js"
 */

/** This client's version; it follows the app's. */
export const VERSION = "0.1.0";

/** How long `Sandpit.create` waits for the widget to answer, unless told. */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * Callbacks a call may take: output as it is written, and progress.
 *
 * @typedef {{
 *   onStdout?: (text: string) => void,
 *   onStderr?: (text: string) => void,
 *   onStatus?: (message: string) => void,
 * }} Listeners
 */

/** An error from the widget: `code` is the JSON-RPC error code when there is one. */
export class SandpitError extends Error {
  /**
   * @param {string} message
   * @param {number | null} [code]
   */
  constructor(message, code = null) {
    super(message);
    this.name = "SandpitError";
    this.code = code;
  }
}

/** A Sandpit widget in an iframe on this page. */
export class Sandpit {
  /**
   * Creates the widget and waits until it answers.
   *
   * - `container`: element to put the iframe in (default `document.body`).
   * - `url`: the widget page (default: widget.html next to this file).
   * - `theme`: "light" or "dark" (default: the system's).
   * - `headless`: no visible widget, only the API.
   * - `autoResize`: follow the widget's content height (default true).
   * - `timeoutMs`: how long to wait for the widget to answer (default 30000).
   *
   * @param {ConstructorParameters<typeof Sandpit>[0] & { timeoutMs?: number }} [options]
   */
  static async create(options = {}) {
    const sandpit = new Sandpit(options);
    try {
      await sandpit.#connect(options.timeoutMs ?? CONNECT_TIMEOUT_MS);
    } catch (error) {
      sandpit.destroy();
      throw error;
    }
    return sandpit;
  }

  /** @type {HTMLIFrameElement} */
  #iframe;
  /** @type {string} */
  #origin;
  #nextId = 1;
  /** @type {Map<number, { resolve: (result: any) => void, reject: (error: SandpitError) => void, listeners: Listeners }>} */
  #pending = new Map();
  /** @type {(event: MessageEvent) => void} */
  #onMessage;
  #destroyed = false;
  /**
   * The server's `initialize` result: its name, version and protocol version.
   *
   * @type {any}
   */
  server = null;

  /**
   * @param {{
   *   container?: HTMLElement,
   *   url?: string | URL,
   *   theme?: "light" | "dark",
   *   headless?: boolean,
   *   autoResize?: boolean,
   * }} [options]
   */
  constructor({ container = document.body, url, theme, headless = false, autoResize = true } = {}) {
    const page = new URL(url ?? new URL(WIDGET_PAGE, import.meta.url));
    if (theme) page.searchParams.set(WIDGET_THEME_PARAM, theme);
    if (headless) page.searchParams.set(WIDGET_HEADLESS_PARAM, "");
    this.#origin = page.origin;
    this.#iframe = document.createElement("iframe");
    this.#iframe.src = page.href;
    this.#iframe.title = "Sandpit: Python sandbox";
    // On a cross-origin isolated page the widget may be isolated too (it
    // then stops a run that times out by interrupting it, keeping the
    // session), but only if the page delegates the permission.
    this.#iframe.allow = "cross-origin-isolated";
    this.#iframe.style.border = "0";
    this.#iframe.style.width = "100%";
    if (headless) this.#iframe.style.display = "none";
    this.#onMessage = (event) => this.#receive(event, autoResize);
    window.addEventListener("message", this.#onMessage);
    container.append(this.#iframe);
  }

  /** The iframe element, to style or move. */
  get iframe() {
    return this.#iframe;
  }

  /**
   * Runs Python. Resolves to the run's full result (see RunResult in the
   * README): `status`, `stdout`, `stderr`, `value`, `displays`, `error`,
   * `artifacts`, `files`, ... A run that raised still resolves, with
   * `status: "error"`; only a refused or impossible call rejects.
   *
   * Options: `session`, `timeoutSeconds`, `files` (`[{path, text}]` or
   * `[{path, content_base64}]`), `packages`, `tests` (Python run after the
   * code in its namespace: top-level asserts and `def test_*` functions,
   * reported in the result's `verification`), and callbacks `onStdout(text)`,
   * `onStderr(text)`, `onStatus(message)` (e.g. "running", "Loading tabulate: 12.0 KB of 40.0 KB").
   *
   * @param {string} code
   * @param {{
   *   session?: string,
   *   timeoutSeconds?: number,
   *   files?: ToolCalls["run_python"]["arguments"]["files"],
   *   packages?: string[],
   *   tests?: string,
   * } & Listeners} [options]
   * @returns {Promise<ToolCalls["run_python"]["result"]>}
   */
  async run(code, options = {}) {
    const { session, timeoutSeconds, files, packages, tests, onStdout, onStderr, onStatus } = options;
    /** @type {ToolCalls["run_python"]["arguments"]} */
    const args = { code };
    if (session !== undefined) args.session = session;
    if (timeoutSeconds !== undefined) args.timeout_seconds = timeoutSeconds;
    if (files !== undefined) args.files = files;
    if (packages !== undefined) args.packages = packages;
    if (tests !== undefined) args.tests = tests;
    const result = await this.#call("run_python", args, { onStdout, onStderr, onStatus });
    return result.structuredContent ?? Promise.reject(new SandpitError(textOf(result)));
  }

  /**
   * Checks code without running it: its syntax error, and where each import comes from.
   *
   * @param {string} code
   * @returns {Promise<ToolCalls["check_python"]["result"]>}
   */
  async check(code) {
    return this.#structured(await this.#call("check_python", { code }));
  }

  /**
   * Forgets a session's variables and deletes its working directory's files (default session "main"),
   * as the page's Reset does.
   *
   * @param {string} [session]
   * @returns {Promise<ToolCalls["reset_session"]["result"]>}
   */
  async reset(session) {
    return this.#structured(await this.#call("reset_session", session === undefined ? {} : { session }));
  }

  /**
   * Reads a file from a session's working directory (files the code wrote).
   * Resolves to `{ mimeType, text }` for text, `{ mimeType, bytes }` otherwise.
   *
   * @param {string} path
   * @param {{ session?: string }} [options]
   * @returns {Promise<{ mimeType: string, text: string } | { mimeType: string, bytes: Uint8Array }>}
   */
  async readFile(path, { session = DEFAULT_SESSION } = {}) {
    const encode = (/** @type {string} */ part) => encodeURIComponent(part);
    const uri = FILE_URI_TEMPLATE.replace("{session}", () => encode(session)).replace("{path}", () =>
      path.split("/").map(encode).join("/"),
    );
    const { contents } = await this.#request("resources/read", { uri });
    const [content] = contents;
    if (content.text !== undefined) return { mimeType: content.mimeType, text: content.text };
    const bytes = Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0));
    return { mimeType: content.mimeType, bytes };
  }

  /** Removes the widget; pending calls reject. */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    window.removeEventListener("message", this.#onMessage);
    this.#iframe.remove();
    for (const { reject } of this.#pending.values()) reject(new SandpitError("the Sandpit widget was destroyed"));
    this.#pending.clear();
  }

  /** @param {number} timeoutMs */
  async #connect(timeoutMs) {
    const ready = new Promise((resolve) => (this.#serverReady = resolve));
    this.#iframe.addEventListener("load", () => this.#post(IFRAME_CHECK_READY));
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    /** @type {Promise<never>} */
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new SandpitError(`the Sandpit widget at ${this.#origin} did not answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([ready, timeout]);
      this.server = await Promise.race([
        this.#request("initialize", {
          protocolVersion: MCP_PROTOCOL_VERSIONS[0],
          capabilities: {},
          clientInfo: { name: "sandpit-client", version: VERSION },
        }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
    this.#post({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /** @type {(value?: unknown) => void} */
  #serverReady = () => {};

  /** @param {any} result */
  #structured(result) {
    if (result.isError) throw new SandpitError(textOf(result));
    return result.structuredContent;
  }

  /**
   * Asks the widget only for what a listener will use: progress when there
   * is an `onStatus`, output as it is written when there is an `onStdout` or
   * `onStderr` (the result holds all of it anyway). Each notification is one
   * more message between the widget and this page.
   *
   * @template {keyof ToolCalls} Name
   * @param {Name} name
   * @param {ToolCalls[Name]["arguments"]} args
   * @param {Listeners} [listeners]
   */
  #call(name, args, listeners = {}) {
    /** @type {Record<string, unknown>} */
    const _meta = {};
    if (listeners.onStatus) _meta.progressToken = `p${this.#nextId}`;
    if (!listeners.onStdout && !listeners.onStderr) _meta[STREAM_OUTPUT_META] = false;
    return this.#request("tools/call", { name, arguments: args, _meta }, listeners);
  }

  /**
   * @param {string} method
   * @param {object} params
   * @param {Listeners} [listeners]
   * @returns {Promise<any>}
   */
  #request(method, params, listeners = {}) {
    if (this.#destroyed) return Promise.reject(new SandpitError("the Sandpit widget was destroyed"));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, listeners });
      this.#post({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** @param {object | string} payload */
  #post(payload) {
    this.#iframe.contentWindow?.postMessage(
      { channel: IFRAME_CHANNEL, type: IFRAME_MCP_TYPE, direction: IFRAME_TO_SERVER, payload },
      this.#origin,
    );
  }

  /**
   * @param {MessageEvent} event
   * @param {boolean} autoResize
   */
  #receive(event, autoResize) {
    if (event.source !== this.#iframe.contentWindow || event.origin !== this.#origin) return;
    const data = event.data;
    if (data?.channel !== IFRAME_CHANNEL) return;
    if (data.type === WIDGET_EVENT_TYPE && data.event === WIDGET_RESIZED) {
      if (autoResize) this.#iframe.style.height = `${data.height}px`;
      return;
    }
    if (data.type !== IFRAME_MCP_TYPE || data.direction !== IFRAME_TO_CLIENT) return;
    const message = data.payload;
    if (message === IFRAME_SERVER_READY) {
      this.#serverReady();
      return;
    }
    if (message?.method === "notifications/message") {
      const { requestId, stream, text } = message.params?.data ?? {};
      const listeners = this.#pending.get(requestId)?.listeners;
      if (stream === "stdout") listeners?.onStdout?.(text);
      if (stream === "stderr") listeners?.onStderr?.(text);
      return;
    }
    if (message?.method === "notifications/progress") {
      const id = Number(String(message.params?.progressToken).slice(1));
      this.#pending.get(id)?.listeners.onStatus?.(message.params.message);
      return;
    }
    const pending = this.#pending.get(message?.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.error) pending.reject(new SandpitError(message.error.message, message.error.code));
    else pending.resolve(message.result);
  }
}

/**
 * The text blocks of a tool result, joined.
 *
 * @param {{ content?: { type: string, text?: string }[] }} result
 */
function textOf(result) {
  return (result.content ?? [])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}
