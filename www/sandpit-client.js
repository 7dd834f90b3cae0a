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
  ERROR_CLOSED,
  ERROR_CODE_META,
  ERROR_INTERNAL,
  ERROR_INVALID_PARAMS,
  ERROR_REFUSED,
  ERROR_WIDGET_TIMEOUT,
  FILE_URI_TEMPLATE,
  FRESH_RUN_META,
  HTML_FRAME_HEIGHT_KEY,
  HTML_FRAME_MAX_HEIGHT,
  HTML_OUTPUT_CSP,
  HTML_OUTPUT_SIZER,
  IFRAME_CHANNEL,
  IFRAME_CHECK_READY,
  IFRAME_MCP_TYPE,
  IFRAME_SERVER_READY,
  IFRAME_TO_CLIENT,
  IFRAME_TO_SERVER,
  MCP_PROTOCOL_VERSIONS,
  POOL_CAPABILITY,
  SESSIONS_URI,
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

/**
 * @import { ToolCalls } from "./generated/protocol.js"
 */

/**
 * What a run came to: `status`, `stdout`, `stderr`, `output`, `value`,
 * `displays`, `error`, `artifacts`, `files`, `duration_ms`, ... (generated
 * from the Rust type, src/protocol.rs).
 *
 * @typedef {ToolCalls["run_python"]["result"]} RunResult
 */

/**
 * What `check` found: the syntax error, and where each import comes from.
 *
 * @typedef {ToolCalls["check_python"]["result"]} CheckReport
 */

/**
 * A file handed to `run`: `{ path, text }` or `{ path, content_base64 }`.
 *
 * @typedef {NonNullable<ToolCalls["run_python"]["arguments"]["files"]>[number]} RunFile
 */

/** This client's version; it follows the app's. */
export const VERSION = "0.2.0";

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

/**
 * How the widget is made and shown (see `Sandpit.create`).
 *
 * @typedef {{
 *   container?: HTMLElement,
 *   url?: string | URL,
 *   theme?: "light" | "dark",
 *   headless?: boolean,
 *   autoResize?: boolean,
 *   maxHeight?: number,
 *   order?: "newest-first" | "oldest-first",
 *   hideCode?: boolean,
 *   hideJson?: boolean,
 *   timeoutMs?: number,
 * }} CreateOptions
 */

/**
 * What a run takes besides its code (see `Sandpit#run`).
 *
 * @typedef {{
 *   session?: string,
 *   timeoutSeconds?: number,
 *   files?: RunFile[],
 *   packages?: string[],
 *   tests?: string,
 *   target?: HTMLElement,
 *   showCode?: boolean,
 *   signal?: AbortSignal,
 * } & Listeners} RunOptions
 */

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

/** A Sandpit widget in an iframe on this page. */
export class Sandpit {
  /**
   * Creates the widget and waits until it answers.
   *
   * - `container`: element to put the iframe in (default `document.body`).
   * - `url`: the widget page (default: widget.html next to this file; give it
   *   when this module is not served by the Sandpit deployment, e.g. installed from npm).
   * - `theme`: "light" or "dark" (default: the system's).
   * - `headless`: no visible widget, only the API.
   * - `autoResize`: follow the widget's content height (default true).
   * - `maxHeight`: the tallest the widget grows, in CSS pixels; beyond, it scrolls.
   * - `order`: "newest-first" (default) or "oldest-first" (the newest run at the bottom).
   * - `hideCode`, `hideJson`: leave each run's code listing, or its result as JSON, out of the widget.
   * - `timeoutMs`: how long to wait for the widget to answer (default 30000).
   *
   * @param {CreateOptions} [options]
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
  /** The prefix of the sessions `runMany` uses: this client's own. */
  #batch = `batch-${crypto.randomUUID()}`;
  /**
   * The server's `initialize` result: its name, version and protocol version.
   *
   * @type {any}
   */
  server = null;

