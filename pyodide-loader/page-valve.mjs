// @ts-check
// Where no module worker can start (a page with an opaque origin), the
// worker's script runs on the own thread of a frame's page instead
// (www/thread-worker.js, THREAD_PAGE): the same protocol, the page's thread
// shared with the code. No other thread can write an interrupt there while
// the code runs, so a run that reaches its timeout is stopped from inside,
// by this valve, and given up.
import { INTERRUPT_SIGNAL } from "../www/generated/names.js";

/** Whether this script runs on a page's thread (THREAD_PAGE) rather than in a worker. */
export const ON_A_PAGE = "document" in globalThis;

/**
 * On a page, how long after its timeout a run that has not paused is
 * stopped from inside: the page's own timer (the host's) is due first, and
 * decides what the run came to once the thread is free again.
 */
export const PAGE_TIMEOUT_MARGIN_MS = 250;

/** How often, on a page, a run past its timeout is interrupted again. */
export const PAGE_INTERRUPT_REPEAT_MS = 100;

/**
 * The interrupt buffer of Python on a page's thread: reading it asks the
 * clock instead, and finds SIGINT once the run is PAGE_TIMEOUT_MARGIN_MS
 * past its timeout. `buffer` for Pyodide (it reads and clears only `[0]`),
 * `word` for the runner's sleep (a Map to Python, whose item 0 is read the
 * same way).
 */
export class PageValve {
  /** When the running code is stopped from inside; Infinity while nothing runs or the run has no timeout. */
  #at = Infinity;
  /** Whether the valve stopped the current run: its result is then given up. */
  #opened = false;
  #now;

  /** @param {() => number} [now] the clock, in milliseconds */
  constructor(now = () => performance.now()) {
    this.#now = now;
    const valve = this;
    this.buffer = {
      get 0() {
        return valve.signal();
      },
      set 0(_cleared) {},
    };
    this.word = new (class extends Map {
      /** @param {unknown} _key */
      get(_key) {
        return valve.signal();
      }
      /** @param {unknown} _key @param {unknown} _value */
      set(_key, _value) {
        return this;
      }
    })();
  }

  /**
   * A run begins, with its timeout (none: it runs until it ends).
   *
   * @param {number | null | undefined} timeoutMs
   */
  arm(timeoutMs) {
    this.#opened = false;
    if (timeoutMs !== null && timeoutMs !== undefined) this.#at = this.#now() + timeoutMs + PAGE_TIMEOUT_MARGIN_MS;
  }

  /** The run has ended: nothing is stopped until the next. */
  disarm() {
    this.#at = Infinity;
  }

  /** Whether the valve stopped the run since it was armed. */
  get opened() {
    return this.#opened;
  }

  /** The signal the buffer holds now: SIGINT once the run is past its time, else 0. */
  signal() {
    const now = this.#now();
    if (now < this.#at) return 0;
    this.#opened = true;
    // Again only after a while, as the host repeats an interrupt: code that
    // catches one still meets the next, and the runner's own work meanwhile is left alone.
    this.#at = now + PAGE_INTERRUPT_REPEAT_MS;
    return INTERRUPT_SIGNAL;
  }
}
