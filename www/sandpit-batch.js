// @ts-check
// Independent programs spread over the widget's sessions (`Sandpit#runMany`):
// each in a fresh namespace, as many at once as the widget has workers, in
// sessions of the client's own.
import { ERROR_CODE_META, ERROR_INTERNAL, FRESH_RUN_META, STREAM_OUTPUT_META } from "./generated/names.js";
import { SandpitError, textOf } from "./sandpit-transport.js";

/**
 * @import { ToolCalls } from "./generated/protocol.js"
 * @import { WidgetChannel } from "./sandpit-transport.js"
 */

/**
 * What `runMany` takes besides the programs.
 *
 * @typedef {{
 *   concurrency?: number,
 *   timeoutSeconds?: number,
 *   memoryLimitMb?: number,
 *   onProgress?: (progress: { done: number, total: number, index: number, result: ToolCalls["run_python"]["result"] }) => void,
 * }} BatchOptions
 */

/**
 * Runs `programs` over `channel` in sessions named `${prefix}-${k}`,
 * `workers` of them unless `concurrency` says otherwise; resolves to their
 * results in input order.
 *
 * @param {WidgetChannel} channel
 * @param {string} prefix
 * @param {number} workers
 * @param {string[]} programs
 * @param {BatchOptions} options
 * @returns {Promise<ToolCalls["run_python"]["result"][]>}
 */
export async function runBatch(channel, prefix, workers, programs, { concurrency, timeoutSeconds, memoryLimitMb, onProgress }) {
  const lanes = Math.max(1, Math.min(Math.floor(concurrency ?? workers), programs.length));
  /** @type {ToolCalls["run_python"]["result"][]} */
  const results = new Array(programs.length);
  let next = 0;
  let done = 0;
  const lane = async (/** @type {number} */ k) => {
    // Sessions of its own, so the programs meet nothing of the caller's sessions.
    const session = `${prefix}-${k}`;
    while (next < programs.length) {
      const index = next++;
      /** @type {ToolCalls["run_python"]["arguments"]} */
      const args = { code: programs[index], session };
      if (timeoutSeconds !== undefined) args.timeout_seconds = timeoutSeconds;
      if (memoryLimitMb !== undefined) args.memory_limit_mb = memoryLimitMb;
      const _meta = { [STREAM_OUTPUT_META]: false, [FRESH_RUN_META]: true };
      const called = await channel.request("tools/call", { name: "run_python", arguments: args, _meta });
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
