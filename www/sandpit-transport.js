// @ts-check
// The embedding client's transport (sandpit-client.js): JSON-RPC with the
// widget in its iframe, over postMessage in the wire format of the iframe
// transport of @mcp-b/transports. The build writes this module into
// sandpit-client.js: the client stays one module.
import {
  ERROR_CLOSED,
  ERROR_INTERNAL,
  ERROR_INVALID_PARAMS,
  ERROR_REFUSED,
  ERROR_WIDGET_TIMEOUT,
  IFRAME_CHANNEL,
  IFRAME_CHECK_READY,
  IFRAME_MCP_TYPE,
  IFRAME_SERVER_READY,
  IFRAME_TO_CLIENT,
  IFRAME_TO_SERVER,
  PROGRESS_STREAM_META,
  STREAM_OUTPUT_META,
  WIDGET_EVENT_TYPE,
  WIDGET_HEADLESS_PARAM,
  WIDGET_HIDE_PARAM,
  WIDGET_ORDER_PARAM,
  WIDGET_PAGE,
  WIDGET_RESIZED,
  WIDGET_THEME_PARAM,
} from "./generated/names.js";

/** @import { ToolCalls } from "./generated/protocol.js" */

/**
 * Callbacks a call may take: output as it is written, and progress.
 *
 * @typedef {{
 *   onStdout?: (text: string) => void,
 *   onStderr?: (text: string) => void,
 *   onStatus?: (message: string) => void,
 * }} Listeners
 */

/**
 * How the widget's page is asked to look (see `Sandpit.create`).
 *
 * @typedef {{
 *   theme?: "light" | "dark",
 *   headless?: boolean,
 *   order?: "newest-first" | "oldest-first",
 *   hideCode?: boolean,
 *   hideJson?: boolean,
 * }} PageOptions
 */

/**
 * What one message from the widget means to the client: its new height, its
 * readiness, output or status for the call `id`, the answer to call `id`,
 * or nothing it knows.
 *
 * @typedef {{ kind: "resized", height: number }
 *   | { kind: "ready" }
 *   | { kind: "stdout" | "stderr" | "status", id: number, text: string }
 *   | { kind: "answer", id: number, result?: any, error?: { message: string, code?: number } }
 *   | { kind: "request", id: number, method: string, params: any }
 *   | { kind: "cancelled", id: number }
 *   | { kind: "other" }} WidgetMessage
 */

/**
 * Answers the widget's own requests (a host call): resolves to the
 * result, or rejects with the error whose message the widget passes on;
 * `signal` aborts when the widget cancels the request.
 *
 * @typedef {(method: string, params: any, signal: AbortSignal) => Promise<unknown>} RequestHandler
 */

/**
 * The `code` of every `SandpitError` that is not a JSON-RPC error from the
 * widget: `INVALID_PARAMS` (arguments the tool or this client refused, e.g.
 * code that is not a string), `INTERNAL` (the call could not be made: Python
 * did not start), `CLOSED` (the widget was destroyed before the call ended),
 * `WIDGET_TIMEOUT` (the widget did not answer in time). A refused page gets
 * the widget's own code, `REFUSED`.
 */
export const ERROR_CODES = Object.freeze({
  INVALID_PARAMS: ERROR_INVALID_PARAMS,
  INTERNAL: ERROR_INTERNAL,
  CLOSED: ERROR_CLOSED,
  WIDGET_TIMEOUT: ERROR_WIDGET_TIMEOUT,
  REFUSED: ERROR_REFUSED,
});

/** Why a call was refused or could not be made: `code` is a JSON-RPC error code (see ERROR_CODES). */
export class SandpitError extends Error {
  /**
   * @param {string} message
   * @param {number} code
   */
  constructor(message, code) {
    super(message);
    this.name = "SandpitError";
    /** @type {number} */
    this.code = code;
  }
}

/**
 * The widget page's URL: `url`, else widget.html beside `base`, with what
 * `options` ask of its look as query parameters.
 *
 * @param {string | URL | undefined} url
 * @param {string | URL} base
 * @param {PageOptions} options
 */
export function widgetPage(url, base, options) {
  const page = new URL(url ?? new URL(WIDGET_PAGE, base));
  if (options.theme) page.searchParams.set(WIDGET_THEME_PARAM, options.theme);
  if (options.headless) page.searchParams.set(WIDGET_HEADLESS_PARAM, "");
  if (options.order === "oldest-first") page.searchParams.set(WIDGET_ORDER_PARAM, options.order);
  const hidden = [options.hideCode && "code", options.hideJson && "json"].filter(Boolean).join(",");
  if (hidden) page.searchParams.set(WIDGET_HIDE_PARAM, hidden);
  return page;
}

