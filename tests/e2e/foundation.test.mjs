// @ts-check
// The walking skeleton, end to end: the real bundle, real Chromium, real Pyodide.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startApp, useSandpit } from "./harness.mjs";

describe("running Python from the page", () => {
  let sandpit;

  useSandpit((page) => {
    sandpit = page;
  });

  test("the status line names the Python and Pyodide versions", async () => {
    const text = await sandpit.page.getByTestId("runtime-state").textContent();
    assert.match(text, /Ready: Python 3\.14\.\d+ \(Pyodide 314\.0\.7\)/);
  });

  test("print goes to stdout", async () => {
    const result = await sandpit.run('print("hello", 6 * 7)');
    assert.equal(result.phase, "ok");
    assert.deepEqual(result.output, [{ stream: "stdout", text: "hello 42\n" }]);
    assert.equal(result.value, null, "a print has no value to show");
  });

  test("the last expression's value is shown", async () => {
    const result = await sandpit.run("xs = [1, 2, 3]\n{'total': sum(xs), 'xs': xs}");
    assert.equal(result.phase, "ok");
    assert.equal(result.value, "{'total': 6, 'xs': [1, 2, 3]}");
  });

  test("stderr is kept in order with stdout and shown differently", async () => {
    const result = await sandpit.run(
      'import sys\nprint("one")\nprint("two", file=sys.stderr)\nprint("three")',
    );
    assert.deepEqual(result.output, [
      { stream: "stdout", text: "one\n" },
      { stream: "stderr", text: "two\n" },
      { stream: "stdout", text: "three\n" },
    ]);
    const [stdoutColor, stderrColor] = await sandpit.page.evaluate(() =>
      [".stdout", ".stderr"].map((selector) => {
        const spans = document.querySelectorAll(`[data-testid="run-entry"]:last-child ${selector}`);
        return getComputedStyle(spans[0]).color;
      }),
    );
    assert.notEqual(stderrColor, stdoutColor, "stderr must look different from stdout");
  });

  test("an exception reports its type, message and line, and keeps earlier output", async () => {
    const result = await sandpit.run('print("before")\nx = 1\ny = x / 0\nprint("after")');
    assert.equal(result.phase, "error");
    assert.equal(result.errorType, "ZeroDivisionError");
    assert.equal(result.errorMessage, "division by zero");
    assert.equal(result.errorLine, "3");
    assert.equal(result.highlightedLine, "3", "the failing line is marked in the code");
    assert.deepEqual(result.output, [{ stream: "stdout", text: "before\n" }]);
  });

  test("an exception raised inside a function points at the user's line", async () => {
    const result = await sandpit.run("def f(d):\n    return d['missing']\n\nf({})");
    assert.equal(result.errorType, "KeyError");
    assert.equal(result.errorLine, "2");
  });

  test("a SyntaxError reports its line", async () => {
    const result = await sandpit.run("x = 1\nif x\n    print(x)");
    assert.equal(result.phase, "error");
    assert.equal(result.errorType, "SyntaxError");
    assert.equal(result.errorLine, "2");
    assert.match(result.errorMessage, /expected ':'/);
  });

  test("runs in the same session share state", async () => {
    assert.equal((await sandpit.run("x = 1")).phase, "ok");
    const result = await sandpit.run("x + 1");
    assert.equal(result.value, "2");
  });

  test("Ctrl+Enter runs the code", async () => {
    const result = await sandpit.run("'from the keyboard'", { keyboard: true });
    assert.equal(result.value, "'from the keyboard'");
  });

  test("top-level await works", async () => {
    const result = await sandpit.run("import asyncio\nawait asyncio.sleep(0)\n'awaited'");
    assert.equal(result.value, "'awaited'");
  });

  test("output is shown while the run is still running", async () => {
    const index = await sandpit.submit('import time\nfor i in range(600):\n    print(f"tick {i}")\n    time.sleep(0.1)');
    const entry = sandpit.page.getByTestId("run-entry").nth(index);
    await entry.getByTestId("stdout").filter({ hasText: "tick 1" }).waitFor();
    assert.equal(await entry.getAttribute("data-phase"), "running");
    await sandpit.page.getByTestId("stop").click();
    assert.equal((await sandpit.result(index)).phase, "cancelled");
  });

  test("long output is complete, copyable and findable, though laid out only where in view", async () => {
    const result = await sandpit.run('for i in range(2000):\n    print(f"line {i:04} " + "x" * 90)');
    const expected = Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(4, "0")} ${"x".repeat(90)}\n`).join("");
    assert.deepEqual(result.output, [{ stream: "stdout", text: expected }]);
    const shown = await sandpit.page.evaluate(() => {
      const output = document.querySelector('[data-testid="run-entry"]:last-child [data-testid="output"]');
      const blocks = output.querySelectorAll(".output-block").length;
      // Selecting the whole output (as a user's select-all and copy would) takes in every block.
      const range = document.createRange();
      range.selectNodeContents(output);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      const selected = getSelection().toString();
      getSelection().removeAllRanges();
      // Find in page reaches the last line, in a block never scrolled into view.
      const found = window.find("line 1999");
      getSelection().removeAllRanges();
      return { blocks, selected, found };
    });
    assert.ok(shown.blocks > 10, `the output is cut into blocks (${shown.blocks})`);
    assert.equal(shown.selected.replace(/\n$/, ""), expected.replace(/\n$/, ""));
    assert.ok(shown.found, "find in page finds the last line");
  });

  test("1 MB of output is capped with a marker and the page stays responsive", async () => {
    const index = await sandpit.submit('for i in range(10_000):\n    print("x" * 99)');
    // While the flood streams in, the page still takes input.
    await sandpit.setCode("still typing");
    const result = await sandpit.result(index);
    assert.equal(result.phase, "ok");
    const shown = result.output.map((chunk) => chunk.text).join("");
    assert.equal(shown.length, 256 * 1024, "output is cut at the default 256 KiB");
    assert.match(result.truncated, /Output truncated: showing the first 262\.1 KB of 1\.0 MB/);
  });
});

describe("a long session", () => {
  let app;
  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app?.close();
  });

  test("shows the last 100 runs (what a reload brings back), newest last in the page and first on screen, and writes out a result's JSON only when asked", async () => {
    const sandpit = await (await app.newPage()).open();
    await sandpit.waitReady();
    // 105 runs, queued at once.
    await sandpit.runRepeatedly("n = globals().get('n', 0) + 1\nn", 105, 100);
    const values = await sandpit.runValues();
    assert.equal(values.length, 100);
    assert.equal(values[0], "6", "the five oldest runs were let go");
    assert.equal(values.at(-1), "105");
    // Shown newest first, from groups of ten that the browser may skip whole while out of view.
    const layout = await sandpit.page.evaluate(() => ({
      tops: [...document.querySelectorAll('[data-testid="run-entry"]')].map((entry) => entry.getBoundingClientRect().top),
      groups: [...document.querySelectorAll(".run-group")].map((group) => [
        group.querySelectorAll('[data-testid="run-entry"]').length,
        getComputedStyle(group).contentVisibility,
      ]),
    }));
    assert.ok(layout.tops.every((top, i) => i === 0 || top < layout.tops[i - 1]), "each run is drawn above the one before it");
    // Runs 6 to 105: the first group has lost its five oldest, the last has its first five.
    assert.deepEqual(layout.groups, [[5, "auto"], ...Array(9).fill([10, "auto"]), [5, "auto"]]);
    assert.equal(await sandpit.page.getByTestId("result-json").count(), 0, "no result is written out unasked");
    await sandpit.page.getByTestId("run-entry").nth(99).getByTestId("result-json-toggle").click();
    assert.equal(await sandpit.page.getByTestId("result-json").count(), 1);
    assert.equal(JSON.parse(await sandpit.page.getByTestId("result-json").textContent()).value.repr, "105");
    await sandpit.assertHealthy();
    await sandpit.close();
  });
});

describe("a run started while Python is loading", () => {
  let app;

  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app?.close();
  });

  test("is queued, shown as queued, and completes once Python is ready", async () => {
    const sandpit = await app.newPage();
    // Hold the standard library download so the run is certainly submitted first.
    const held = await sandpit.holdDownloads("**/pyodide/python_stdlib.zip");
    await sandpit.open();
    const index = await sandpit.submit("print('queued run')\n21 * 2");
    assert.equal(await sandpit.runtimeState(), "loading");
    const phase = await sandpit.page.getByTestId("run-entry").nth(index).getAttribute("data-phase");
    assert.equal(phase, "queued");
    const second = await sandpit.submit("'second'");
    held.release();
    const result = await sandpit.result(index);
    assert.equal(result.phase, "ok");
    assert.deepEqual(result.output, [{ stream: "stdout", text: "queued run\n" }]);
    assert.equal(result.value, "42");
    assert.equal((await sandpit.result(second)).value, "'second'");
    await sandpit.assertHealthy();
    await sandpit.close();
  });

  test(
    "Python starts loading before the page has checked the worker's CSP, but the worker gets no code until it has",
    // Were Python not loading meanwhile, the test would wait for it for ever: it fails instead.
    { timeout: 120_000 },
    async () => {
      const sandpit = await app.newPage();
      const context = sandpit.page.context();
      const finished = new Set();
      let loaded;
      const pythonLoaded = new Promise((resolve) => {
        loaded = resolve;
      });
      const python = ["/pyodide/pyodide.asm.wasm", "/pyodide/python_stdlib.zip"];
      context.on("requestfinished", (request) => {
        finished.add(new URL(request.url()).pathname);
        if (python.every((path) => finished.has(path))) loaded();
      });
      // The page's check is its fetch of the worker's script. The worker's
      // own load of it is no fetch, and its own look at it comes from the
      // script itself (its referrer).
      let releaseCheck;
      const checkHeld = new Promise((resolve) => {
        releaseCheck = resolve;
      });
      await context.route("**/pyodide-loader/worker.mjs", async (route) => {
        const request = route.request();
        const byPage = request.resourceType() === "fetch" && !request.headers().referer?.endsWith("worker.mjs");
        if (byPage) await checkHeld;
        await route.continue();
      });
      await sandpit.open();
      await pythonLoaded;

      const inits = await sandpit.page.evaluate(() => window.__sandpitMessages.filter((m) => m.kind === "init"));
      assert.deepEqual(inits, [], "the worker got init before the CSP check passed");
      assert.equal(await sandpit.runtimeState(), "loading");

      releaseCheck();
      await sandpit.waitReady();
      assert.equal((await sandpit.run("6 * 7")).value, "42");
      await sandpit.assertHealthy();
      await sandpit.close();
    },
  );

  test("Python's worker is created while the page is parsed, before the app runs, and Python starts in it", async () => {
    const sandpit = await app.newPage();
    await sandpit.page.addInitScript(() => {
      const NativeWorker = window.Worker;
      window.__workers = [];
      window.Worker = class extends NativeWorker {
        /** @param {ConstructorParameters<typeof Worker>} args */
        constructor(...args) {
          super(...args);
          // "loading" only while the HTML is parsed: the app is a module script, which runs after.
          this.createdWhile = document.readyState;
          this.inits = 0;
          window.__workers.push(this);
        }
        postMessage(data, ...rest) {
          if (data?.init) this.inits += 1;
          return super.postMessage(data, ...rest);
        }
      };
    });
    await (await sandpit.open()).waitReady();
    const workers = await sandpit.page.evaluate(() =>
      window.__workers.map(({ createdWhile, inits }) => ({ createdWhile, inits })),
    );
    assert.deepEqual(workers[0], { createdWhile: "loading", inits: 1 }, JSON.stringify(workers));
    assert.equal(workers.filter((w) => w.createdWhile === "loading").length, 1, JSON.stringify(workers));
    assert.equal(await sandpit.page.evaluate(() => "sandpitWorker" in window), false, "the app left it in the page");
    assert.equal((await sandpit.run("6 * 7")).value, "42");
    await sandpit.assertHealthy();
    await sandpit.close();
  });

  test("starting and running log no warnings on the console", async () => {
    const sandpit = await (await app.newPage()).open();
    await sandpit.waitReady();
    assert.equal((await sandpit.run("6 * 7")).value, "42");
    // The snapshot maker's start is covered too: it stores the snapshot, then the warm spare starts.
    await sandpit.page.waitForFunction(
      () => window.__sandpitMessages.some((m) => m.kind === "snapshot_stored"),
      null,
      { timeout: 90_000, polling: 100 },
    );
    assert.deepEqual(sandpit.warnings, []);
    await sandpit.assertHealthy();
    await sandpit.close();
  });

  test("a worker script that does not load fails the start, with why, and the queued run too", async () => {
    const sandpit = await app.newPage();
    // The worker's own load of its script (the page's CSP check, a fetch, gets it).
    await sandpit.page.context().route("**/pyodide-loader/worker.mjs", (route) =>
      route.request().resourceType() === "fetch" ? route.continue() : route.fulfill({ status: 404, body: "gone" }),
    );
    await sandpit.open();
    const index = await sandpit.submit("1 + 1");
    await sandpit.page
      .locator('[data-testid="runtime-state"][data-state="failed"]')
      .waitFor({ timeout: 60_000 });
    assert.match(await sandpit.page.getByTestId("runtime-state").textContent(), /the Python worker stopped: its script could not be loaded/);
    const result = await sandpit.result(index);
    assert.equal(result.phase, "failed");
    await sandpit.close();
  });

  test("download progress is reported in bytes before ready", async () => {
    const sandpit = await (await app.newPage()).open();
    await sandpit.waitReady();
    const messages = await sandpit.assertHealthy();
    const progress = messages.filter((m) => m.from === "worker" && m.kind === "progress").map((m) => m.data.progress);
    assert.ok(progress.length >= 2, "several progress messages arrive");
    // Python starts loading before the page can hear of it: the worker then
    // sends its latest progress, which may be past the download already.
    const total = progress[0].total;
    assert.ok(total > 10_000_000, `the total covers the interpreter and stdlib (${total})`);
    assert.ok(
      progress.every((p) => p.total === total && p.loaded <= total),
      "every message counts against one total",
    );
    const loading = progress.filter((p) => ["download", "start"].includes(p.stage));
    assert.ok(
      loading.some((p) => p.loaded === total),
      "the bytes counted while loading reach the total",
    );
    await sandpit.close();
  });
});
