// @ts-check
// A first visit downloads each file once, the app's wasm and Python
// gzipped, and an embedded widget keeps no wheels; a host that sends the
// gzipped files with Content-Encoding works as well. What the service
// worker (www/sw.js, sw-bundle.js) keeps, and when,
// seen from browsers with an on-disk profile and their HTTP cache, as users
// have them, through a proxy that counts what the server really sends. Each
// test starts its own servers and browser and stops them.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, request as forward } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";

import { chromium } from "playwright-core";

import { serve, serveDemo } from "../../scripts/serve.mjs";
import { CONFIG_FILE, WIDGET_PAGE } from "../../www/generated/names.js";
import { DIST } from "./harness.mjs";
import { CHROMIUM_ARGS } from "./harness/browser.mjs";
import { SandpitPage } from "./harness/page.mjs";
import { recordWorkerMessages } from "./harness/protocol.mjs";
import { READY_TIMEOUT_MS } from "./harness/timeouts.mjs";
import { pollUntil } from "./harness/poll.mjs";

/** What each test started, stopped after it, last first. */
let stops = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
});

/**
 * A browser with a fresh on-disk profile that reaches loopback only: other
 * requests go to a proxy that is not there (unlike `context.route`, this
 * leaves the HTTP cache on). Its settings allow third-party storage, as a
 * browser that does not block third-party cookies has it, so a widget on
 * another site may keep files and register a service worker, partitioned by
 * the site that embeds it.
 */
async function profile() {
  const dir = await mkdtemp(join(tmpdir(), "sandpit-profile-"));
  stops.push(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, "Default"));
  await writeFile(join(dir, "Default", "Preferences"), JSON.stringify({ profile: { cookie_controls_mode: 0 } }));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
    proxy: { server: "http://127.0.0.1:9", bypass: "127.0.0.1, localhost" },
  });
  stops.push(() => context.close());
  return context;
}

/**
 * A proxy in front of `appUrl` that counts, by path, the responses whose body
 * the server sent in full (200s; a revalidation's 304 sends none).
 * `encoded`: it sends the bundle's gzipped files (`.gz`) with
 * `Content-Encoding: gzip`, as a host set up to serve precompressed files
 * might, and lists them in `encodedPaths`.
 *
 * @param {string} appUrl
 */
