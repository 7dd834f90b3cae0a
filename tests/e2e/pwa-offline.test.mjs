// @ts-check
// The app offline: after one visit online it starts, runs Python and imports
// every bundled wheel with the network gone and the server stopped, visit
// after visit; offline too early, a run says which file it lacks; the copy
// downloads only once Python has started; a tampered cache is never served.
// Each test starts its own server and browser and stops both (pwa-app.mjs).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";

import { readPrecache } from "../../scripts/precache.mjs";
import { WORKER_PATH } from "../../www/generated/names.js";
import { DIST } from "./harness.mjs";
import { cachedSha256, useAppPerTest } from "./pwa-app.mjs";

const app = useAppPerTest();

/** The import names of every wheel the bundle ships, from its manifest and lockfile. */
async function bundledImports() {
  const manifest = JSON.parse(await readFile(join(DIST, "pyodide/manifest.json"), "utf8"));
  const lock = JSON.parse(await readFile(join(DIST, "pyodide/pyodide-lock.json"), "utf8"));
  return manifest.bundled.flatMap((name) => lock.packages[name].imports);
}

/**
 * Python that imports each of `names` and evaluates to the ones that failed,
 * with why: each by its own `import` statement, which is how a run's
 * packages are found and loaded.
 */
const importEach = (names) =>
  [
    "failed = {}",
    ...names.flatMap((name) => ["try:", `    import ${name}`, "except Exception as error:", `    failed[${JSON.stringify(name)}] = repr(error)`]),
    "failed",
  ].join("\n");

/** Waits until Settings says the app works offline and the start-up snapshot is kept. */
async function waitOfflineAndSnapshot(sandpit) {
  await sandpit.openSettings();
  const version = await sandpit.waitOfflineReady();
  await sandpit.page
    .locator('[data-testid="snapshot-state"][data-state="stored"]')
    .waitFor({ timeout: 90_000 });
  return version;
}