/**
 * Reads one message of the iframe channel (`data`, from the widget's own
 * window and origin): output comes as log messages or, with a call's
 * progress token `p<id>`, as progress that names its stream; progress
 * without one is status.
 *
 * @param {any} data
 * @returns {WidgetMessage}
 */
export function readWidgetMessage(data) {
  if (data?.channel !== IFRAME_CHANNEL) return { kind: "other" };
  if (data.type === WIDGET_EVENT_TYPE && data.event === WIDGET_RESIZED) return { kind: "resized", height: data.height };
  if (data.type !== IFRAME_MCP_TYPE || data.direction !== IFRAME_TO_CLIENT) return { kind: "other" };
  const message = data.payload;
  if (message === IFRAME_SERVER_READY) return { kind: "ready" };
  if (message?.method === "notifications/message") {
    const { requestId, stream, text } = message.params?.data ?? {};
    return stream === "stdout" || stream === "stderr" ? { kind: stream, id: requestId, text } : { kind: "other" };
  }
  if (message?.method === "notifications/progress") {
    const id = Number(String(message.params?.progressToken).slice(1));
    const stream = message.params?._meta?.[PROGRESS_STREAM_META];
    const kind = stream === "stdout" || stream === "stderr" ? stream : "status";
    return { kind, id, text: message.params.message };
  }
  if (message?.method === "notifications/cancelled") return { kind: "cancelled", id: message.params?.requestId };
  if (message?.id === undefined) return { kind: "other" };
  if (typeof message.method === "string") return { kind: "request", id: message.id, method: message.method, params: message.params };
  return { kind: "answer", id: message.id, result: message.result, error: message.error };
}

/**
 * The text blocks of a tool result, joined.
 *
 * @param {{ content?: { type: string, text?: string }[] }} result
 */
