// @ts-check
// `make bench`: measures, prints the table, writes bench/results.json and bench/RESULTS.md.
//
// Settings come from the environment (defaults in bench.mjs):
//   BENCH_RUNS          cold + warm page loads per target
//   BENCH_FIRST_VISITS  first visits per surface and link (figure 15)
//   BENCH_ROUND_TRIPS   timed round trips per kind of run
//   BENCH_PASSES        passes over the program set
//   BENCH_PROGRAMS      how many programs of the set to use
//   BENCH_MEMORY_RUNS   runs before the second memory snapshot
//   BENCH_RECOVERIES    timeouts recovered from per mode
//   BENCH_BATCHES       timed HumanEval batches per target (figure 9)
//   BENCH_ASKS          questions to the Ask panel's stub model (five steps each)
//   BENCH_KEYSTROKES    keys typed into a 2,000-line file in the editor
//   BENCH_FIX_PASSES    passes over the failing programs (figure 12)
//   BENCH_POOL_PASSES   passes over figure 14 (sessions beyond the cores)
//   BENCH_ONLY          "pool" or "first-visit": measure figure 14 or 15 alone
//                       and put its rows in place of those of the last full
//                       run (results.json)
//   BENCH_OUT           where to write the results (default: bench/)
//   BENCH_NOTE          a remark for RESULTS.md, e.g. what else the machine was doing
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { DEFAULT_SETTINGS, runBench, runFirstVisitBench, runPoolBench } from "./bench.mjs";
import { markdown, writeReport } from "./report.mjs";

const ENV = {
  loads: "BENCH_RUNS",
  firstVisits: "BENCH_FIRST_VISITS",
  roundTrips: "BENCH_ROUND_TRIPS",
  passes: "BENCH_PASSES",
  programs: "BENCH_PROGRAMS",
  memoryRuns: "BENCH_MEMORY_RUNS",
  recoveries: "BENCH_RECOVERIES",
  batches: "BENCH_BATCHES",
  asks: "BENCH_ASKS",
  keystrokes: "BENCH_KEYSTROKES",
  fixPasses: "BENCH_FIX_PASSES",
  poolPasses: "BENCH_POOL_PASSES",
};

function settingsFromEnv(env) {
  const settings = {};
  for (const [key, name] of Object.entries(ENV)) {
    if (env[name] === undefined || env[name] === "") continue;
    const value = Number(env[name]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, not ${env[name]}`);
    settings[key] = value;
  }
  return { ...DEFAULT_SETTINGS, ...settings };
}

const settings = settingsFromEnv(process.env);
const out = process.env.BENCH_OUT || dirname(fileURLToPath(import.meta.url));
const started = Date.now();
const log = (message) => console.error(`bench: ${message}`);
/** The figures measured alone: which figure, how, and the setting and details that are its own. */
const PARTS = {
  pool: { figure: "14", measure: runPoolBench, setting: "poolPasses", details: "pool" },
  "first-visit": { figure: "15", measure: runFirstVisitBench, setting: "firstVisits", details: "firstVisits" },
};
const only = process.env.BENCH_ONLY || undefined;
if (only !== undefined && !Object.hasOwn(PARTS, only)) throw new Error(`BENCH_ONLY can be ${Object.keys(PARTS).map((name) => `"${name}"`).join(" or ")}, not ${only}`);
const results = only ? await withPart(PARTS[only]) : await runBench(settings, log);
if (process.env.BENCH_NOTE) results.note = process.env.BENCH_NOTE;
await writeReport(results, out);
console.log(markdown(results));
console.error(`bench: done in ${Math.round((Date.now() - started) / 1000)} s; results in ${out}`);

/**
 * The last full run's results (in `out`) with `part`'s figure measured again:
 * its rows and details replaced, and `partial` saying when and on what.
 */
async function withPart(part) {
  const last = JSON.parse(await readFile(join(out, "results.json"), "utf8"));
  const measured = await part.measure(settings, log);
  const { date, machine, figures } = measured;
  return {
    ...last,
    figures: [...last.figures.filter((f) => f.figure !== part.figure), ...figures],
    settings: { ...last.settings, [part.setting]: settings[part.setting] },
    details: { ...last.details, [part.details]: measured[part.details] },
    partial: { figure: part.figure, date, machine },
  };
}
