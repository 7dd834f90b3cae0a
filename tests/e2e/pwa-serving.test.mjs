// @ts-check
// The app offline under every way of serving it: as `make run` serves it, with
// a config edited after the build, from a host missing a file (a failed
// install says why), and from a static host that sends no security headers,
// where Python waits for the service worker to add them or does not start.
// Each test starts its own server and browser and stops both (pwa-app.mjs).
import assert from "node:assert/strict";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";

import { CONFIG_FILE, WORKER_PATH } from "../../www/generated/names.js";
import { startCanary } from "./canary.mjs";
import { DIST } from "./harness.mjs";
import { deployment, scratchDir, useAppPerTest } from "./pwa-app.mjs";

const app = useAppPerTest();

describe("offline under every way of serving", () => {
  test("served as `make run` serves it (the demo's origin added to the config), the app installs and runs offline", async () => {
    await app.start({ makeRun: true });
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
    const sandpit = await app.open({ root: dir });
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
    const sandpit = await app.open({ root: dir });
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
      await app.start({ secure: false });
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
    await app.start({ secure: false });
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
