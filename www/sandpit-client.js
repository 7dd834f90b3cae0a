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
// widget. See the README ("Embedding") for every option. Showing a run in the
// embedding page (`run`'s `target`) is sandpit-render.js's.
import {
  APP_VERSION,
  DEFAULT_SESSION,
  ERROR_CODE_META,
  ERROR_INTERNAL,
  ERROR_INVALID_PARAMS,
  FILE_URI_TEMPLATE,
  MCP_PROTOCOL_VERSIONS,
  POOL_CAPABILITY,
  SESSIONS_URI,
} from "./generated/names.js";
import { runBatch } from "./sandpit-batch.js";
import { HostFunctions } from "./sandpit-functions.js";
import { Katex } from "./sandpit-math.js";
import { FrameSizer, renderInto } from "./sandpit-render.js";
import { SandpitError, WidgetChannel, textOf, widgetPage } from "./sandpit-transport.js";

export { ERROR_CODES, SandpitError } from "./sandpit-transport.js";

/**
 * @import { ToolCalls } from "./generated/protocol.js"
 */

/**
 * What a run came to: `status`, `stdout`, `stderr`, `output`, `value`,
 * `displays`, `error`, `artifacts`, `files`, `duration_ms`, ... (generated
 * from the Rust type, src/protocol/result.rs).
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

/** This client's version: the app's. */
export const VERSION = APP_VERSION;

/** How long `Sandpit.create` waits for the widget to answer, unless told. */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * @typedef {import("./sandpit-transport.js").Listeners} Listeners
 * @typedef {import("./sandpit-transport.js").PageOptions} PageOptions
 */

/**
 * A function of this page that the code may call (see sandpit-functions.js).
 *
 * @typedef {import("./sandpit-functions.js").HostFunction} HostFunction
 */

/**
 * How the widget is made and shown (see `Sandpit.create`), and the
 * functions of this page the code may call.
 *
 * @typedef {{
 *   container?: HTMLElement,
 *   url?: string | URL,
 *   autoResize?: boolean,
 *   maxHeight?: number,
 *   timeoutMs?: number,
 *   functions?: HostFunction[],
 *   functionSessions?: string[],
 * } & PageOptions} CreateOptions
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
   * - `functions`: functions of this page the code may call (see HostFunction);
   *   none by default. `functionSessions`: the only sessions whose code may
   *   call them (default: every session this client runs).
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
  /** @type {WidgetChannel} */
  #channel;
  /** The HTML output frames that runs shown in this page's elements made. */
  #sizer = new FrameSizer();
  /** KaTeX from the widget's deployment, for the formulas of runs shown in this page's elements. */
  #katex;
  /** The prefix of the sessions `runMany` uses: this client's own. */
  #batch = `batch-${crypto.randomUUID()}`;
  /** The functions of this page offered to the code. */
  #functions;
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
    const { container = document.body, url, headless = false, autoResize = true, maxHeight, functions = [], functionSessions } = options;
    this.#functions = new HostFunctions(functions, functionSessions);
    const page = widgetPage(url, import.meta.url, options);
    this.#katex = new Katex(page);
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
    this.#channel = new WidgetChannel(this.#iframe, page.origin, { autoResize, maxHeight: maxHeight ?? Infinity }, (method, params, signal) =>
      this.#functions.answer(method, params, signal),
    );
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
    const shown = target && renderInto(target, typeof code === "string" && showCode ? code : null, this.#sizer, this.#katex);
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
      const result = await this.#channel.callTool("run_python", args, listeners, signal);
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
   * @param {import("./sandpit-batch.js").BatchOptions} [options]
   * @returns {Promise<ToolCalls["run_python"]["result"][]>}
   */
  async runMany(programs, options = {}) {
    const workers = this.server?.capabilities?.experimental?.[POOL_CAPABILITY]?.maxWorkers ?? 2;
    return runBatch(this.#channel, this.#batch, workers, programs, options);
  }

  /**
   * Checks code without running it: its syntax error, and where each import comes from.
   *
   * @param {string} code
   * @returns {Promise<ToolCalls["check_python"]["result"]>}
   */
  async check(code) {
    return this.#structured(await this.#channel.callTool("check_python", { code }));
  }

  /**
   * Forgets a session's variables and deletes its working directory's files (default session "main"),
   * as the page's Reset does.
   *
   * @param {string} [session]
   * @returns {Promise<ToolCalls["reset_session"]["result"]>}
   */
  async reset(session) {
    return this.#structured(await this.#channel.callTool("reset_session", session === undefined ? {} : { session }));
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
    const { contents } = await this.#channel.request("resources/read", { uri });
    const [content] = contents;
    if (content.text !== undefined) return { mimeType: content.mimeType, text: content.text };
    const bytes = Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0));
    return { mimeType: content.mimeType, bytes };
  }

  /**
   * What each of the widget's sessions is doing: `[{ name, phase, queued,
   * resident, why }]`, `phase` one of "idle", "running", "queued" (for a core:
   * as many sessions run at once as there are cores), "starting", "restoring",
   * "waiting" (for a worker: memory is full) or "parked" (its worker ended to
   * make room; its next run restores it by replay); `resident` whether it
   * holds a worker; `why` a sentence on why it stands where it does.
   *
   * @returns {Promise<{ name: string, phase: string, queued: number, resident: boolean, why: string }[]>}
   */
  async sessions() {
    const { contents } = await this.#channel.request("resources/read", { uri: SESSIONS_URI });
    return JSON.parse(contents[0].text);
  }

  /** Removes the widget; pending calls reject. */
  destroy() {
    this.#channel.close();
    this.#iframe.remove();
  }

  /** @param {number} timeoutMs */
  async #connect(timeoutMs) {
    this.server = await this.#channel.handshake(timeoutMs, () =>
      this.#channel.request("initialize", {
        protocolVersion: MCP_PROTOCOL_VERSIONS[0],
        capabilities: this.#functions.capabilities,
        clientInfo: { name: "sandpit-client", version: VERSION },
      }),
    );
    this.#channel.notify("notifications/initialized");
    // Output comes in progress notifications; the same again as log messages
    // (which older widgets send instead) would only double the traffic.
    await this.#channel.request("logging/setLevel", { level: "warning" });
  }

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
}
