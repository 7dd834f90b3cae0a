// @ts-check
// Tool calls waiting for the browser: the server runs no Python. A call is
// taken by an MCP App view (it claims the call, replays the session's ledger,
// runs it and hands back the result through the app-only tools) or, where no
// view comes, by a paired Sandpit tab; with neither, it ends at its wait with
// an error that says what to open.
import { randomUUID } from "node:crypto";

import { Ledger } from "./ledger.mjs";
import { failure } from "./tabs.mjs";

/**
 * A tool result as MCP has it; the browser shaped it (src/mcp/content.rs).
 *
 * @typedef {{ content: { type: string, [key: string]: unknown }[], structuredContent?: Record<string, any>, isError?: boolean }} CallToolResult
 */

/**
 * Hears a call's output as the browser writes it.
 *
 * @typedef {(stream: "stdout" | "stderr", text: string) => void} OnOutput
 */

/**
 * A call a view may claim.
 *
 * @typedef {{
 *   id: string,
 *   tool: string,
 *   key: string,
 *   args: Record<string, any>,
 *   claimed: boolean,
 *   replayed: number,
 *   claim: () => void,
 *   finish: (result: CallToolResult) => void,
 *   onOutput: OnOutput,
 * }} Pending
 */

/** How long a call waits for a view or a tab when its arguments do not say, unless the server is told otherwise. */
export const DEFAULT_WAIT_SECONDS = 30;
/** How long a claimed call may take beyond its own timeout (loading Python and packages). */
const LOAD_ALLOWANCE_MS = 180_000;
/** A claimed call with no timeout of its own still ends after this, if its view or tab went away. */
const UNBOUNDED_RUN_MS = 3_600_000;

export class Calls {
  /** @type {Map<string, Pending>} */
  #pending = new Map();
  #ledger = new Ledger();

  /**
   * @param {{ tabs: import("./tabs.mjs").Tabs, openUrl: () => string, waitSeconds?: number }} options
   *   `waitSeconds`: how long a call without `timeout_seconds` waits for a view or a tab
   */
  constructor({ tabs, openUrl, waitSeconds = DEFAULT_WAIT_SECONDS }) {
    this.tabs = tabs;
    this.openUrl = openUrl;
    this.waitSeconds = waitSeconds;
  }