describe("offline", () => {

  test("after one visit online the app starts, runs Python and imports every bundled wheel with no network", async () => {
    const sandpit = await app.open();
    const version = await sandpit.waitOfflineReady();
    assert.equal(version, (await readPrecache(DIST)).version, "the version built is the one cached");
    const { files } = await readPrecache(DIST);
    const wheels = Object.keys(files).filter((path) => path.endsWith(".whl"));
    const kept = Object.values(await sandpit.cacheContents()).flat();
    assert.deepEqual(
      wheels.filter((path) => !kept.includes(new URL(path, app.url).href)),
      [],
      "every bundled wheel is kept for offline use",
    );

    const HEADERS = [
      "content-security-policy",
      "cross-origin-opener-policy",
      "cross-origin-embedder-policy",
      "cross-origin-resource-policy",
      "x-content-type-options",
    ];
    const securityHeaders = (headers) => HEADERS.map((name) => [name, headers.get(name)]);
    const served = securityHeaders((await fetch(new URL(WORKER_PATH, app.url))).headers);

    await sandpit.page.context().setOffline(true);
    await app.server.close();
    await sandpit.reload();
    await sandpit.waitReady();
    // The service worker gives the worker script the headers the server gave it.
    const fromCache = await sandpit.page.evaluate(
      async ({ path, names }) => {
        const { headers } = await fetch(path);
        return names.map((name) => [name, headers.get(name)]);
      },
      { path: WORKER_PATH, names: HEADERS },
    );
    assert.deepEqual(fromCache, served);
    assert.match(served[0][1], /connect-src 'self'/);
    const result = await sandpit.run("print(1)");
    assert.equal(result.phase, "ok");
    assert.deepEqual(result.output, [{ stream: "stdout", text: "1\n" }]);
    // Bundled packages come from the cache too (sympy pulls in mpmath).
    const sympy = await sandpit.run("import sympy\nsympy.sqrt(8)");
    assert.equal(sympy.phase, "ok", JSON.stringify(sympy.json?.error));
    // Shown as math (its LaTeX display), so read from the result a model gets.
    assert.equal(sympy.json.value.repr, "2*sqrt(2)");
    assert.deepEqual(sympy.displays.map((d) => d.mime), ["text/latex"]);
    // And every other bundled wheel, each by the names it is imported as.
    const imported = await sandpit.run(importEach(await bundledImports()));
    assert.equal(imported.phase, "ok", JSON.stringify(imported.json?.error));
    assert.equal(imported.json.value.repr, "{}");
    // The service worker's headers isolate the page: runs stop by interrupt.
    assert.equal(await sandpit.page.evaluate(() => crossOriginIsolated), true);
    const reachable = await sandpit.page.evaluate(() =>
      fetch("not-in-the-bundle.txt").then(
        () => true,
        () => false,
      ),
    );
    assert.equal(reachable, false, "the network really is gone");
    await sandpit.assertHealthy({ allow: [/ERR_INTERNET_DISCONNECTED.*not-in-the-bundle/] });
  });

  test("ten times in a row: a first visit online, then offline, a reload runs Python", async () => {
    for (let visit = 1; visit <= 10; visit++) {
      await app.start();
      const sandpit = await (await app.newProfilePage()).open();
      await sandpit.waitReady();
      // A first run, as a person makes it: the rest of the offline copy downloads after it.
      assert.equal((await sandpit.run("print('online')")).phase, "ok", `visit ${visit}`);
      await waitOfflineAndSnapshot(sandpit);
      await sandpit.page.context().setOffline(true);
      await app.server.close();
      await sandpit.reload();
      await sandpit.waitReady();
      assert.equal(await sandpit.page.getByTestId("runtime-state").getAttribute("data-snapshot"), "used", `visit ${visit}`);
      const result = await sandpit.run(`print(${visit} * 7)`);
      assert.equal(result.phase, "ok", `visit ${visit}: ${JSON.stringify(result.json?.error)}`);
      assert.deepEqual(result.output, [{ stream: "stdout", text: `${visit * 7}\n` }]);
      await sandpit.assertHealthy();
      await app.close();
    }
  });

  test("offline before the copy was kept, a run that needs a wheel says which file it could not load", async () => {
    const sandpit = await app.open();
    // Python is up, the page controlled, but no run has asked for the rest of the copy yet.
    await sandpit.page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await sandpit.page.context().setOffline(true);
    await app.server.close();
    const result = await sandpit.run("import tabulate");
    assert.equal(result.phase, "error");
    assert.match(JSON.stringify(result.json.error), /tabulate-0\.9\.0-py3-none-any\.whl/);
    await sandpit.assertHealthy({ allow: [/tabulate/, /503/, /ERR_INTERNET_DISCONNECTED/] });
  });

  test("the offline copy is downloaded once Python has started, not while it loads", async () => {
    await app.start();
    const sandpit = await app.newPage();
    const held = await sandpit.holdDownloads("**/pyodide/python_stdlib.zip");
    await sandpit.open();
    await sandpit.page.getByTestId("runtime-state").waitFor();
    assert.equal(await sandpit.runtimeState(), "loading");
    const registered = () => sandpit.page.evaluate(async () => (await navigator.serviceWorker.getRegistration()) !== undefined);
    assert.equal(await registered(), false, "no service worker while Python loads");
    held.release();
    await sandpit.waitReady();
    await sandpit.waitOfflineReady();
    assert.equal(await registered(), true);
    await sandpit.assertHealthy();
  });

  test("a cached file that was tampered with is fetched again, never served", async () => {
    const sandpit = await app.open();
    await sandpit.waitOfflineReady();
    const { files } = await readPrecache(DIST);
    const tamper = (paths) =>
      sandpit.page.evaluate(async (paths) => {
        for (const name of await caches.keys()) {
          const cache = await caches.open(name);
          for (const path of paths) {
            const url = new URL(path, document.baseURI);
            const body = path.endsWith(".json.gz")
              ? JSON.stringify({ "sandpit_runner/__init__.py": 'raise SystemExit("tampered runner")\n' })
              : "<!doctype html><title>tampered</title><p>tampered page</p>";
            if (await cache.match(url)) await cache.put(url, new Response(body));
          }
        }
      }, paths);
    const tampered = ["index.html", "pyodide-loader/python.json.gz"];
    await tamper(tampered);

    await sandpit.reload();
    await sandpit.waitReady();
    assert.notEqual(await sandpit.page.title(), "tampered");
    assert.equal((await sandpit.run("print(1)")).phase, "ok");
    for (const path of tampered) {
      assert.equal(await cachedSha256(sandpit, path), files[path].sha256, `${path} was fetched again`);
    }

    // Offline, a bad copy cannot be replaced: the request fails, the copy is not run.
    await tamper(["pyodide-loader/python.json.gz"]);
    await sandpit.page.context().setOffline(true);
    await app.server.close();
    await sandpit.reload();
    await sandpit.page
      .locator('[data-testid="runtime-state"][data-state="failed"]')
      .waitFor({ timeout: 60_000 });
    const state = await sandpit.page.getByTestId("runtime-state").textContent();
    assert.doesNotMatch(state, /tampered runner/);
    await sandpit.assertHealthy({ allow: [/Python failed to start/, /503/] });
  });
});
