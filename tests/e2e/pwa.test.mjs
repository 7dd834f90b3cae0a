// @ts-check
// The installable, offline app: the service worker, updates, installation,
// and the user's work across reloads. Each test starts its own server and
// browser and stops both.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, describe, test } from "node:test";

import { readPrecache, writePrecache } from "../../scripts/precache.mjs";
import { CONFIG_FILE, WORKER_PATH } from "../../www/generated/names.js";
import { startCanary } from "./canary.mjs";
import { DIST, screenshot, startApp } from "./harness.mjs";

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** Temporary directories, removed after the file's tests. */
const scratch = [];
async function scratchDir() {
  const dir = await mkdtemp(join(tmpdir(), "sandpit-pwa-"));
  scratch.push(dir);
  return dir;
}
after(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** Each test's own server and browser (service workers persist per origin and context). */
let app;
afterEach(async () => {
  await app?.close();
  app = null;
});

/** Starts this test's app (options as `startApp`), opens it and waits for Python. */
async function openApp(options) {
  app = await startApp(options);
  return (await (await app.newPage()).open()).waitReady();
}

/**
 * A copy of the built bundle as another deployment: `edit(dir)` changes its
 * files, then its precache list is written again, as the build would.
 */
async function deployment(edit) {
  const dir = join(await scratchDir(), "dist");
  await cp(DIST, dir, { recursive: true });
  await edit(dir);
  return { dir, ...(await writePrecache(dir)) };
}

/** Marks a deployment's page so a test can tell which one it is running. */
async function markIndex(dir, marker) {
  const path = join(dir, "index.html");
  const html = await readFile(path, "utf8");
  await writeFile(path, html.replace("<head>", `<head><meta name="sandpit-test" content="${marker}">`));
}

const pageMarker = (sandpit) =>
  sandpit.page.evaluate(() => document.querySelector('meta[name="sandpit-test"]')?.getAttribute("content") ?? null);

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

/** The sha256 of what Cache Storage holds for `path` (relative to the app), or null. */
function cachedSha256(sandpit, path) {
  return sandpit.page.evaluate(async (path) => {
    const response = await caches.match(new URL(path, document.baseURI));
    if (!response) return null;
    const digest = await crypto.subtle.digest("SHA-256", await response.arrayBuffer());
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  }, path);
}

describe("offline", () => {

  test("after one visit online the app starts, runs Python and imports every bundled wheel with no network", async () => {
    const sandpit = await openApp();
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
      app = await startApp();
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
      app = null;
    }
  });

  test("offline before the copy was kept, a run that needs a wheel says which file it could not load", async () => {
    const sandpit = await openApp();
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
    app = await startApp();
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
    const sandpit = await openApp();
    await sandpit.waitOfflineReady();
    const { files } = await readPrecache(DIST);
    const tamper = (paths) =>
      sandpit.page.evaluate(async (paths) => {
        for (const name of await caches.keys()) {
          const cache = await caches.open(name);
          for (const path of paths) {
            const url = new URL(path, document.baseURI);
            const body = path.endsWith(".json")
              ? JSON.stringify({ "sandpit_runner/__init__.py": 'raise SystemExit("tampered runner")\n' })
              : "<!doctype html><title>tampered</title><p>tampered page</p>";
            if (await cache.match(url)) await cache.put(url, new Response(body));
          }
        }
      }, paths);
    const tampered = ["index.html", "pyodide-loader/python.json"];
    await tamper(tampered);

    await sandpit.reload();
    await sandpit.waitReady();
    assert.notEqual(await sandpit.page.title(), "tampered");
    assert.equal((await sandpit.run("print(1)")).phase, "ok");
    for (const path of tampered) {
      assert.equal(await cachedSha256(sandpit, path), files[path].sha256, `${path} was fetched again`);
    }

    // Offline, a bad copy cannot be replaced: the request fails, the copy is not run.
    await tamper(["pyodide-loader/python.json"]);
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

describe("offline under every way of serving", () => {
  test("served as `make run` serves it (the demo's origin added to the config), the app installs and runs offline", async () => {
    app = await startApp({ makeRun: true });
    const built = JSON.parse(await readFile(join(DIST, CONFIG_FILE), "utf8"));
    const served = await (await fetch(new URL(CONFIG_FILE, app.url))).json();
    assert.notDeepEqual(served, built, "make run serves another config than the one built");
    const sandpit = await (await app.newPage()).open();
    await sandpit.waitReady();
    await sandpit.waitOfflineReady();
    assert.equal(await sandpit.page.evaluate(() => navigator.serviceWorker.controller !== null), true);
    await sandpit.page.getByTestId("settings").locator("summary").click();
    await sandpit.page.getByTestId("offline-packages").filter({ hasText: "sympy" }).waitFor();

    await sandpit.page.context().setOffline(true);
    await app.server.close();
    await sandpit.reload();
    await sandpit.waitReady();
    const result = await sandpit.run("print(6 * 7)");
    assert.equal(result.phase, "ok");
    assert.deepEqual(result.output, [{ stream: "stdout", text: "42\n" }]);
    // The config the page read is the one kept: the demo's origin is in it offline too.
    const offline = await sandpit.page.evaluate(async (path) => (await fetch(path)).json(), CONFIG_FILE);
    assert.deepEqual(offline, served);
    await sandpit.assertHealthy();
  });

  test("a config edited after the build installs too, and its network allowlist reaches the worker's CSP", async () => {
    const origin = "https://api.example.org";
    const { dir } = await deployment(() => {});
    // Edited after the precache list was written, as a deployer would.
    const config = JSON.parse(await readFile(join(dir, CONFIG_FILE), "utf8"));
    config.network = { allow: [origin] };
    await writeFile(join(dir, CONFIG_FILE), JSON.stringify(config));
    const sandpit = await openApp({ root: dir });
    await sandpit.waitOfflineReady();
    await sandpit.page.getByTestId("settings").locator("summary").click();
    await sandpit.page.getByTestId("network-allow").filter({ hasText: origin }).waitFor();

    await sandpit.page.context().setOffline(true);
    await app.server.close();
    await sandpit.reload();
    await sandpit.waitReady();
    const csp = await sandpit.page.evaluate(async (path) => (await fetch(path)).headers.get("content-security-policy"), WORKER_PATH);
    assert.match(csp ?? "", new RegExp(`connect-src 'self' ${origin.replaceAll(".", "\\.")}`));
    assert.equal((await sandpit.run("print(1)")).phase, "ok");
    await sandpit.assertHealthy();
  });

  test("a failed install says why in Settings, the Install button stays hidden, and Try again retries", async () => {
    const missing = "pyodide/tabulate-0.9.0-py3-none-any.whl";
    const { dir } = await deployment(() => {});
    // Listed in the precache, gone from the host: the install cannot finish.
    const kept = join(await scratchDir(), "kept.whl");
    await cp(join(dir, missing), kept);
    await rm(join(dir, missing));
    const sandpit = await openApp({ root: dir });
    await sandpit.page.getByTestId("settings").locator("summary").click();
    const state = sandpit.page.locator('[data-testid="offline-state"][data-state="failed"]');
    await state.waitFor({ timeout: 60_000 });
    assert.match(await state.textContent(), /could not be installed.*tabulate-0\.9\.0.*404/s);
    assert.equal(await sandpit.page.getByTestId("install").count(), 0);
    assert.equal((await sandpit.run("print(1)")).phase, "ok", "the app works while online");

    await cp(kept, join(dir, missing));
    await sandpit.page.getByTestId("retry-install").click();
    await sandpit.waitOfflineReady();
    await sandpit.assertHealthy({ allow: [/404/, /tabulate/] });
  });
});

/** Records every state the runtime's status line shows, from the page's first paint. */
function recordRuntimeStates() {
  window.__runtimeStates = [];
  new MutationObserver(() => {
    const state = document.querySelector('[data-testid="runtime-state"]')?.dataset.state;
    if (state && window.__runtimeStates.at(-1) !== state) window.__runtimeStates.push(state);
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

describe("a static host that sends no security headers", () => {
  test("Python waits for the service worker to add them, and is then fenced in", async () => {
    const canary = await startCanary();
    try {
      app = await startApp({ secure: false });
      const direct = await fetch(new URL(WORKER_PATH, app.url));
      assert.equal(direct.headers.get("content-security-policy"), null, "the host sends no CSP");
      const sandpit = await app.newPage();
      await sandpit.page.addInitScript(recordRuntimeStates);
      await (await sandpit.open()).waitReady();

      const states = await sandpit.page.evaluate(() => window.__runtimeStates);
      assert.ok(states.includes("securing"), `the page said it was securing Python: ${states}`);
      assert.ok(states.indexOf("securing") < states.indexOf("ready"), `${states}`);
      assert.equal(await sandpit.page.evaluate(() => navigator.serviceWorker.controller !== null), true);
      const { json: result } = await sandpit.run(`import js\nawait js.fetch("${canary.origin}/bare-host")`);
      assert.equal(result.status, "error", JSON.stringify(result));
      assert.equal(result.error.hint.code, "network_blocked");
      assert.ok(
        result.blocked.some((b) => b.directive === "connect-src" && b.url.startsWith(canary.origin)),
        JSON.stringify(result.blocked),
      );
      assert.deepEqual(canary.requests, [], "Python reached the canary");
      await sandpit.assertHealthy({ allow: [/Refused to connect/, /violates the following Content Security Policy/] });
    } finally {
      await canary.close();
    }
  });

  test("without a service worker, Python does not start at all", async () => {
    app = await startApp({ secure: false });
    const opened = await app.newPage({ serviceWorkers: "block" });
    const requested = [];
    opened.page.context().on("request", (request) => requested.push(new URL(request.url()).pathname));
    const sandpit = await opened.open();
    const state = sandpit.page.getByTestId("runtime-state");
    await sandpit.page
      .locator('[data-testid="runtime-state"][data-state="failed"]')
      .waitFor({ timeout: 60_000 });
    assert.match(await state.textContent(), /Python will not start unguarded/);
    const messages = await sandpit.page.evaluate(() => window.__sandpitMessages.length);
    assert.equal(messages, 0, "the Python worker was sent init, or sent something");
    const python = requested.filter((path) => /pyodide\.asm\.wasm|python_stdlib\.zip/.test(path));
    assert.deepEqual(python, [], "Python's interpreter or standard library was fetched");
    const errors = sandpit.errors.filter((error) => !/Python will not start unguarded/.test(error));
    assert.deepEqual(errors, [], "the page logged other errors");
  });
});

describe("updates", () => {

  test("a new deployment is offered, applied on reload, and leaves no stale cache", async () => {
    const v1 = await deployment((dir) => markIndex(dir, "v1"));
    const v2 = await deployment((dir) => markIndex(dir, "v2"));
    // v2 with its one new file cut short after it was listed: a download
    // that does not match what was built, as a half-finished upload gives.
    // (Unchanged files are copied from v1's cache, not downloaded again.)
    const broken = join(await scratchDir(), "dist");
    await cp(v2.dir, broken, { recursive: true });
    const page = join(broken, "index.html");
    const html = await readFile(page);
    await writeFile(page, html.subarray(0, html.length / 2));

    const sandpit = await openApp({ root: v1.dir });
    assert.equal(await sandpit.waitOfflineReady(), v1.version);
    assert.equal(await pageMarker(sandpit), "v1");

    // A broken deployment is found on the next visit, fails to install, and v1 stays.
    app.server.setRoot(broken);
    await sandpit.reload();
    await sandpit.page
      .locator('[data-testid="update-prompt"][data-state="failed"]')
      .waitFor({ state: "attached", timeout: 60_000 });
    assert.equal(await sandpit.page.getByTestId("apply-update").count(), 0);
    await sandpit.waitReady();
    assert.equal(await pageMarker(sandpit), "v1");
    assert.equal((await sandpit.run("print('still v1')")).phase, "ok");

    // The repaired deployment is offered...
    app.server.setRoot(v2.dir);
    await sandpit.reload();
    await sandpit.page.getByTestId("apply-update").waitFor({ timeout: 60_000 });
    assert.equal(await pageMarker(sandpit), "v1", "v1 runs until the user reloads");
    await sandpit.waitReady();

    // ...and "Reload to update" switches to it.
    await sandpit.reload(() => sandpit.page.getByTestId("apply-update").click());
    await sandpit.waitReady();
    assert.equal(await pageMarker(sandpit), "v2");
    assert.equal(await sandpit.waitOfflineReady(), v2.version);
    assert.equal(await sandpit.page.getByTestId("update-prompt").getAttribute("data-state"), "none");
    // Every listed file, and the config as the page last read it.
    const expected = [...Object.keys(v2.files), CONFIG_FILE]
      .map((path) => new URL(path, app.url).href)
      .sort();
    // The service worker's own caches (the start-up snapshot's is checked by its key, see snapshot.test.mjs).
    const owned = Object.entries(await sandpit.cacheContents()).filter(([name]) => name.startsWith("sandpit-"));
    assert.deepEqual(Object.fromEntries(owned), { [`sandpit-precache-${v2.version}`]: expected });
    assert.equal(await cachedSha256(sandpit, "index.html"), v2.files["index.html"].sha256);
    assert.equal((await sandpit.run("print(2)")).phase, "ok");
    await sandpit.assertHealthy();
  });
});

describe("installing", () => {

  test("Chromium reports the app installable and the Install button appears", async () => {
    app = await startApp();
    const sandpit = await (await app.newProfilePage()).open();
    await sandpit.waitOfflineReady();
    const cdp = await sandpit.page.context().newCDPSession(sandpit.page);
    const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
    assert.deepEqual(installabilityErrors, []);
    const manifest = await cdp.send("Page.getAppManifest");
    assert.deepEqual(manifest.errors, []);
    const icons = JSON.parse(manifest.data).icons.map((icon) => `${icon.sizes} ${icon.purpose}`);
    assert.deepEqual(icons.sort(), ["192x192 any", "192x192 maskable", "512x512 any", "512x512 maskable"]);
    await sandpit.page.getByTestId("install").waitFor({ timeout: 30_000 });
    await sandpit.waitReady();
    await sandpit.assertHealthy();
  });
});

describe("the user's work", () => {

  test("code, sessions and run history survive a reload; Clear data removes them", async () => {
    const sandpit = await openApp();
    const first = await sandpit.run("x = 6 * 7\nx");
    assert.equal(first.value, "42");
    await sandpit.newSession("second");
    await sandpit.setCode("print('a draft in second')");
    await sandpit.waitSaved();

    await sandpit.reload();
    assert.deepEqual(await sandpit.sessionNames(), ["main", "second"]);
    assert.equal(await sandpit.page.getByTestId("session").inputValue(), "second");
    assert.equal(await sandpit.code(), "print('a draft in second')");
    assert.equal(await sandpit.entryCount(), 1);
    const earlier = await sandpit.result(0);
    assert.equal(earlier.value, "42");
    assert.equal(
      await sandpit.page.getByTestId("run-entry").first().getAttribute("data-earlier"),
      "true",
    );
    await sandpit.selectSession("main");
    await sandpit.waitForCode("x = 6 * 7\nx");
    await sandpit.waitReady();

    await sandpit.openSettings();
    assert.match(await sandpit.page.getByTestId("storage-usage").textContent(), /Storage: .* used of /);
    await sandpit.page.getByTestId("clear-data").click();
    await sandpit.reload(() => sandpit.page.getByTestId("confirm-clear-data").click());
    assert.deepEqual(await sandpit.sessionNames(), ["main"]);
    assert.equal(await sandpit.entryCount(), 0);
    assert.match(await sandpit.code(), /Hello from Python/);
    await sandpit.waitReady();
    await sandpit.assertHealthy();
  });

  test("a reload brings back the latest 100 runs, and the older ones can be browsed", async () => {
    const sandpit = await openApp();
    await sandpit.waitReady();
    // 105 runs, queued at once: the page lets the five oldest go, the history keeps them.
    await sandpit.runRepeatedly("n = globals().get('n', 0) + 1\nn", 105, 100);
    await sandpit.waitSaved();
    await sandpit.reload();
    const values = await sandpit.runValues();
    assert.equal(values.length, 100);
    assert.equal(values[0], "6", "the page shows the latest 100");
    assert.equal(values.at(-1), "105");
    assert.match(await sandpit.page.getByTestId("runs-capped").textContent(), /shows the latest 100 runs; this browser keeps 105 \(up to 1000\)/);

    await sandpit.page.getByTestId("history-toggle").click();
    const lines = sandpit.page.getByTestId("history-run");
    await lines.nth(99).waitFor();
    assert.equal(await lines.count(), 100, "a page of 100, newest first");
    await sandpit.page.getByTestId("history-older").click();
    await lines.nth(104).waitFor();
    assert.equal(await sandpit.page.getByTestId("history-older").count(), 0, "nothing older");
    const oldest = lines.nth(104);
    assert.match(await oldest.textContent(), /^main · ok · n = globals/);
    await oldest.locator("button").click();
    assert.equal(await oldest.getByTestId("value").textContent(), "→ 1", "the oldest run, as the page showed it");
    await oldest.scrollIntoViewIfNeeded();
    await screenshot(sandpit.page, "history");
    await sandpit.waitReady();
    await sandpit.assertHealthy();
  });

  test("a finished run and the code are kept when the page is left the moment the run ends", async () => {
    // Runs and the workspace are written in batches; leaving the page writes the batch at once.
    const sandpit = await openApp();
    await sandpit.setCode("'left at once'");
    await sandpit.reload(() =>
      sandpit.page.evaluate(() => {
        const runs = document.querySelector('[data-testid="runs"]');
        new MutationObserver(() => {
          if (runs.querySelector('[data-testid="run-entry"][data-phase="ok"]')) location.reload();
        }).observe(runs, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-phase"] });
        document.querySelector('[data-testid="run"]').click();
      }),
    );
    assert.equal(await sandpit.code(), "'left at once'");
    assert.equal(await sandpit.entryCount(), 1);
    assert.equal((await sandpit.result(0)).value, "'left at once'");
    await sandpit.waitReady();
    await sandpit.assertHealthy();
  });
});

describe("the user's files", () => {
  /** What `repr()` of a list of sha256 hex digests looks like. */
  const digests = (...buffers) => `[${buffers.map((b) => `'${sha256(b)}'`).join(", ")}]`;
  const HASH_FILES = "import hashlib\n[hashlib.sha256(open(p, 'rb').read()).hexdigest() for p in PATHS]";

  test("Code and files survive a reload", async () => {
    const sandpit = await openApp();
    const attached = Buffer.from(Array.from({ length: 256 }, (_, n) => n));
    const written = Buffer.from("written by Python, é\n", "utf8");
    await sandpit.page
      .getByTestId("file-input")
      .setInputFiles({ name: "data.bin", mimeType: "application/octet-stream", buffer: attached });
    await sandpit.page.getByTestId("attached").filter({ hasText: "data.bin" }).waitFor();
    const code = "open('notes.txt', 'w').write('written by Python, é\\n')\nlen(open('data.bin', 'rb').read())";
    assert.equal((await sandpit.run(code)).value, "256");
    await sandpit.waitSaved();
    const kept = [
      ["data.bin", "kept"],
      ["notes.txt", "kept"],
    ];
    assert.deepEqual(await sandpit.sessionFiles(), kept);

    await sandpit.reload();
    assert.equal(await sandpit.code(), code);
    assert.deepEqual(await sandpit.sessionFiles(), kept, "listed again, before Python is back");
    assert.deepEqual(await sandpit.downloadSessionFile("data.bin"), attached);
    assert.deepEqual(await sandpit.downloadSessionFile("notes.txt"), written);
    await sandpit.waitReady();
    const read = await sandpit.run(HASH_FILES.replace("PATHS", "('data.bin', 'notes.txt')"));
    assert.equal(read.value, digests(attached, written), "Python finds both on disk, byte for byte");

    await sandpit.openSettings();
    await sandpit.page.getByTestId("clear-data").click();
    await sandpit.reload(() => sandpit.page.getByTestId("confirm-clear-data").click());
    assert.deepEqual(await sandpit.sessionFiles(), []);
    await sandpit.waitReady();
    assert.equal((await sandpit.run("import os\nsorted(os.listdir('.'))")).value, "[]");
    await sandpit.assertHealthy();
  });

  test("a file whose keeping failed on an earlier visit is named with the reason after a reload", async () => {
    const sandpit = await openApp();
    // Written as the app stores such a file (StoredFile in src/store/records.rs), as
    // a failed write would have left it: the bytes are rarely refused on demand.
    const reason = "the browser's storage refused the write (QuotaExceededError)";
    await sandpit.page.evaluate(
      (message) =>
        new Promise((/** @type {(value?: unknown) => void} */ resolve, reject) => {
          const opening = indexedDB.open("sandpit");
          opening.onerror = () => reject(opening.error);
          opening.onsuccess = () => {
            const record = { session: "main", path: "report.csv", size: 12, kept: { refused: { kind: "failed", message } } };
            const tx = opening.result.transaction("files", "readwrite");
            tx.objectStore("files").put(record, ["main", "report.csv"]);
            tx.oncomplete = () => {
              opening.result.close();
              resolve();
            };
            tx.onerror = () => reject(tx.error);
          };
        }),
      reason,
    );
    await sandpit.reload();
    assert.deepEqual(await sandpit.sessionFiles(), [["report.csv", "lost"]]);
    const note = sandpit.page.locator('[data-testid="session-file"][data-path="report.csv"] [data-testid="file-note"]');
    assert.equal(await note.textContent(), `not kept from the earlier visit: ${reason}`);
    await sandpit.assertHealthy();
  });

  test("a file too large to keep is named, before and after a reload; deleting a session deletes its files", async () => {
    const sandpit = await openApp();
    await sandpit.newSession("big");
    const large = Buffer.alloc(5_120_000).map((_, n) => n % 256);
    const run = await sandpit.run(
      [
        "open('large.bin', 'wb').write(bytes(range(256)) * 20_000)",
        "open('huge.bin', 'wb').write(b'x' * 16_000_001)",
        "open('small.txt', 'w').write('small')",
      ].join("\n"),
    );
    assert.equal(run.phase, "ok");
    await sandpit.waitSaved();
    assert.deepEqual(await sandpit.sessionFiles(), [
      ["huge.bin", "not-kept"],
      ["large.bin", "kept"],
      ["small.txt", "kept"],
    ]);
    const note = sandpit.page.locator('[data-testid="session-file"][data-path="huge.bin"] [data-testid="file-note"]');
    assert.equal(await note.textContent(), "not kept across reloads: larger than the 16.0 MB kept per file");

    await sandpit.reload();
    assert.deepEqual(await sandpit.sessionFiles(), [
      ["huge.bin", "lost"],
      ["large.bin", "kept"],
      ["small.txt", "kept"],
    ]);
    assert.equal(await note.textContent(), "not kept from the earlier visit: larger than the 16.0 MB kept per file");
    await sandpit.waitReady();
    const read = await sandpit.run(`import os\n${HASH_FILES.replace("PATHS", "sorted(os.listdir('.'))")}`);
    assert.equal(read.value, digests(large, Buffer.from("small")), "large.bin and small.txt are back, huge.bin is not");

    await sandpit.clearSession("delete-session");
    await sandpit.waitSaved();
    await sandpit.reload();
    await sandpit.newSession("big");
    assert.deepEqual(await sandpit.sessionFiles(), []);
    await sandpit.waitReady();
    assert.equal((await sandpit.run("import os\nsorted(os.listdir('.'))")).value, "[]");
    await sandpit.assertHealthy();
  });
});

describe("packages from another origin", () => {
  let packages;
  afterEach(async () => {
    await packages?.close();
  });

  test("are cached once and checked against the lockfile", async () => {
    const wheel = "sandpit_probe-1.0-py3-none-any.whl";
    const pinned = Buffer.from("a wheel whose sha256 the lockfile pins");
    const unpinned = Buffer.from("a wheel no lockfile knows");
    // A deployment whose lockfile pins one probe wheel, as Pyodide's pins its packages.
    const pinnedApp = await deployment(async (dir) => {
      const path = join(dir, "pyodide/pyodide-lock.json");
      const lock = JSON.parse(await readFile(path, "utf8"));
      lock.packages.sandpit_probe = {
        ...lock.packages.affine,
        name: "sandpit_probe",
        imports: ["sandpit_probe"],
        depends: [],
        file_name: wheel,
        sha256: sha256(pinned),
      };
      const text = JSON.stringify(lock);
      await writeFile(path, text);
      // Keep the download sizes the worker reports progress from in step.
      const sizes = join(dir, "pyodide/manifest.json");
      const manifest = JSON.parse(await readFile(sizes, "utf8"));
      manifest.fetched["pyodide-lock.json"] = Buffer.byteLength(text);
      await writeFile(sizes, JSON.stringify(manifest));
    });
    // Another loopback origin standing in for the package CDN.
    const bodies = {
      [`/good/${wheel}`]: pinned,
      [`/bad/${wheel}`]: Buffer.from("not what the lockfile pins"),
      "/other-1.0-py3-none-any.whl": unpinned,
    };
    const server = createServer((request, response) => {
      const body = bodies[new URL(request.url, "http://x").pathname];
      const headers = { "Access-Control-Allow-Origin": "*", "Cache-Control": "no-cache" };
      if (body) response.writeHead(200, headers).end(body);
      else response.writeHead(404, headers).end();
    });
    await new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(undefined)));
    packages = {
      url: `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}`,
      close: () => new Promise((ok) => server.close(ok)),
    };

    const sandpit = await openApp({ root: pinnedApp.dir });
    await sandpit.waitOfflineReady();
    const get = (path) =>
      sandpit.page.evaluate(async (url) => {
        const response = await fetch(url);
        return { status: response.status, text: await response.text() };
      }, `${packages.url}${path}`);

    assert.deepEqual(await get(`/good/${wheel}`), { status: 200, text: pinned.toString() });
    assert.deepEqual(await get("/other-1.0-py3-none-any.whl"), { status: 200, text: unpinned.toString() });
    const bad = await get(`/bad/${wheel}`);
    assert.equal(bad.status, 502, "a package that does not match the lockfile is refused");

    await packages.close();
    assert.deepEqual(await get(`/good/${wheel}`), { status: 200, text: pinned.toString() });
    assert.deepEqual(await get("/other-1.0-py3-none-any.whl"), { status: 200, text: unpinned.toString() });
    const cached = Object.entries(await sandpit.cacheContents()).filter(([name]) =>
      name.startsWith("sandpit-packages-"),
    );
    assert.equal(cached.length, 1);
    assert.deepEqual(cached[0][1], [`${packages.url}/good/${wheel}`, `${packages.url}/other-1.0-py3-none-any.whl`]);
    await sandpit.assertHealthy({ allow: [/502/] });
  });
});