  /**
   * @param {CreateOptions} [options]
   */
  constructor(options = {}) {
    const { container = document.body, url, theme, headless = false, autoResize = true, maxHeight } = options;
    const page = new URL(url ?? new URL(WIDGET_PAGE, import.meta.url));
    if (theme) page.searchParams.set(WIDGET_THEME_PARAM, theme);
    if (headless) page.searchParams.set(WIDGET_HEADLESS_PARAM, "");
    if (options.order === "oldest-first") page.searchParams.set(WIDGET_ORDER_PARAM, options.order);
    const hidden = [options.hideCode && "code", options.hideJson && "json"].filter(Boolean).join(",");
    if (hidden) page.searchParams.set(WIDGET_HIDE_PARAM, hidden);
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
    this.#onMessage = (event) => this.#receive(event, autoResize, maxHeight ?? Infinity);
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
   * `target`: an element (the chat message the code belongs to) that shows
   * this run's output as it is written and then its result, HTML outputs in
   * sandboxed frames as the widget shows them; `showCode` puts the code above it.
   * `signal`: an AbortSignal that stops the run (a Stop button); the run then
   * resolves with `status: "cancelled"`, and the session goes on as it was
   * before it (with what it did too, where the page is cross-origin isolated).
   *
   * @param {string} code
   * @param {RunOptions} [options]
   * @returns {Promise<RunResult>}
   */
  async run(code, options = {}) {
    const { session, timeoutSeconds, files, packages, tests, target, showCode = false, signal } = options;
    if (target !== undefined && !(target instanceof Element)) {
      throw new SandpitError("run: `target` must be an element of this page", ERROR_INVALID_PARAMS);
    }
    /** @type {ToolCalls["run_python"]["arguments"]} */
    const args = { code };
    if (session !== undefined) args.session = session;
    if (timeoutSeconds !== undefined) args.timeout_seconds = timeoutSeconds;
    if (files !== undefined) args.files = files;
    if (packages !== undefined) args.packages = packages;
    if (tests !== undefined) args.tests = tests;
    const shown = target && renderInto(target, typeof code === "string" && showCode ? code : null);
    /**
     * The caller's output callback, and the target's when there is one.
     *
     * @param {"stdout" | "stderr"} stream
     * @param {((text: string) => void) | undefined} callback
     */
    const hear = (stream, callback) => {
      if (!shown) return callback;
      return (/** @type {string} */ text) => {
        shown.write(stream, text);
        callback?.(text);
      };
    };
    /** @type {Listeners} */
    const listeners = {
      onStdout: hear("stdout", options.onStdout),
      onStderr: hear("stderr", options.onStderr),
      onStatus: options.onStatus,
    };
    try {
      const result = await this.#call("run_python", args, listeners, signal);
      const run = this.#structured(result);
      shown?.finish(run);
      return run;
    } catch (error) {
      shown?.fail(/** @type {Error} */ (error).message);
      throw error;
    }
  }

  /**
   * Runs independent programs (a benchmark's answers, say), each in a fresh
   * namespace and working directory of its own, spread over the widget's
   * sessions so that as many run at once as it has workers. Resolves to
   * their results in input order; a program that raised is a result with
   * `status: "error"`, not a rejection. The sessions it uses are this
   * client's own, kept for its next batch (their interpreters stay warm);
   * they hold nothing to restore, so the widget parks them first when
   * another session needs a worker.
   *
   * Options: `concurrency` (programs at once; default the widget's worker
   * count, which it says when it connects), `timeoutSeconds` (each
   * program's), `memoryLimitMb` (each program's), and
   * `onProgress({ done, total, index, result })` after each program.
   *
   * @param {string[]} programs
   * @param {{
   *   concurrency?: number,
   *   timeoutSeconds?: number,
   *   memoryLimitMb?: number,
   *   onProgress?: (progress: { done: number, total: number, index: number, result: ToolCalls["run_python"]["result"] }) => void,
   * }} [options]
   * @returns {Promise<ToolCalls["run_python"]["result"][]>}
   */
  async runMany(programs, { concurrency, timeoutSeconds, memoryLimitMb, onProgress } = {}) {
    const workers = this.server?.capabilities?.experimental?.[POOL_CAPABILITY]?.maxWorkers ?? 2;
    const lanes = Math.max(1, Math.min(Math.floor(concurrency ?? workers), programs.length));
    /** @type {ToolCalls["run_python"]["result"][]} */
    const results = new Array(programs.length);
    let next = 0;
    let done = 0;
    const lane = async (/** @type {number} */ k) => {
      // Sessions of its own, so the programs meet nothing of the caller's sessions.
      const session = `${this.#batch}-${k}`;
      while (next < programs.length) {
        const index = next++;
        /** @type {ToolCalls["run_python"]["arguments"]} */
        const args = { code: programs[index], session };
        if (timeoutSeconds !== undefined) args.timeout_seconds = timeoutSeconds;
        if (memoryLimitMb !== undefined) args.memory_limit_mb = memoryLimitMb;
        const _meta = { [STREAM_OUTPUT_META]: false, [FRESH_RUN_META]: true };
        const called = await this.#request("tools/call", { name: "run_python", arguments: args, _meta });
        if (!called.structuredContent) throw new SandpitError(`program ${index}: ${textOf(called)}`, called._meta?.[ERROR_CODE_META] ?? ERROR_INTERNAL);
        results[index] = called.structuredContent;
        onProgress?.({ done: ++done, total: programs.length, index, result: results[index] });
      }
    };
    // Four calls per session at a time: one runs, two wait in its worker to
    // start the moment the one before ends, and one waits in the widget to
    // take their place, so the worker never waits for the next call.
    await Promise.all(Array.from({ length: 4 * lanes }, (_, k) => lane(k % lanes)));
    return results;
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

  /**
   * What each of the widget's sessions is doing: `[{ name, phase, queued }]`,
   * `phase` one of "idle", "running", "starting", "restoring", "waiting" (for a
   * worker: the pool is busy) or "parked" (its worker ended to make room; its
   * next run restores it by replay).
   *
   * @returns {Promise<{ name: string, phase: string, queued: number }[]>}
   */
  async sessions() {
    const { contents } = await this.#request("resources/read", { uri: SESSIONS_URI });
    return JSON.parse(contents[0].text);
  }

  /** Removes the widget; pending calls reject. */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    window.removeEventListener("message", this.#onMessage);
    this.#iframe.remove();
    for (const { reject } of this.#pending.values()) reject(new SandpitError("the Sandpit widget was destroyed", ERROR_CLOSED));
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
        () =>
          reject(
            new SandpitError(`the Sandpit widget at ${this.#origin} did not answer within ${timeoutMs} ms`, ERROR_WIDGET_TIMEOUT),
          ),
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
    // Output comes in progress notifications; the same again as log messages
    // (which older widgets send instead) would only double the traffic.
    await this.#request("logging/setLevel", { level: "warning" });
  }

  /** @type {(value?: unknown) => void} */
  #serverReady = () => {};

  /**
   * The call's structured result; a call that failed without one (bad
   * arguments, no Python) throws, with the code the widget gave why.
   *
   * @param {any} result
   */
  #structured(result) {
    if (result.structuredContent !== undefined) return result.structuredContent;
    throw new SandpitError(textOf(result), result._meta?.[ERROR_CODE_META] ?? ERROR_INTERNAL);
  }

  /**
   * Asks the widget only for what a listener will use: progress (which also
   * carries output as it is written) when there is a listener, output when
   * there is an `onStdout` or `onStderr` (the result holds all of it anyway).
   * Each notification is one more message between the widget and this page.
   *
   * @template {keyof ToolCalls} Name
   * @param {Name} name
   * @param {ToolCalls[Name]["arguments"]} args
   * @param {Listeners} [listeners]
   * @param {AbortSignal} [signal] cancels the call (MCP's notifications/cancelled); its answer still comes
   */
  #call(name, args, listeners = {}, signal) {
    /** @type {Record<string, unknown>} */
    const _meta = {};
    if (listeners.onStatus || listeners.onStdout || listeners.onStderr) _meta.progressToken = `p${this.#nextId}`;
    if (!listeners.onStdout && !listeners.onStderr) _meta[STREAM_OUTPUT_META] = false;
    const id = this.#nextId;
    const answered = this.#request("tools/call", { name, arguments: args, _meta }, listeners);
    if (signal) {
      const cancel = () =>
        this.#post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: String(signal.reason) } });
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
   * @param {object} params
   * @param {Listeners} [listeners]
   * @returns {Promise<any>}
   */
  #request(method, params, listeners = {}) {
    if (this.#destroyed) return Promise.reject(new SandpitError("the Sandpit widget was destroyed", ERROR_CLOSED));
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
   * @param {number} maxHeight
   */
  #receive(event, autoResize, maxHeight) {
    if (event.source !== this.#iframe.contentWindow || event.origin !== this.#origin) return;
    const data = event.data;
    if (data?.channel !== IFRAME_CHANNEL) return;
    if (data.type === WIDGET_EVENT_TYPE && data.event === WIDGET_RESIZED) {
      if (autoResize) this.#iframe.style.height = `${Math.min(data.height, maxHeight)}px`;
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
      const listeners = this.#pending.get(id)?.listeners;
      const stream = message.params?._meta?.[PROGRESS_STREAM_META];
      if (stream === "stdout") listeners?.onStdout?.(message.params.message);
      else if (stream === "stderr") listeners?.onStderr?.(message.params.message);
      else listeners?.onStatus?.(message.params.message);
      return;
    }
    const pending = this.#pending.get(message?.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.error) pending.reject(new SandpitError(message.error.message, message.error.code ?? ERROR_INTERNAL));
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

/**
 * A run shown in an element of the embedding page (`run`'s `target`): `code`
 * (or nothing), then output as it is written, then what the run came to.
 * Text goes in as text; an HTML output only inside a frame sandboxed to
 * `allow-scripts` under the widget's own policy (no same origin: it reaches
 * neither this page nor the network), as the widget shows it.
 *
 * @param {Element} target
 * @param {string | null} code
 */
function renderInto(target, code) {
  const doc = target.ownerDocument;
  const box = doc.createElement("div");
  box.className = "sandpit-run";
  box.dataset.sandpitStatus = "running";
  box.setAttribute("aria-busy", "true");
  /**
   * @param {string} tag
   * @param {string} part
   * @param {string} [text]
   */
  const add = (tag, part, text) => {
    const element = doc.createElement(tag);
    element.className = `sandpit-${part}`;
    element.dataset.sandpitPart = part;
    if (text !== undefined) element.textContent = text;
    box.append(element);
    return element;
  };
  if (code !== null) add("pre", "code", code);
  const output = add("pre", "output");
  output.hidden = true;
  // Output grows as it is written: read out as it comes.
  output.setAttribute("aria-live", "polite");
  target.append(box);
  const settle = (/** @type {string} */ status) => {
    box.dataset.sandpitStatus = status;
    box.removeAttribute("aria-busy");
  };
  return {
    /**
     * @param {"stdout" | "stderr"} stream
     * @param {string} text
     */
    write(stream, text) {
      const chunk = doc.createElement("span");
      chunk.className = `sandpit-${stream}`;
      chunk.textContent = text;
      output.append(chunk);
      output.hidden = false;
    },
    /** @param {RunResult} run */
    finish(run) {
      // The result holds all the output, in order: what was streamed is replaced by it.
      output.replaceChildren(
        ...(run.output ?? []).map(({ stream, text }) => {
          const chunk = doc.createElement("span");
          chunk.className = `sandpit-${stream}`;
          chunk.textContent = text;
          return chunk;
        }),
      );
      output.hidden = output.childElementCount === 0;
      for (const bundle of run.displays ?? []) box.append(renderDisplay(doc, bundle));
      if (run.value) add("pre", "value", `→ ${run.value.repr}`);
      if (run.error) add("pre", "error", run.error.traceback || `${run.error.type}: ${run.error.message}`);
      settle(run.status);
    },
    /** @param {string} message */
    fail(message) {
      add("pre", "error", message);
      settle("failed");
    },
  };
}

/**
 * One display output in its richest safe form, as the widget shows it.
 *
 * @param {Document} doc
 * @param {RunResult["displays"][number]} bundle
 * @returns {HTMLElement}
 */
function renderDisplay(doc, bundle) {
  const html = bundle["text/html"];
  if (html) {
    const frame = doc.createElement("iframe");
    frame.className = "sandpit-display sandpit-html";
    frame.dataset.sandpitPart = "display";
    frame.title = "HTML output";
    // No allow-same-origin: an opaque origin, which reaches nothing of this page.
    frame.setAttribute("sandbox", "allow-scripts");
    frame.style.border = "0";
    frame.style.width = "100%";
    frame.srcdoc = HTML_OUTPUT_CSP + HTML_OUTPUT_SIZER + html;
    sizeToContent(frame);
    return frame;
  }
  const png = bundle["image/png"];
  const svg = bundle["image/svg+xml"];
  if (png || svg) {
    const image = doc.createElement("img");
    image.className = "sandpit-display sandpit-image";
    image.dataset.sandpitPart = "display";
    image.alt = bundle["text/plain"];
    // As an <img>, SVG runs no scripts.
    image.src = png ? `data:image/png;base64,${png}` : `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg ?? "")}`;
    return image;
  }
  const text = doc.createElement("pre");
  text.className = "sandpit-display sandpit-text";
  text.dataset.sandpitPart = "display";
  text.textContent = bundle["text/markdown"] ?? bundle["text/latex"] ?? bundle["text/plain"];
  return text;
}

/**
 * HTML output frames of this page, sized to the height each reports.
 *
 * @type {Set<HTMLIFrameElement>}
 */
const sizedFrames = new Set();
/** Whether this page's messages are listened to for their heights. */
let watchingFrames = false;

/**
 * Follows `frame`'s reported height (up to the widget's HTML_FRAME_MAX_HEIGHT):
 * a report counts only from that frame's own window, and only its number is read.
 *
 * @param {HTMLIFrameElement} frame
 */
function sizeToContent(frame) {
  if (!watchingFrames) {
    watchingFrames = true;
    frame.ownerDocument.defaultView?.addEventListener("message", (event) => {
      for (const sized of sizedFrames) {
        // A frame taken off the page is forgotten.
        if (!sized.isConnected) sizedFrames.delete(sized);
        if (event.source === null || sized.contentWindow !== event.source) continue;
        const height = Number(event.data?.[HTML_FRAME_HEIGHT_KEY]);
        if (Number.isFinite(height)) sized.style.height = `${Math.min(Math.max(Math.ceil(height), 24), HTML_FRAME_MAX_HEIGHT)}px`;
        return;
      }
    });
  }
  sizedFrames.add(frame);
}
