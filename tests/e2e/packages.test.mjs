// @ts-check
// Packages and figures, offline: every non-loopback host is unreachable in
// these tests (the harness aborts such requests), as for a user offline.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startApp, useSandpit } from "./harness.mjs";

/** What the browser logs when a download fails its integrity check, or cannot connect. */
const DOWNLOAD_FAILURES = [
  /Failed to find a valid digest in the 'integrity' attribute/,
  /Failed to load resource/,
  /net::ERR_INTERNET_DISCONNECTED/,
];

describe("packages", () => {
  let sandpit;
  let app;

  useSandpit(async (page, started) => {
    sandpit = page;
    app = started;
    // Importing sympy compiles hundreds of modules: give it room.
    await sandpit.setTimeoutSeconds(120);
  }, { allow: DOWNLOAD_FAILURES });

  test("import sympy works offline, from the bundled wheels, and gives a correct result", async () => {
    const result = await sandpit.run(
      "import sympy\nx = sympy.symbols('x')\nstr(sympy.integrate(sympy.sin(x) * x, x))",
    );
    assert.equal(result.phase, "ok", JSON.stringify(result.json.error));
    assert.equal(result.value, "'-x*cos(x) + sin(x)'");
  });

  test("package loading reports progress in bytes, and the names being loaded", async () => {
    await sandpit.assertHealthy();
    await sandpit.run("import tabulate\ntabulate.tabulate([[1, 2]])");
    const messages = (await sandpit.assertHealthy()).filter((m) => m.from === "worker");
    const progress = messages.filter((m) => m.kind === "package_progress").map((m) => m.data.package_progress);
    assert.ok(progress.length >= 1, "progress was reported");
    const last = progress.at(-1);
    assert.ok(last.packages.includes("tabulate"), JSON.stringify(last.packages));
    assert.ok(last.loaded > 10_000 && last.loaded === last.total, `${last.loaded} of ${last.total}`);
    // The clock stops while packages load: the worker says when that starts and ends.
    const order = messages.map((m) => m.kind).filter((kind) => kind !== "stream");
    assert.deepEqual(
      [order[0], order.at(-2), order.at(-1)],
      ["loading_packages", "started", "done"],
      order.join(", "),
    );
  });

  test("sandpit.verify's numeric checks load no package, its symbolic ones load the bundled sympy", async () => {
    // A session of its own, whose Python has not imported sympy yet.
    await sandpit.newSession("verify");
    await sandpit.assertHealthy();
    const close = await sandpit.run("from sandpit import verify\nverify.close({'a': [0.1 + 0.2]}, {'a': [0.3]})");
    assert.equal(close.value, "True");
    const loading = (await sandpit.assertHealthy()).filter((m) => ["loading_packages", "package_progress"].includes(m.kind));
    assert.deepEqual(loading, [], "nothing was loaded for verify.close");

    const holds = await sandpit.run("from sandpit import verify\nverify.equivalent('sin(x)**2 + cos(x)**2', '1', 'x')");
    assert.equal(holds.phase, "ok", JSON.stringify(holds.json.error));
    assert.equal(holds.value, "True");
    const loaded = (await sandpit.assertHealthy()).filter((m) => m.kind === "package_progress");
    assert.ok(loaded.some((m) => m.data.package_progress.packages.includes("sympy")), "sympy was loaded");

    const fails = await sandpit.run("from sandpit import verify\nverify.equivalent('(x + 1)**2', 'x**2 + 1', 'x')");
    assert.equal(fails.json.error.type, "VerificationError");
    assert.match(fails.json.error.message, /differ at \$x = -1000\$: 998001 against 1000001/);
    assert.ok(!fails.json.error.traceback.includes("sandpit/verify.py"), fails.json.error.traceback);
  });

  test("a run that loads no package gets one message back: its result", async () => {
    await sandpit.assertHealthy();
    assert.equal((await sandpit.run("import json\n1 + 1")).value, "2");
    const messages = await sandpit.assertHealthy();
    assert.deepEqual(
      messages.map((m) => `${m.from} ${m.kind}`),
      ["host run", "worker done"],
    );
  });

  test("imports of submodules load the top-level package", async () => {
    const result = await sandpit.run("import dateutil.parser\nstr(dateutil.parser.parse('2024-03-05').date())");
    assert.equal(result.value, "'2024-03-05'");
  });

  test("an explicit packages list loads what the imports do not name", async () => {
    await sandpit.newSession("preloaded");
    const code = "import importlib\nimportlib.import_module('cachetools').__name__";
    const without = await sandpit.run(code);
    assert.equal(without.errorType, "ModuleNotFoundError", "a dynamic import names no package");
    assert.match(without.json.error.hint.message, /'cachetools' ships with Sandpit but was not loaded/);
    await sandpit.setPackages("cachetools");
    assert.equal((await sandpit.run(code)).value, "'cachetools'");
    await sandpit.selectSession("main");
  });

  test("import numpy offline says it needs the network", async () => {
    const result = await sandpit.run("import numpy as np");
    assert.equal(result.errorType, "ModuleNotFoundError");
    assert.equal(result.hint, "package_needs_network");
    assert.match(result.json.error.hint.message, /'numpy' is a Pyodide package/);
  });

  test("a module with no browser build says so and suggests an alternative", async () => {
    const result = await sandpit.run("import tkinter");
    assert.equal(result.hint, "package_unavailable");
    assert.match(result.json.error.hint.message, /matplotlib/);
  });

  test("package loading does not count against the run's timeout", async () => {
    // Its own page, with no service worker: a held download must hit the network.
    const page = await (await app.newPage({ serviceWorkers: "block" })).open();
    await page.waitReady();
    const held = await page.holdDownloads("**/pyodide/pyparsing-*.whl");
    // Long enough for the import itself on a busy machine, shorter than the hold.
    await page.setTimeoutSeconds(3);
    const index = await page.submit("import pyparsing\npyparsing.Word('ab').parse_string('abba')[0]");
    // Held: the run waits for its package, not yet started (queued) or downloading (loading).
    await page.page
      .locator('[data-testid="run-entry"][data-phase="queued"], [data-testid="run-entry"][data-phase="loading"]')
      .waitFor();
    await page.page.waitForTimeout(4000);
    held.release();
    const result = await page.result(index);
    assert.equal(result.phase, "ok", JSON.stringify(result.json?.error));
    assert.equal(result.value, "'abba'");
    await page.assertHealthy();
    await page.close();
  });
});

