// @ts-check
// The runtime's timers (runs' timeouts, interrupt repeats, nudges), kept in
// a dedicated worker: Chromium wakes a hidden page's timers once a second,
// and chains of them once a minute after five minutes hidden, but not a
// worker's, so timeouts fire on time in a background tab. The page decides
// what each timer means (src/runtime/clock.rs); this only keeps time.
//
// Message shapes: ClockCommand and ClockMessage in src/protocol/clock.rs.

/**
 * @import { ClockCommand, ClockMessage } from "../www/generated/protocol.js"
 */

/** The timers under way, by the page's id for each. */
class Timers {
  /** @type {Map<number, ReturnType<typeof setTimeout>>} */
  #pending = new Map();

  /**
   * Says `fired` with `id` after `ms` milliseconds.
   *
   * @param {number} id
   * @param {number} ms
   * @param {(message: ClockMessage) => void} post
   */
  start(id, ms, post) {
    this.#pending.set(
      id,
      setTimeout(() => {
        this.#pending.delete(id);
        post({ fired: { id } });
      }, ms),
    );
  }

  /** @param {number} id */
  cancel(id) {
    clearTimeout(this.#pending.get(id));
    this.#pending.delete(id);
  }
}

const timers = new Timers();

/** @param {ClockMessage} message */
const post = (message) => self.postMessage(message);

self.onmessage = (event) => {
  const command = /** @type {ClockCommand} */ (event.data);
  if ("start" in command) {
    timers.start(command.start.id, command.start.ms, post);
  } else if ("cancel" in command) {
    timers.cancel(command.cancel.id);
  }
};
