// Kept results live outside the app's wasm memory. A wasm module's linear
// memory never shrinks, so a history of results held there would keep the
// largest it ever held for the life of the page (benchmark figure 8). The
// runs the page keeps hold their output as JS strings instead: here many
// large-output runs are kept, and the app's wasm memory must grow by far
// less than the output they hold. A size bound, not a timing.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { serveDemo } from "../../scripts/serve.mjs";
import { READY_TIMEOUT_MS, RUN_TIMEOUT_MS, startApp } from "./harness.mjs";

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
    window.__appMemory = event.detail?.wasm?.memory ?? null;
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

describe("the app's wasm memory with many large results kept", () => {
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
    await sandpit.page.goto(new URL("host.html", host.url).href);
    await sandpit.page.evaluate(
      async ({ appUrl, timeoutMs }) => {
        const { Sandpit } = await import(new URL("sandpit-client.js", appUrl).href);
        window.sandpit = await Sandpit.create({ headless: true, timeoutMs });
      },
      { appUrl: app.url, timeoutMs: READY_TIMEOUT_MS },
    );
    const widget = sandpit.page.frames().find((frame) => frame.url().includes("/widget.html"));
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
});