export function textOf(result) {
  return (result.content ?? [])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/** Requests to the widget in `iframe` and their answers, until closed. */
export class WidgetChannel {
  #iframe;
  #origin;
  #nextId = 1;
  /** @type {Map<number, { resolve: (result: any) => void, reject: (error: SandpitError) => void, listeners: Listeners }>} */
  #pending = new Map();
  /** @type {(event: MessageEvent) => void} */
  #onMessage;
  #closed = false;
  /** @type {(value?: unknown) => void} */
  #serverReady = () => {};
  /** @type {RequestHandler} */
  #onRequest;
  /**
   * The widget's requests being answered, to abort when it cancels one.
   *
   * @type {Map<number, AbortController>}
   */
  #answering = new Map();

  /**
   * @param {HTMLIFrameElement} iframe
   * @param {string} origin the widget page's
   * @param {{ autoResize: boolean, maxHeight: number }} sizing whether the iframe follows the widget's height, up to what
   * @param {RequestHandler} [onRequest] answers the widget's own requests (none are expected without it)
   */
  constructor(iframe, origin, { autoResize, maxHeight }, onRequest = () => Promise.reject(new Error("this client answers no requests"))) {
    this.#iframe = iframe;
    this.#origin = origin;
    this.#onRequest = onRequest;
    this.#onMessage = (event) => {
      if (event.source !== this.#iframe.contentWindow || event.origin !== this.#origin) return;
      this.#receive(readWidgetMessage(event.data), autoResize, maxHeight);
    };
    window.addEventListener("message", this.#onMessage);
  }

  /**
   * Resolves once the widget says it listens (asked each time its page
   * loads); rejects with WIDGET_TIMEOUT when it has not within `timeoutMs`,
   * nor answered what `then` asks of it.
   *
   * @template T
   * @param {number} timeoutMs
   * @param {() => Promise<T>} then
   * @returns {Promise<T>}
   */
  async handshake(timeoutMs, then) {
    const ready = new Promise((resolve) => (this.#serverReady = resolve));
    this.#iframe.addEventListener("load", () => this.post(IFRAME_CHECK_READY));
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    /** @type {Promise<never>} */
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new SandpitError(`the Sandpit widget at ${this.#origin} did not answer within ${timeoutMs} ms`, ERROR_WIDGET_TIMEOUT),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([ready, timeout]);
      return await Promise.race([then(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * @param {string} method
   * @param {object} params
   * @param {Listeners} [listeners]
   * @returns {Promise<any>}
   */
  request(method, params, listeners = {}) {
    if (this.#closed) return Promise.reject(new SandpitError("the Sandpit widget was destroyed", ERROR_CLOSED));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, listeners });
      this.post({ jsonrpc: "2.0", id, method, params });
    });
  }

  /**
   * Calls the tool `name`, asking the widget only for what a listener will
   * use: progress (which also carries output as it is written) when there is
   * a listener, output when there is an `onStdout` or `onStderr` (the result
   * holds all of it anyway). Each notification is one more message between
   * the widget and this page.
   *
   * @template {keyof ToolCalls} Name
   * @param {Name} name
   * @param {ToolCalls[Name]["arguments"]} args
   * @param {Listeners} [listeners]
   * @param {AbortSignal} [signal] cancels the call (MCP's notifications/cancelled); its answer still comes
   */
  callTool(name, args, listeners = {}, signal) {
    /** @type {Record<string, unknown>} */
    const _meta = {};
    if (listeners.onStatus || listeners.onStdout || listeners.onStderr) _meta.progressToken = `p${this.#nextId}`;
    if (!listeners.onStdout && !listeners.onStderr) _meta[STREAM_OUTPUT_META] = false;
    const id = this.#nextId;
    const answered = this.request("tools/call", { name, arguments: args, _meta }, listeners);
    if (signal) {
      const cancel = () => this.notify("notifications/cancelled", { requestId: id, reason: String(signal.reason) });
      if (signal.aborted) cancel();
      else {
        signal.addEventListener("abort", cancel, { once: true });
        answered.finally(() => signal.removeEventListener("abort", cancel)).catch(() => {});
      }
    }
    return answered;
  }

  /**
   * @param {string} method
   * @param {object} [params]
   */
  notify(method, params) {
    this.post(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
  }

  /** @param {object | string} payload */
  post(payload) {
    this.#iframe.contentWindow?.postMessage(
      { channel: IFRAME_CHANNEL, type: IFRAME_MCP_TYPE, direction: IFRAME_TO_SERVER, payload },
      this.#origin,
    );
  }

  /** Stops listening; pending requests reject with CLOSED. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    window.removeEventListener("message", this.#onMessage);
    for (const { reject } of this.#pending.values()) reject(new SandpitError("the Sandpit widget was destroyed", ERROR_CLOSED));
    this.#pending.clear();
    for (const answering of this.#answering.values()) answering.abort(new Error("the Sandpit widget was destroyed"));
    this.#answering.clear();
  }

  /**
   * Answers the widget's request `id` with what `onRequest` gives; nothing
   * once the widget has cancelled it.
   *
   * @param {number} id
   * @param {string} method
   * @param {any} params
   */
  async #answer(id, method, params) {
    const controller = new AbortController();
    this.#answering.set(id, controller);
    /** @type {object} */
    let reply;
    try {
      reply = { jsonrpc: "2.0", id, result: await this.#onRequest(method, params, controller.signal) };
    } catch (error) {
      reply = { jsonrpc: "2.0", id, error: { code: ERROR_INTERNAL, message: String(/** @type {Error} */ (error)?.message ?? error) } };
    }
    if (this.#answering.get(id) !== controller) return;
    this.#answering.delete(id);
    try {
      this.post(reply);
    } catch (error) {
      // A value postMessage cannot copy (a function, say): the widget hears why.
      this.post({ jsonrpc: "2.0", id, error: { code: ERROR_INTERNAL, message: `the value cannot be sent: ${/** @type {Error} */ (error).message}` } });
    }
  }

  /**
   * @param {WidgetMessage} message
   * @param {boolean} autoResize
   * @param {number} maxHeight
   */
  #receive(message, autoResize, maxHeight) {
    switch (message.kind) {
      case "resized":
        if (autoResize) this.#iframe.style.height = `${Math.min(message.height, maxHeight)}px`;
        break;
      case "ready":
        this.#serverReady();
        break;
      case "stdout":
        this.#pending.get(message.id)?.listeners.onStdout?.(message.text);
        break;
      case "stderr":
        this.#pending.get(message.id)?.listeners.onStderr?.(message.text);
        break;
      case "status":
        this.#pending.get(message.id)?.listeners.onStatus?.(message.text);
        break;
      case "request":
        this.#answer(message.id, message.method, message.params);
        break;
      case "cancelled":
        this.#answering.get(message.id)?.abort(new Error("the run was stopped"));
        this.#answering.delete(message.id);
        break;
      case "answer": {
        const pending = this.#pending.get(message.id);
        if (!pending) break;
        this.#pending.delete(message.id);
        if (message.error) pending.reject(new SandpitError(message.error.message, message.error.code ?? ERROR_INTERNAL));
        else pending.resolve(message.result);
        break;
      }
      default:
        break;
    }
  }
}
