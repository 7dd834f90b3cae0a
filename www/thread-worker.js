// @ts-check
// Python where no module worker can start: a page with an opaque origin (a
// frame sandboxed without allow-same-origin, as some MCP Apps hosts frame
// views) cannot start one, so Pyodide 314 cannot run in a worker there. On
// such a page this module, imported before the app starts, puts in
// `Worker`'s place a stand-in that runs the worker's script on the own
// thread of a hidden frame (THREAD_PAGE, under the worker's policy): the
// runtime (src/runtime/worker.rs) drives it as it drives a worker, over the
// same private channel. Python then shares the page's thread: a run that
// never pauses holds the page until its timeout, which ends that frame's
// interpreter (worker.mjs gives up the run; the runtime replaces the frame
// and replays the session), and a stop takes effect at the timeout or when
// the code awaits.
//
// The frame is sandboxed to allow-scripts (an opaque origin of its own: no
// storage, nothing of this page). The page gets `frame-src 'self'`, so the
// frame cannot navigate itself elsewhere with data in the address.
import { SNAPSHOT_MAKER_NAME, THREAD_PAGE, WORKER_PATH } from "./generated/names.js";

/** Whether this page runs Python on frames' threads: its origin is opaque, and no module worker starts there. */
const THREAD_MODE = self.origin === "null";

/**
 * A worker's stand-in: the worker's script on a hidden frame's thread.
 * `postMessage` and `terminate` as a Worker has them; `error` when the frame
 * stops being the page it was (it navigated away).
 */
class FrameWorker extends EventTarget {
  /** @type {HTMLIFrameElement} */
  #frame;
  #loaded = false;
  /** @type {[unknown, Transferable[]][]} */
  #queued = [];

  /**
   * @param {string | URL} script the worker's script, which THREAD_PAGE loads from beside it
   * @param {WorkerOptions} [options]
   */
  constructor(script, options = {}) {
    super();
    if (String(script) !== WORKER_PATH) {
      // Only Python's worker has a frame page; the others (the clock) fall back to the page's own.
      throw new DOMException(`no module worker starts on this page: ${script}`, "NotSupportedError");
    }
    if (options.name === SNAPSHOT_MAKER_NAME) {
      // A snapshot is kept in Cache Storage, which an opaque origin does not have.
      throw new DOMException("no start-up snapshot is kept on a page without storage", "NotSupportedError");
    }
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts");
    frame.hidden = true;
    frame.tabIndex = -1;
    frame.setAttribute("aria-hidden", "true");
    frame.title = "Python";
    frame.addEventListener("load", () => {
      if (this.#loaded) {
        // A second page in the frame: the first, and its interpreter, are gone.
        this.dispatchEvent(new ErrorEvent("error", { message: "Python's frame left its page" }));
        return;
      }
      this.#loaded = true;
      for (const [message, transfer] of this.#queued) this.#post(message, transfer);
      this.#queued = [];
    });
    frame.src = new URL(THREAD_PAGE, document.baseURI).href;
    document.body.append(frame);
    this.#frame = frame;
  }

  /**
   * @param {unknown} message
   * @param {Transferable[]} [transfer]
   */
  postMessage(message, transfer = []) {
    if (this.#loaded) this.#post(message, transfer);
    else this.#queued.push([message, transfer]);
  }

  /**
   * To the frame's page, whose origin is opaque: "*" is the only target that reaches it.
   *
   * @param {unknown} message
   * @param {Transferable[]} transfer
   */
  #post(message, transfer) {
    this.#frame.contentWindow?.postMessage(message, "*", transfer);
  }

  /** Removes the frame, and with it the interpreter. */
  terminate() {
    this.#frame.remove();
  }
}

if (THREAD_MODE) {
  const policy = document.createElement("meta");
  policy.httpEquiv = "Content-Security-Policy";
  policy.content = "frame-src 'self'";
  document.head.append(policy);
  Object.defineProperty(globalThis, "Worker", { value: FrameWorker, configurable: true, writable: true });
}

/** Whether Python runs on frames' own threads on this page (see the top of this file). */
export function threadMode() {
  return THREAD_MODE;
}
