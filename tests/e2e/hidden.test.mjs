// @ts-check
// Runs and timeouts in a hidden tab, where a chat UI often is: Chromium
// throttles a hidden page's timers to one wake-up a second, and after five
// minutes hidden to one a minute for chains of timers (intensive
// throttling). The runtime's timers (timeouts, interrupt repeats, nudges)
// must not depend on them.
//
// The page is hidden for real: a second tab is opened in front of it
// through the DevTools protocol. Playwright keeps every page it creates
// "focused" (its focus emulation makes the page count as visible), so this
// page is driven over CDP without Playwright's defaults, and Chromium is
// told to start intensive throttling after 1 s instead of 5 min.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { chromium } from "playwright-core";

import { serve, serveDemo } from "../../scripts/serve.mjs";
import { DIST } from "./harness.mjs";
import { CHROMIUM_ARGS, loopbackOnly } from "./harness/browser.mjs";
import { READY_TIMEOUT_MS, RUN_TIMEOUT_MS } from "./harness/timeouts.mjs";

/** Intensive throttling one second after the page is hidden, not five minutes. */
const THROTTLING = "--enable-features=IntensiveWakeUpThrottling:grace_period_seconds/1,QuickIntensiveWakeUpThrottlingAfterLoading";

/**
 * Chromium with a fresh profile and a DevTools port; resolves to Playwright
 * connected to it without its page defaults, and `close()`, which ends the
 * browser (its whole process group: it was started as one) and deletes the
 * profile.
 */
async function launchWithoutFocusEmulation() {
  const profile = await mkdtemp(join(tmpdir(), "sandpit-hidden-"));
  const args = [...CHROMIUM_ARGS, THROTTLING, "--remote-debugging-port=0", `--user-data-dir=${profile}`, "about:blank"];
  const chrome = spawn("/usr/bin/chromium", args, { stdio: ["ignore", "ignore", "pipe"], detached: true });
  const exited = new Promise((resolve) => chrome.once("exit", resolve));
  const endpoint = await new Promise((resolve, reject) => {
    let said = "";
    chrome.stderr.on("data", (chunk) => {
      said += chunk;
      const found = said.match(/DevTools listening on (ws:\S+)/);
      if (found) resolve(found[1]);
    });
    exited.then((code) => reject(new Error(`Chromium exited (${code}): ${said}`)));
  });
  const browser = await chromium.connectOverCDP(endpoint, { noDefaults: true });
  return {
    browser,
    async close() {
      await Promise.race([browser.close(), new Promise((done) => setTimeout(done, 5_000))]).catch(() => {});
      if (chrome.exitCode === null && chrome.pid) process.kill(-chrome.pid, "SIGKILL");
      await exited;
      chrome.stderr.destroy();
      await rm(profile, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

describe("a hidden tab", () => {
  let app;
  let host;
  let chrome;
  /** @type {import("playwright-core").Page} */
  let page;

  before(async () => {
    host = await serveDemo({
      isolated: true,
      files: { "/host.html": { type: "text/html", body: "<!doctype html><title>chat</title>" } },
    });
    app = await serve({ root: DIST, embedOrigins: [new URL(host.url).origin] });
    chrome = await launchWithoutFocusEmulation();
    const context = chrome.browser.contexts()[0];
    await loopbackOnly(context);
    page = context.pages()[0];
    page.on("pageerror", (error) => assert.fail(`page error: ${error.message}`));
    await page.goto(new URL("host.html", host.url).href);
    await page.evaluate(
      async ({ appUrl, timeoutMs }) => {
        const { Sandpit } = await import(new URL("sandpit-client.js", appUrl).href);
        window.sandpit = await Sandpit.create({ headless: true, timeoutMs });
        await window.sandpit.run("1");
      },
      { appUrl: app.url, timeoutMs: READY_TIMEOUT_MS },
    );
    // Another tab in front hides this one.
    const session = await chrome.browser.newBrowserCDPSession();
    await session.send("Target.createTarget", { url: "about:blank" });
    await page.waitForFunction(() => document.visibilityState === "hidden");
    // Past the grace period, chains of the page's timers wake once a minute.
    await page.waitForTimeout(1_500);
  });
  after(async () => {
    await chrome?.close();
    await app?.close();
    await host?.close();
  });

  /** Runs `code` through the embedding client in the hidden page. */
  const run = (code, timeoutSeconds = 30) =>
    page.evaluate(
      ([code, timeoutSeconds]) => window.sandpit.run(code, { timeoutSeconds }),
      /** @type {[string, number]} */ ([code, timeoutSeconds]),
    );

  test("a run finishes and its output arrives", async () => {
    assert.equal(await page.evaluate(() => document.visibilityState), "hidden");
    const result = await run("print('from the background')\nsum(range(10**6))");
    assert.equal(result.status, "ok");
    assert.equal(result.stdout, "from the background\n");
    assert.equal(result.value.json, 499999500000);
  });

  test("a timeout stops the code and keeps the session", { timeout: RUN_TIMEOUT_MS }, async () => {
    await run("kept = 'yes'");
    const stuck = await run("while True:\n    pass", 1);
    assert.equal(stuck.status, "timeout");
    assert.equal(stuck.restored, null, "stopped by interrupt");
    assert.equal((await run("kept")).value.json, "yes");
  });

  test("code that swallows the interrupt is terminated after the grace period, and its session replayed", { timeout: RUN_TIMEOUT_MS }, async () => {
    // Only the first interrupt reaches the code; this catches it and goes on,
    // so the host's repeats and then its grace period must run out on time.
    const stubborn = await run("while True:\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass", 1);
    assert.equal(stubborn.status, "timeout");
    assert.ok(stubborn.restored?.replayed >= 1, JSON.stringify(stubborn.restored));
    assert.equal((await run("kept")).value.json, "yes");
    assert.equal(await page.evaluate(() => document.visibilityState), "hidden", "hidden all along");
  });

  test("a timeout started while the tab was in front still stops the code once the tab is hidden", { timeout: RUN_TIMEOUT_MS }, async () => {
    // While the page is visible its own timer keeps a long timeout for its
    // first second, then hands it to the clock worker, which must end the run
    // on time though the page is hidden meanwhile.
    await page.bringToFront();
    await page.waitForFunction(() => document.visibilityState === "visible");
    await run("kept = 'still'");
    const stuck = page.evaluate(() => window.sandpit.run("while True:\n    pass", { timeoutSeconds: 3 }));
    await page.waitForTimeout(300);
    const session = await chrome.browser.newBrowserCDPSession();
    await session.send("Target.createTarget", { url: "about:blank" });
    await page.waitForFunction(() => document.visibilityState === "hidden");
    const result = await stuck;
    assert.equal(result.status, "timeout");
    assert.equal((await run("kept")).value.json, "still");
  });
});
