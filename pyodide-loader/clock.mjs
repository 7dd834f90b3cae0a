// @ts-check
// The runtime's timers (runs' timeouts, interrupt repeats, nudges), kept in
// a dedicated worker: Chromium wakes a hidden page's timers once a second,
// and chains of them once a minute after five minutes hidden, but not a
// worker's, so timeouts fire on time in a background tab. The page decides
// what each timer means (src/runtime/clock.rs); this only keeps time.
//
// Message shapes: ClockCommand and ClockMessage in src/protocol.rs.

/**
 * @import { ClockCommand, ClockMessage } from "../www/generated/protocol.js"
 */

/** @type {Map<number, ReturnType<typeof setTimeout>>} */
const timers = new Map();

/** @param {ClockMessage} message */
const post = (message) => self.postMessage(message);

self.onmessage = (event) => {
  const command = /** @type {ClockCommand} */ (event.data);
  if ("start" in command) {
    const { id, ms } = command.start;
    timers.set(
      id,
      setTimeout(() => {
        timers.delete(id);
        post({ fired: { id } });
      }, ms),
    );
  } else if ("cancel" in command) {
    clearTimeout(timers.get(command.cancel.id));
    timers.delete(command.cancel.id);
  }
};