describe("wheel integrity", () => {
  let app;

  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app?.close();
  });

  test("a wheel whose sha256 does not match the lockfile is refused", async () => {
    const sandpit = await app.newPage();
    let served = 0;
    await sandpit.page.context().route("**/pyodide/tabulate-*.whl", (route) => {
      served += 1;
      return route.fulfill({ status: 200, contentType: "application/octet-stream", body: "not the wheel" });
    });
    await sandpit.open();
    await sandpit.waitReady();
    const result = await sandpit.run("import tabulate");
    assert.equal(result.errorType, "ModuleNotFoundError");
    assert.equal(result.hint, "module_not_found");
    assert.match(result.json.error.hint.message, /'tabulate' ships with Sandpit but failed to load/);
    assert.ok(served >= 1, "the tampered wheel was served, and refused");
    await sandpit.assertHealthy({ allow: DOWNLOAD_FAILURES });
    await sandpit.close();
  });
});

describe("figures", () => {
  let sandpit;

  useSandpit((page) => {
    sandpit = page;
  });

  test("matplotlib is pointed at Sandpit's capturing backend before any import", async () => {
    const result = await sandpit.run("import os\nos.environ['MPLBACKEND']");
    assert.equal(result.value, "'module://_sandpit_matplotlib_backend'");
  });

  test("the backend's show() captures figures in order through the display path", async () => {
    // matplotlib itself comes from the CDN, unreachable here; a stand-in
    // pyplot with matplotlib's figure API exercises the same capture code.
    const result = await sandpit.run(
      [
        "import sys, types, base64",
        "PNG = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==')",
        "class Figure:",
        "    def __init__(self, n): self.n = n",
        "    def __repr__(self): return f'<Figure {self.n}>'",
        "    def savefig(self, buffer, format, bbox_inches): buffer.write(PNG if format == 'png' else b'<svg/>')",
        "figures = {1: Figure(1), 2: Figure(2)}",
        "pyplot = types.ModuleType('matplotlib.pyplot')",
        "pyplot.get_fignums = lambda: sorted(figures)",
        "pyplot.figure = lambda n: figures[n]",
        "pyplot.close = lambda which: figures.clear()",
        "sys.modules['matplotlib.pyplot'] = pyplot",
        "import _sandpit_matplotlib_backend as backend",
        "print('before show')",
        "backend.show()",
        "figures[3] = Figure(3)",
        "print('after show')",
      ].join("\n"),
    );
    assert.equal(result.phase, "ok");
    const figures = result.json.displays.map((d) => d["text/plain"]);
    assert.deepEqual(figures, ["<Figure 1>", "<Figure 2>", "<Figure 3>"], "show() and the end of the run both capture");
    assert.ok(result.json.displays.every((d) => d["image/png"]?.startsWith("iVBOR")));
    assert.deepEqual(result.displays.map((d) => d.tag), ["img", "img", "img"]);
    await sandpit.run("import sys\ndel sys.modules['matplotlib.pyplot']");
  });
});
