// @ts-check
// Keeps `make bench` working: the whole harness once, with tiny numbers.
// No assertion on how long anything took; only that every figure of the report
// is there, with real numbers, and that the report is written.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { runBench } from "../../bench/bench.mjs";
import { writeReport } from "../../bench/report.mjs";

/** The emulated link's path all the same, on a link fast enough not to slow the smoke down. */
const FAST_LINK = { downBitsPerSecond: 1e9, upBitsPerSecond: 1e9, latencyMs: 1 };
const TINY = { loads: 1, firstVisits: 1, roundTrips: 2, passes: 1, programs: 5, memoryRuns: 10, recoveries: 1, asks: 1, keystrokes: 5, batches: 1, fixPasses: 1, poolPasses: 1, link: FAST_LINK };

function assertMeasured(figure, who, summary) {
  const label = `${figure.id} (${who})`;
  for (const key of ["value", "min", "max"]) {
    assert.ok(Number.isFinite(summary[key]), `${label}: ${key} is ${summary[key]}`);
    // Growth may be zero or negative, a return visit a service worker serves
    // entirely from its cache transfers nothing, and a scroll frame can need no
    // work of the page (its p95 cannot); every other figure is positive.
    const idleFrame = figure.id === "scroll_frame_p95" && key === "min";
    const mayBeZero = figure.unit === "%" || figure.id === "bytes_return_visit" || idleFrame;
    if (!mayBeZero) assert.ok(summary[key] > 0, `${label}: ${key} is ${summary[key]}`);
    if (figure.id === "bytes_return_visit" || idleFrame) assert.ok(summary[key] >= 0, `${label}: ${key} is ${summary[key]}`);
  }
  assert.ok(summary.n >= 1, `${label}: no samples`);
}

