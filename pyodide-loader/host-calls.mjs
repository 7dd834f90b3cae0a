// @ts-check
// The running code's calls to the embedding page's functions (Python's
// `sandpit.host`): each is posted to the host as `host_call` and settles
// when its `host_reply` comes. The host decides whether a call may go on
// (names, limits, schemas, the run it belongs to); this only carries them.

/**
 * @import { BodyOf, HostCallError, HostCallForm, HostMessage } from "../www/generated/protocol.js"
 * @import { HostChannel } from "./host-channel.mjs"
 */

/**
 * What a call comes to, as Python reads it: the value as JSON text, or why there is none.
 *
 * @typedef {{ value: string | null, error: HostCallError | null }} HostAnswer
 */

/** The calls of the run in progress, waiting for their answers. */
export class HostCalls {
  #host;
  /** @type {() => number | null} */
  #run;
  /** @type {Map<number, (answer: HostAnswer) => void>} */
  #waiting = new Map();
  /** The last call's number in the run in progress. */
  #made = 0;

  /**
   * @param {HostChannel} host
   * @param {() => number | null} run the run in progress, if any
   */
  constructor(host, run) {
    this.#host = host;
    this.#run = run;
  }

  /**
   * The bridge the runner calls (see sandpit_runner/host_calls.py).
   *
   * @param {string} name
   * @param {string} argumentsJson
   * @param {HostCallForm} form
   * @returns {Promise<HostAnswer>}
   */
  call(name, argumentsJson, form) {
    const id = this.#run();
    if (id === null) return Promise.resolve({ value: null, error: { kind: "refused", message: "no run is in progress" } });
    const call = ++this.#made;
    return new Promise((resolve) => {
      this.#waiting.set(call, resolve);
      this.#host.post("host_call", { id, call, name: String(name), arguments: String(argumentsJson), form });
    });
  }

  /**
   * The host's answer to a call of the run in progress; one for a call
   * nobody waits for (an earlier run's) is dropped.
   *
   * @param {BodyOf<HostMessage, "host_reply">} reply
   */
  reply({ id, call, value, error }) {
    const waiting = this.#waiting.get(call);
    if (waiting === undefined || id !== this.#run()) return;
    this.#waiting.delete(call);
    waiting({ value: value ?? null, error: error ?? null });
  }

  /** A run begins or ends: calls still waiting will never be answered. */
  clear() {
    this.#waiting.clear();
    this.#made = 0;
  }
}