async function countingProxy(appUrl, { encoded = false } = {}) {
  const target = new URL(appUrl);
  /** @type {Record<string, number>} */
  const downloads = {};
  /** @type {string[]} */
  const encodedPaths = [];
  const server = createServer((request, response) => {
    const upstream = forward(
      { host: target.hostname, port: target.port, path: request.url, method: request.method, headers: request.headers },
      (answer) => {
        const path = new URL(request.url ?? "/", appUrl).pathname.slice(1);
        if (answer.statusCode === 200 && request.method === "GET") downloads[path] = (downloads[path] ?? 0) + 1;
        if (encoded && answer.statusCode === 200 && path.endsWith(".gz")) {
          answer.headers["content-encoding"] = "gzip";
          encodedPaths.push(path);
        }
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("error", () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  await new Promise((listening) => server.listen(0, "127.0.0.1", () => listening(undefined)));
  stops.push(() => new Promise((closed) => server.close(() => closed(undefined))));
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}/`, downloads, encodedPaths };
}

/**
 * The paths downloaded more than once, but the deployment's config, which
 * is edited after the build and so read afresh each time (docs/offline.md).
 */
const twice = (/** @type {Record<string, number>} */ downloads) =>
  Object.entries(downloads).filter(([path, count]) => count > 1 && path !== CONFIG_FILE);

for (const secure of [true, false]) {
  const host = secure ? "a host that sends the security headers" : "a static host that sends none (the widget needs its service worker)";
  test(`a widget embedded on a second site keeps no wheel, and still imports one the bundle ships: ${host}`, async () => {
    // The chat UI serves the embedding client itself (a static host may send
    // no CORS headers for a cross-origin import) and points it at the widget.
    const client = await readFile(join(DIST, "sandpit-client.js"), "utf8");
    const embedder = await serveDemo({
      files: {
        "/host.html": { type: "text/html", body: '<!doctype html><meta charset="utf-8"><title>a chat UI</title>' },
        "/sandpit-client.js": { type: "text/javascript", body: client },
      },
    });
    stops.push(() => embedder.close());
    // Another site than the app's: the same loopback server under the name `localhost`.
    const page = new URL("host.html", embedder.url.replace("//127.0.0.1:", "//localhost:")).href;
    const app = await serve({ root: DIST, secure, embedOrigins: [new URL(page).origin] });
    stops.push(() => app.close());
    const proxy = await countingProxy(app.url);
    const context = await profile();
    const tab = await context.newPage();
    const errors = [];
    tab.on("pageerror", (error) => errors.push(error.message));

    const visit = async () => {
      await tab.goto(page);
      return tab.evaluate(async (url) => {
        const { Sandpit } = await import(new URL("/sandpit-client.js", location.href).href);
        const sandpit = await Sandpit.create({ url, headless: true, timeoutMs: 60_000 });
        return sandpit.run("import tabulate\nprint(tabulate.tabulate([[1, 2]], tablefmt='plain'))");
      }, new URL(WIDGET_PAGE, proxy.url).href);
    };
    const first = await visit();
    assert.equal(first.status, "ok", JSON.stringify(first.error));
    assert.equal(first.stdout, "1  2\n");

    const frame = tab.frames().find((candidate) => candidate.url().includes("/widget.html"));
    assert.ok(frame, "the widget's frame");
    assert.notEqual(new URL(frame.url()).hostname, new URL(tab.url()).hostname, "the widget is on another site than its page");
    // What the widget starts after its first run ends with its start-up snapshot stored:
    // anything the widget would keep is kept by then.
    await pollUntil(frame, async () => (await caches.keys()).includes("python-snapshot"), null, {
      what: "the widget's start-up snapshot to be stored",
      timeout: READY_TIMEOUT_MS,
    });
    const kept = await frame.evaluate(async () => {
      const urls = [];
      for (const name of await caches.keys()) {
        for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
      }
      return urls;
    });
    assert.deepEqual(kept.filter((url) => url.endsWith(".whl")), [], "the widget kept a wheel");
    const controlled = await frame.evaluate(() => navigator.serviceWorker.controller !== null);
    assert.equal(controlled, !secure, "the widget has a service worker exactly where it needs one");
    if (!secure) assert.ok(kept.some((url) => url.endsWith("pyodide.asm.wasm")), "its service worker keeps what it served");

    // A second visit to the same site imports it again, from the HTTP cache.
    const again = await visit();
    assert.equal(again.status, "ok", JSON.stringify(again.error));
    assert.equal(proxy.downloads["pyodide/tabulate-0.9.0-py3-none-any.whl"], 1, JSON.stringify(proxy.downloads));
    // Where the widget has a service worker, the files its frame fetched before
    // that took over (the app's own, not Pyodide's: Python waits for it) are
    // fetched once more by it on the next visit: Chromium keeps a third-party
    // frame's HTTP cache apart from its service worker's.
    if (secure) assert.deepEqual(twice(proxy.downloads), [], "downloaded more than once");
    else assert.equal(proxy.downloads["pyodide/pyodide.asm.wasm"], 1);
    assert.deepEqual(errors, []);
  });
}

test("the app page's first visit downloads each file once, the wheels it keeps for offline use included", async () => {
  const app = await serve({ root: DIST });
  stops.push(() => app.close());
  const proxy = await countingProxy(app.url);
  const context = await profile();
  const page = await context.newPage();
  await page.addInitScript(recordWorkerMessages);
  await page.goto(proxy.url);
  await page.locator('[data-testid="runtime-state"][data-state="ready"]').waitFor({ timeout: READY_TIMEOUT_MS });
  await page.getByTestId("settings").locator("summary").click();
  await page.locator('[data-testid="offline-state"][data-state="ready"]').waitFor({ timeout: READY_TIMEOUT_MS });
  await page.locator('[data-testid="snapshot-state"][data-state="stored"]').waitFor({ timeout: READY_TIMEOUT_MS });
  // The warm spare, which starts after the snapshot is stored, loads Pyodide from the same caches.
  await page.waitForFunction(
    () => window.__sandpitMessages.filter(({ from, kind }) => from === "worker" && kind === "ready").length >= 2,
    null,
    { polling: 200, timeout: READY_TIMEOUT_MS },
  );
  assert.deepEqual(twice(proxy.downloads), [], "downloaded more than once");
  assert.equal(proxy.downloads["pyodide/pyodide.asm.wasm"], 1);
  assert.equal(proxy.downloads["pyodide/sympy-1.14.0-py3-none-any.whl"], 1, "the wheels are kept for offline use");
  const downloaded = Object.keys(proxy.downloads);
  assert.deepEqual(downloaded.filter((path) => /_bg\.wasm(\.gz)?$/.test(path)).map((path) => path.replace(/^.*_bg/, "_bg")), ["_bg.wasm.gz"]);
  assert.ok(downloaded.includes("pyodide-loader/python.json.gz"), "the runner's Python, gzipped");
});

test("a host that sends the gzipped files with Content-Encoding: the browser decompresses them, and the page runs as well", async () => {
  const app = await serve({ root: DIST });
  stops.push(() => app.close());
  const proxy = await countingProxy(app.url, { encoded: true });
  const context = await profile();
  const sandpit = await new SandpitPage(await context.newPage(), proxy.url).open();
  await sandpit.waitReady();
  assert.equal((await sandpit.run("6 * 7")).value, "42");
  const encoded = proxy.encodedPaths.map((path) => path.replace(/^sandpit-[0-9a-f]+_bg/, "sandpit_bg"));
  assert.ok(encoded.includes("sandpit_bg.wasm.gz"), JSON.stringify(proxy.encodedPaths));
  assert.ok(encoded.includes("pyodide-loader/python.json.gz"), JSON.stringify(proxy.encodedPaths));
  await sandpit.assertHealthy();
});