test("the benchmark harness measures every figure", { timeout: 480_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "sandpit-bench-"));
  try {
    await writeReport(await runBench(TINY), dir);
    const results = JSON.parse(await readFile(join(dir, "results.json"), "utf8"));

    const figures = new Set(results.figures.map((f) => f.figure));
    assert.deepEqual([...figures].sort((a, b) => Number(a) - Number(b)), ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"]);
    for (const figure of results.figures) {
      assertMeasured(figure, "sandpit", figure.sandpit);
      if (figure.raw !== null) assertMeasured(figure, "raw", figure.raw);
      if (figure.ratio !== null) assert.ok(Number.isFinite(figure.ratio) && figure.ratio >= 0, `${figure.id}: ratio`);
      assert.ok([true, false, null].includes(figure.target.met), `${figure.id}: target verdict`);
      if (figure.target.met === false) assert.ok(figure.note, `${figure.id}: a missed target needs a note`);
    }
    assert.equal(results.settings.programs, TINY.programs);
    assert.ok(results.machine.nproc >= 1 && results.machine.cpu && results.machine.chromium);

    // Figure 12: every failing program ran, and those a fix was proved for say how long the proof took.
    const [fixPass] = results.details.fixes.passes;
    assert.equal(fixPass.length, results.details.fixes.names.length);
    assert.ok(fixPass.every((p) => p.status === "error"), "every program of bench/failing fails");
    assert.ok(fixPass.filter((p) => p.verified).every((p) => Number.isInteger(p.trialMs) && p.trialMs >= 0));

    // Figure 5 in both of Sandpit's ways of stopping a run, each sample traced to the end.
    const recoveries = results.figures.filter((f) => f.figure === "5").map((f) => f.id);
    assert.deepEqual(recoveries, ["recovery_interrupt", "recovery_terminate"]);
    for (const mode of ["interrupt", "terminate", "raw"]) {
      assert.equal(results.details.recovery[mode].length, TINY.recoveries, mode);
    }
    assert.ok(results.details.recovery.terminate[0].replays >= 1, "terminate mode replays the earlier run");
    assert.equal(results.details.recovery.interrupt[0].replays, 0, "an interrupt keeps the interpreter");

    // Every session figure has a row for the UI and its own row for the agent path (sandpit-client.js, a headless widget).
    const ids = results.figures.map((f) => f.id);
    for (const id of [
      "round_trip_trivial_p50",
      "round_trip_trivial_p95",
      "round_trip_trivial_back_to_back_p50",
      "round_trip_print100kb_p50",
      "throughput",
      "memory_growth",
    ]) {
      assert.ok(ids.includes(id), `${id} is missing`);
      assert.ok(ids.includes(`${id}_agent`), `${id}_agent is missing`);
    }
    assert.ok(results.details.memory["sandpit-client"].last.workers >= 1, "the widget's workers are measured");
    // The relay path: a stdio client through the MCP server to a tab, each call's time in the tab noted too.
    assert.ok(ids.includes("round_trip_trivial_p50_relay"), "the relay row is missing");
    assert.equal(results.details.relay.trivialMs.length, TINY.roundTrips);
    assert.equal(results.details.relay.inTabMs.length, TINY.roundTrips);

    // Figure 9: HumanEval's first programs through runMany and raw, every one of them run.
    const batch = results.details.batch;
    assert.deepEqual(batch.names, ["HumanEval/0", "HumanEval/1", "HumanEval/2", "HumanEval/3", "HumanEval/4"]);
    for (const target of ["agent", "raw"]) {
      assert.equal(batch[target].length, TINY.batches, target);
      assert.deepEqual(batch[target][0].statuses, Array(TINY.programs).fill("ok"), `${target}: ${batch[target][0].errors}`);
    }
    const { doneMs, ms } = batch.agent[0];
    assert.equal(doneMs.length, TINY.programs, "when each runMany result arrived");
    assert.ok(doneMs.every((at) => at > 0 && at <= ms), JSON.stringify({ doneMs, ms }));
    assert.equal(batch.rawPair.length, TINY.batches, "raw on two pages at once, the control");
    const control = results.figures.find((f) => f.id === "batch_humaneval_control");
    assert.equal(control?.sandpit.n, TINY.batches, "the control's row, beside figure 9's");
    // Figure 4's paint rows (a new run's result and typing in a long file, each as
    // the page's work and as the whole wait) and figure 10, the chat-UI path.
    for (const id of [
      "paint_after_many_p95",
      "paint_latency_after_many_p95",
      "paint_back_to_back_p95",
      "scroll_frame_p95",
      "typing_p95",
      "typing_latency_p95",
      "chat_ui_first_call",
      "chat_ui_round_trip_trivial_p50",
      "chat_ui_throughput",
    ]) {
      assert.ok(ids.includes(id), `${id} is missing`);
    }

    // Figure 14: 300 calls over two and six sessions, new sessions' first calls, a parked session's restore.
    const { pool } = results.details;
    assert.deepEqual([pool.few.length, pool.many.length, pool.restore.length], [1, 1, 1]);
    assert.equal(pool.fresh.length, pool.resident.length);
    assert.equal(pool.restore[0].restored.replayed, 200);
    assert.equal(pool.restore[0].value, 100, "the parked session's state came back");
    for (const id of ["pool_calls_few_sessions", "pool_calls_many_sessions", "pool_restore_parked", "pool_new_session_first_call"]) {
      assert.ok(ids.includes(id), `${id} is missing`);
    }

    // Figure 7's target counts the app's wasm and JS, a part of all its own files.
    const size = Object.fromEntries(results.figures.filter((f) => f.figure === "7").map((f) => [f.id, f.sandpit.value]));
    assert.ok(size.own_code_gzip > 0 && size.own_code_gzip < size.own_size_gzip, JSON.stringify(size));

    const markdown = await readFile(join(dir, "RESULTS.md"), "utf8");
    assert.match(markdown, /\| 5 \| Recovery after a timeout .* interrupt mode .* \| < 50 ms \|/);
    assert.match(markdown, /\| 6 \| Throughput .* agent path .* \| ≥ 0\.80× raw \|/);
    assert.match(markdown, /\| 7 \| The app's own wasm and JS.* \| < 350 KB gzip \|/);
    assert.match(markdown, /\| 10 \| Chat-UI path: round trip p50 .* \| < 1 ms over raw \|/);
    // Figure 11: the Ask loop's own time per step, five steps to a question.
    assert.equal(results.figures.find((f) => f.id === "ask_overhead_p50").sandpit.n, 5);
    assert.match(markdown, /\| 11 \| Ask loop overhead p50: .* \| < 20 ms \|/);
    assert.doesNotMatch(markdown, /not measured yet/);
    // Every number in it was measured, the splits of a round trip included.
    assert.doesNotMatch(markdown, /NaN|undefined/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
