// @ts-check
// Tool calls waiting for the browser: the server runs no Python. A call is
// taken by an MCP App view (it claims the call, runs it and hands back the
// result through the app-only tools) or, where no view comes, by a paired
// Sandpit tab; with neither, it ends within its timeout with an error that
// says what to open.
import { randomUUID } from "node:crypto";

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
 * @typedef {{
 *   id: string,
 *   tool: string,
 *   key: string,
 *   args: Record<string, any>,
 *   claimed: boolean,
 *   claim: () => void,
 *   finish: (result: CallToolResult) => void,
 *   onOutput: OnOutput,
 *   cancelled: boolean,
 * }} Pending
 */

/** How long a call waits for a view or a tab when its arguments do not say. */
export const DEFAULT_WAIT_SECONDS = 30;
/** How long a claimed call may take beyond its own timeout (loading Python and packages). */
const LOAD_ALLOWANCE_MS = 180_000;
/** A claimed call with no timeout of its own still ends after this, if its view went away. */
const UNBOUNDED_RUN_MS = 3_600_000;

export class Calls {
  /** @type {Map<string, Pending>} */
  #pending = new Map();
  /**
   * Each session's runs that succeeded since its last reset, oldest first: a
   * view starts a fresh interpreter, and replays them to bring the session back.
   *
   * @type {Map<string, Record<string, any>[]>}
   */
  #ledger = new Map();

  /**
   * @param {{ tabs: import("./tabs.mjs").Tabs, openUrl: () => string }} options
   */
  constructor({ tabs, openUrl }) {
    this.tabs = tabs;
    this.openUrl = openUrl;
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
    const seconds = typeof args.timeout_seconds === "number" ? args.timeout_seconds : null;
    const waitMs = (seconds && seconds > 0 ? seconds : DEFAULT_WAIT_SECONDS) * 1000;
    const waited = AbortSignal.any([signal, AbortSignal.timeout(waitMs)]);
    let result;
    if (views) {
      result = await this.#throughView(tool, args, waited, signal, seconds, onOutput);
    } else if (await this.tabs.waitForTab(waited)) {
      result = await this.tabs.invoke(tool, args, { onOutput, signal });
    } else {
      result = failure(this.#nobody(waitMs, false));
    }
    if (signal.aborted) return failure("The call was cancelled.");
    this.#record(tool, args, result);
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
        cancelled: false,
        onOutput,
        claim: () => {
          waited.removeEventListener("abort", unclaimed);
          const runMs = seconds && seconds > 0 ? seconds * 1000 + LOAD_ALLOWANCE_MS : UNBOUNDED_RUN_MS;
          const timer = setTimeout(
            () => call.finish(failure("The Sandpit view stopped answering before the run finished.")),
            runMs,
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
          cancelled.removeEventListener("abort", cancel);
          resolve(result);
        },
      };
      const unclaimed = async () => {
        if (call.claimed) return;
        this.#pending.delete(call.id);
        if (!cancelled.aborted && this.tabs.count > 0) {
          call.finish(await this.tabs.invoke(tool, args, { onOutput, signal: cancelled }));
          return;
        }
        call.finish(failure(this.#nobody(0, true)));
      };
      const cancel = () => {
        call.cancelled = true;
        call.finish(failure("The call was cancelled."));
      };
      this.#pending.set(call.id, call);
      waited.addEventListener("abort", unclaimed);
      cancelled.addEventListener("abort", cancel);
    });
  }

  /**
   * A view claims the oldest unclaimed call of `tool` with these arguments.
   * Answers its id and the session's earlier runs to replay first, or null
   * when there is none (a view shown again for a finished call).
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
    const replay = tool === "run_python" ? [...(this.#ledger.get(sessionOf(args)) ?? [])] : [];
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
   * A view's result for call `id`; false when no such call is waiting.
   *
   * @param {string} id
   * @param {CallToolResult} result
   */
  complete(id, result) {
    const call = this.#pending.get(id);
    if (!call?.claimed) return false;
    call.finish(result);
    return true;
  }

  /**
   * Keeps the runs a fresh interpreter must replay to be where the session is.
   *
   * @param {string} tool
   * @param {Record<string, any>} args
   * @param {CallToolResult} result
   */
  #record(tool, args, result) {
    const session = sessionOf(args);
    if (tool === "reset_session" && !result.isError) this.#ledger.delete(session);
    if (tool === "run_python" && result.structuredContent?.status === "ok") {
      const { timeout_seconds: _, ...kept } = args;
      this.#ledger.set(session, [...(this.#ledger.get(session) ?? []), kept]);
    }
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
 * The session a call names.
 *
 * @param {Record<string, any>} args
 */
function sessionOf(args) {
  return typeof args.session === "string" && args.session !== "" ? args.session : "main";
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