  /**
   * Carries out one call. `views`: whether the client shows MCP App views;
   * `signal` aborts when the client cancels; `onOutput` hears the run's
   * output as it is written, from the view or the tab.
   *
   * @param {string} tool
   * @param {Record<string, any>} args
   * @param {{ views: boolean, signal: AbortSignal, onOutput: OnOutput }} options
   * @returns {Promise<CallToolResult>}
   */
  async call(tool, args, { views, signal, onOutput }) {
    const seconds = typeof args.timeout_seconds === "number" && args.timeout_seconds > 0 ? args.timeout_seconds : null;
    const waitMs = (seconds ?? this.waitSeconds) * 1000;
    const wait = deadline(signal, waitMs);
    let result;
    try {
      if (views) {
        result = await this.#throughView(tool, args, wait.signal, signal, seconds, onOutput);
      } else if (await this.tabs.waitForTab(wait.signal)) {
        result = await this.#inTab(tool, args, signal, seconds, onOutput);
      } else {
        result = failure(this.#nobody(waitMs, false));
      }
    } finally {
      wait.clear();
    }
    if (signal.aborted) return failure("The call was cancelled.");
    this.#ledger.record(tool, args, result);
    return result;
  }

  /**
   * Waits for a view to claim the call (a tab takes it if none comes), then for its result.
   *
   * @param {string} tool
   * @param {Record<string, any>} args
   * @param {AbortSignal} waited
   * @param {AbortSignal} cancelled
   * @param {number | null} seconds
   * @param {OnOutput} onOutput
   * @returns {Promise<CallToolResult>}
   */
  #throughView(tool, args, waited, cancelled, seconds, onOutput) {
    return new Promise((resolve) => {
      /** @type {Pending} */
      const call = {
        id: randomUUID(),
        tool,
        key: keyOf(tool, args),
        args,
        claimed: false,
        replayed: 0,
        onOutput,
        claim: () => {
          waited.removeEventListener("abort", unclaimed);
          const timer = setTimeout(
            () => call.finish(failure("The Sandpit view stopped answering before the run finished.")),
            runLimitMs(seconds),
          );
          timer.unref();
          const previous = call.finish;
          call.finish = (result) => {
            clearTimeout(timer);
            previous(result);
          };
        },
        finish: (result) => {
          this.#pending.delete(call.id);
          waited.removeEventListener("abort", unclaimed);
          cancelled.removeEventListener("abort", cancel);
          resolve(result);
        },
      };
      const unclaimed = async () => {
        if (call.claimed) return;
        this.#pending.delete(call.id);
        if (!cancelled.aborted && this.tabs.count > 0) {
          call.finish(await this.#inTab(tool, args, cancelled, seconds, onOutput));
          return;
        }
        call.finish(failure(this.#nobody(0, true)));
      };
      const cancel = () => call.finish(failure("The call was cancelled."));
      this.#pending.set(call.id, call);
      waited.addEventListener("abort", unclaimed);
      cancelled.addEventListener("abort", cancel);
    });
  }

  /**
   * Runs the call in the paired tab; it ends when the tab answers, when the
   * client cancels (the tab is told), or when the tab has had it for as long
   * as a view may.
   *
   * @param {string} tool
   * @param {Record<string, any>} args
   * @param {AbortSignal} cancelled
   * @param {number | null} seconds
   * @param {OnOutput} onOutput
   * @returns {Promise<CallToolResult>}
   */
  async #inTab(tool, args, cancelled, seconds, onOutput) {
    const limit = deadline(cancelled, runLimitMs(seconds));
    const ended = new Promise((resolve) => {
      limit.signal.addEventListener("abort", () => {
        const why = cancelled.aborted ? "The call was cancelled." : "The Sandpit tab stopped answering before the run finished.";
        resolve(failure(why));
      });
    });
    try {
      return await Promise.race([this.tabs.invoke(tool, args, { onOutput, signal: limit.signal }), ended]);
    } finally {
      limit.clear();
    }
  }

  /**
   * A view claims the oldest unclaimed call of `tool` with these arguments.
   * Answers its id and the session's ledger to replay first, or null when
   * there is none (a view shown again for a finished call).
   *
   * @param {string} tool
   * @param {Record<string, any>} args
   */
  claim(tool, args) {
    const key = keyOf(tool, args);
    const call = [...this.#pending.values()].find((c) => !c.claimed && c.key === key);
    if (!call) return null;
    call.claimed = true;
    call.claim();
    const replay = this.#ledger.replays(tool, args);
    call.replayed = replay.length;
    return { call: call.id, replay };
  }

  /**
   * Output the view of call `id` saw written; false when no such call is waiting.
   *
   * @param {string} id
   * @param {"stdout" | "stderr"} stream
   * @param {string} text
   */
  output(id, stream, text) {
    const call = this.#pending.get(id);
    if (!call?.claimed) return false;
    call.onOutput(stream, text);
    return true;
  }

  /**
   * A view's result for call `id`, and the replays that failed before it
   * (by ledger number, with why); false when no such call is waiting. As the
   * runtime tells a run that its session was rebuilt first, the result says
   * so in `restored` when anything was replayed.
   *
   * @param {string} id
   * @param {CallToolResult} result
   * @param {{ seq: number, reason: string }[]} failed
   */
  complete(id, result, failed) {
    const call = this.#pending.get(id);
    if (!call?.claimed) return false;
    const lost = this.#ledger.lose(call.args, failed);
    const run = result.structuredContent;
    if (call.replayed > 0 && run && "status" in run) {
      const restored = { replayed: call.replayed - lost.length, lost, before_run: true };
      call.finish({ ...result, structuredContent: { ...run, restored } });
    } else {
      call.finish(result);
    }
    return true;
  }

  /**
   * What to tell the person when nothing took the call.
   *
   * @param {number} waitMs
   * @param {boolean} views
   */
  #nobody(waitMs, views) {
    const open = this.openUrl();
    const waited = waitMs > 0 ? ` within ${Math.round(waitMs / 1000)} s` : "";
    const why = views
      ? "no Sandpit view started for this call (the MCP client did not show it)"
      : "this MCP client does not show MCP App views, and no Sandpit tab is connected";
    return (
      `Sandpit runs Python in the browser, and nothing took this call${waited}: ${why}. ` +
      `To run it, open ${open} in a browser, keep that tab open, and call the tool again.`
    );
  }
}

/**
 * How long a view or a tab may have a call, by its timeout.
 *
 * @param {number | null} seconds
 */
function runLimitMs(seconds) {
  return seconds === null ? UNBOUNDED_RUN_MS : seconds * 1000 + LOAD_ALLOWANCE_MS;
}

/**
 * A signal that aborts `ms` from now or when `signal` does. Its timer is held
 * here until `clear()`: AbortSignal.any over AbortSignal.timeout lets the
 * timeout's signal be collected before it fires, and the wait never ends.
 *
 * @param {AbortSignal} signal
 * @param {number} ms
 */
function deadline(signal, ms) {
  const ended = new AbortController();
  const end = () => ended.abort();
  const timer = setTimeout(end, ms);
  signal.addEventListener("abort", end, { once: true });
  if (signal.aborted) end();
  return {
    signal: ended.signal,
    clear: () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", end);
    },
  };
}

/**
 * A call's identity as a view sees it: the tool and its arguments, with keys sorted.
 *
 * @param {string} tool
 * @param {unknown} args
 */
function keyOf(tool, args) {
  return JSON.stringify([tool, sorted(args)]);
}

/** @param {unknown} value @returns {unknown} */
function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted(/** @type {Record<string, unknown>} */ (value)[k])]),
    );
  }
  return value;
}
