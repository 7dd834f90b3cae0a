// @ts-check
// The worker's one channel to the host: the MessagePort that `init` brings.
// It lives in a private field of the object the worker's entry module
// keeps, never where Python can reach it (Python reaches the worker's
// globals through `js`, not a module's scope).

/**
 * @import { BodyOf, KindOf, LoadProgress, WorkerMessage } from "../www/generated/protocol.js"
 */

/** The port to the host, and the start-up progress heard before it came. */
export class HostChannel {
  /** @type {MessagePort | null} */
  #port = null;
  /**
   * The latest start-up progress, kept until `init` brings the port.
   *
   * @type {LoadProgress | null}
   */
  #progressSoFar = null;

  /** Whether `init` has brought the port. */
  get connected() {
    return this.#port !== null;
  }

  /**
   * Takes the port `init` brought; `onMessage` hears what the host sends on
   * it (nothing, for a worker that only makes the snapshot).
   *
   * @param {MessagePort} port
   * @param {((message: any) => void) | null} onMessage
   */
  connect(port, onMessage) {
    this.#port = port;
    if (onMessage !== null) port.onmessage = (event) => onMessage(event.data);
  }

  /**
   * Sends the host a message of kind `kind` (see WorkerMessage in src/protocol/messages.rs).
   *
   * @template {KindOf<WorkerMessage>} K
   * @param {K} kind
   * @param {BodyOf<WorkerMessage, K>} body
   */
  post(kind, body) {
    /** @type {MessagePort} */ (this.#port).postMessage({ [kind]: body });
  }

  /**
   * Start-up progress: sent at once when the port is in, else kept for `init`.
   *
   * @param {LoadProgress} body
   */
  progress(body) {
    this.#progressSoFar = body;
    if (this.#port !== null) this.post("progress", body);
  }

  /** Sends the progress heard before the port came, if any. */
  progressSoFar() {
    if (this.#progressSoFar !== null) this.post("progress", this.#progressSoFar);
  }
}
