// @ts-check
// The app as an installed one: a new deployment offered and applied (a
// broken one first, which leaves the old running), installability as
// Chromium reports it, and packages from another origin cached once and
// checked against the lockfile. Each test starts its own server and browser
// and stops both (pwa-app.mjs).
import assert from "node:assert/strict";
import { cp, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";

import { CONFIG_FILE } from "../../www/generated/names.js";
import { cachedSha256, deployment, scratchDir, sha256, useAppPerTest } from "./pwa-app.mjs";

const app = useAppPerTest();

/** Marks a deployment's page so a test can tell which one it is running. */
async function markIndex(dir, marker) {
  const path = join(dir, "index.html");
  const html = await readFile(path, "utf8");
  await writeFile(path, html.replace("<head>", `<head><meta name="sandpit-test" content="${marker}">`));
}

const pageMarker = (sandpit) =>
  sandpit.page.evaluate(() => document.querySelector('meta[name="sandpit-test"]')?.getAttribute("content") ?? null);

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

    const sandpit = await app.open({ root: v1.dir });
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
    await app.start();
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

    const sandpit = await app.open({ root: pinnedApp.dir });
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
