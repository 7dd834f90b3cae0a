// @ts-check
// What the page keeps of its runs (benchmark figure 8), as size bounds, not
// timings. Kept results live outside the app's wasm memory: a wasm module's
// linear memory never shrinks, so a history of results held there would
// keep the largest it ever held for the life of the page. The runs hold
// their output as JS strings instead, so here many large-output runs are
// kept and the app's wasm memory must grow by far less than the output they
// hold. And a run that has left the list is freed: its output must not stay
// on the JS heap either.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { pageHeap } from "../../bench/cdp.mjs";
import { serveDemo } from "../../scripts/serve.mjs";
import { startApp } from "./harness.mjs";
import { READY_TIMEOUT_MS, RUN_TIMEOUT_MS } from "./harness/timeouts.mjs";

/** Runs kept (fewer than the 100 the history keeps, so none is dropped). */
const RUNS = 30;
/** Characters each run prints (one byte each in UTF-8), under the 256 KiB output limit. */
const PRINTED = 200_000;
/** Run `i`'s code: its own text, so no two results could share storage by accident. */
const program = (i) => `print(str(${i} % 10) * ${PRINTED})`;
/**
 * How much the app's wasm memory may grow over the runs after the first:
 * a quarter of the output the kept results hold. Held in wasm, the output
 * alone would be all of it (twice over, as stdout and as ordered output);
 * what is allowed covers a result passing through for a moment and the
 * page's own bookkeeping for the runs.
 */
const BOUND = ((RUNS - 1) * PRINTED) / 4;

/** Before any page script: keeps a handle on the app's wasm memory once Trunk has started it. */
function watchAppMemory() {
  addEventListener("TrunkApplicationStarted", (event) => {
    window.__appMemory = /** @type {CustomEvent} */ (event).detail?.wasm?.memory ?? null;
  });
}

/** The app's wasm memory in bytes, in `frame` (a page or the widget's frame). */
async function appMemory(frame) {
  const bytes = await frame.evaluate(() => window.__appMemory?.buffer.byteLength ?? 0);
  assert.ok(bytes > 0, "the app's wasm memory is readable");
  return bytes;
}

function assertBounded(first, last) {
  const growth = last - first;
  assert.ok(
    growth < BOUND,
    `the app's wasm memory grew by ${growth} bytes (from ${first} to ${last}) over ${RUNS - 1} runs ` +
      `keeping ${(RUNS - 1) * PRINTED} characters of output: kept results are in wasm memory (bound ${BOUND})`,
  );
}

/** Opens the host page and creates a headless widget in it; resolves to the widget's frame. */
async function headlessWidget(sandpit, appUrl, hostUrl) {
  await sandpit.page.goto(new URL("host.html", hostUrl).href);
  await sandpit.page.evaluate(
    async ({ appUrl, timeoutMs }) => {
      const { Sandpit } = await import(new URL("sandpit-client.js", appUrl).href);
      window.sandpit = await Sandpit.create({ headless: true, timeoutMs });
    },
    { appUrl, timeoutMs: READY_TIMEOUT_MS },
  );
  return sandpit.page.frames().find((frame) => frame.url().includes("/widget.html"));
}

describe("the app's memory with many large results", () => {
  let app;
  let host;
  before(async () => {
    host = await serveDemo({ files: { "/host.html": { type: "text/html", body: "<!doctype html><title>host</title>" } } });
    app = await startApp({ embedOrigins: [new URL(host.url).origin] });
    host.setApp(app.url);
  });
  after(async () => {
    await app?.close();
    await host?.close();
  });

  test("stays far below their output, in the page's run list", async () => {
    const sandpit = await app.newPage();
    await sandpit.page.addInitScript(watchAppMemory);
    await sandpit.open();
    await sandpit.waitReady();
    const run = async (i) => {
      const index = await sandpit.submit(program(i));
      await sandpit.page.waitForFunction(
        (n) => document.querySelectorAll('[data-testid="run-entry"]')[n]?.dataset.phase === "ok",
        index,
        { timeout: RUN_TIMEOUT_MS },
      );
    };
    await run(0);
    const first = await appMemory(sandpit.page);
    for (let i = 1; i < RUNS; i += 1) await run(i);
    const last = await appMemory(sandpit.page);
    const shown = await sandpit.page
      .getByTestId("output")
      .evaluateAll((outputs) => outputs.map((output) => output.textContent.length));
    assert.deepEqual(shown, Array(RUNS).fill(PRINTED + 1), "every run's output is still on the page");
    assertBounded(first, last);
    await sandpit.assertHealthy();
    await sandpit.close();
  });

  test("stays far below their output, in a headless widget driven by the JS client", async () => {
    const sandpit = await app.newPage();
    await sandpit.page.addInitScript(watchAppMemory);
    const widget = await headlessWidget(sandpit, app.url, host.url);
    const run = (i) =>
      sandpit.page.evaluate(async (code) => {
        const result = await window.sandpit.run(code);
        return { status: result.status, printed: result.stdout.length, ordered: result.output[0].text.length };
      }, program(i));
    assert.deepEqual(await run(0), { status: "ok", printed: PRINTED + 1, ordered: PRINTED + 1 });
    const first = await appMemory(widget);
    for (let i = 1; i < RUNS; i += 1) {
      assert.deepEqual(await run(i), { status: "ok", printed: PRINTED + 1, ordered: PRINTED + 1 });
    }
    const last = await appMemory(widget);
    assertBounded(first, last);
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });

  test("frees the output of runs that have left the run list", async () => {
    const sandpit = await app.newPage();
    await headlessWidget(sandpit, app.url, host.url);
    const runAll = (codes) =>
      sandpit.page.evaluate(async (codes) => {
        const statuses = [];
        for (const code of codes) statuses.push((await window.sandpit.run(code)).status);
        return statuses;
      }, codes);
    assert.deepEqual(await runAll(["1"]), ["ok"]);
    const before = (await pageHeap(sandpit.page)).js;
    const large = Array.from({ length: RUNS }, (_, i) => program(i));
    // As many small runs as the list keeps (KEPT_RUNS in src/app/mod.rs): the large ones leave it.
    const small = Array.from({ length: 100 }, (_, i) => `${i} + 1`);
    const statuses = await runAll([...large, ...small]);
    assert.ok(statuses.every((status) => status === "ok"), JSON.stringify(statuses));
    const growth = (await pageHeap(sandpit.page)).js - before;
    const printed = RUNS * PRINTED;
    assert.ok(
      growth < printed / 4,
      `the JS heap grew by ${growth} bytes after ${RUNS} runs printing ${printed} characters in all had ` +
        `left the run list: their results are still held (bound ${printed / 4})`,
    );
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});
