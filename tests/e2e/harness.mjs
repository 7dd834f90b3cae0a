// @ts-check
// Shared set-up for the browser tests: the built bundle served on loopback,
// Debian's headless Chromium driven by playwright-core, and a page object.
// The parts are in harness/: the browser (browser.mjs), the page object
// (page.mjs), which fails a test on console and page errors and on a worker
// message outside the protocol (protocol.mjs), the Python several tests run
// (python.mjs), axe (axe.mjs) and how long to wait (timeouts.mjs).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { after, afterEach, before } from "node:test";

import { serve, serveMakeRun } from "../../scripts/serve.mjs";
import { launchChromium, loopbackOnly, openProfile } from "./harness/browser.mjs";
import { SandpitPage } from "./harness/page.mjs";
import { READY_TIMEOUT_MS } from "./harness/timeouts.mjs";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The built bundle the tests serve. */
export const DIST = join(ROOT, "dist");

/** Where tests save screenshots of the page's states, for a person to look at (git-ignored). */
export const ARTIFACTS = join(ROOT, "tests", "e2e", "artifacts");

/**
 * Saves what `page` shows now as ARTIFACTS/`name`.png: the viewport, as a
 * person sees it (a full-page picture would show the runs out of view
 * blank, since the browser skips drawing them).
 */
export async function screenshot(page, name) {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/**
 * Serves dist/ (or `root`) and launches Chromium. `isolated: false` serves
 * without COOP/COEP, as a page embedded in a third-party site would be;
 * `allowOrigins` are origins the network policy lets Python fetch from;
 * `secure: false` serves no security headers, as a plain static host;
 * `embedOrigins` are pages allowed to drive the widget.
 * `server` is exposed so a test can stop it (offline) or serve another
 * deployment from the same origin (`server.setRoot`).
 *
 * `makeRun: true` serves it exactly as `make run` does (its demo page too),
 * and ignores the other options.
 *
 * @param {{ isolated?: boolean, secure?: boolean, allowOrigins?: string[], embedOrigins?: string[], root?: string, makeRun?: boolean, sessions?: object }} [options]
 */
export async function startApp({ isolated = true, secure = true, allowOrigins, embedOrigins, root = DIST, makeRun = false, sessions } = {}) {
  assert.ok(existsSync(join(root, "index.html")), `${root} is missing: run \`make build\` first`);
  const served = makeRun ? await serveMakeRun({ root, port: 0 }) : null;
  const server = served?.server ?? (await serve({ root, isolated, secure, allowOrigins, embedOrigins, sessions }));
  const browser = await launchChromium();
  const profiles = [];
  return {
    url: server.url,
    browser,
    server,
    /**
     * A fresh page object in its own (incognito) browser context; `options`
     * go to the context (`serviceWorkers: "block"` keeps every request on the
     * network, where a test can hold it).
     */
    async newPage(options = {}) {
      const context = await browser.newContext(options);
      await loopbackOnly(context);
      const page = await context.newPage();
      return new SandpitPage(page, server.url);
    },
    /**
     * A page in a browser with an on-disk profile, as a user has it: Chromium
     * offers installation only outside incognito contexts.
     */
    async newProfilePage() {
      const opened = await openProfile();
      profiles.push(opened);
      const { context } = opened;
      await loopbackOnly(context);
      const page = context.pages()[0] ?? (await context.newPage());
      return new SandpitPage(page, server.url);
    },
    async close() {
      await browser.close();
      await (served ?? server).close();
      // A persistent context is a browser of its own.
      for (const opened of profiles) await opened.close();
    },
  };
}

/**
 * A chat page of its own origin, served by `serveDemo` at `host` (with a
 * `/host.html`), that embeds the app's headless widget through
 * sandpit-client.js as `window.sandpit`; `sessions` is the deployment's
 * pool settings, if any. Returns the app and the page object.
 *
 * @param {{ url: string }} host
 * @param {object} [sessions]
 */
export async function embedHeadless(host, sessions) {
  const app = await startApp({ embedOrigins: [new URL(host.url).origin], sessions });
  const sandpit = await app.newPage();
  await sandpit.page.goto(new URL("host.html", host.url).href);
  await sandpit.page.evaluate(
    async ({ appUrl, timeoutMs }) => {
      const { Sandpit } = await import(new URL("sandpit-client.js", appUrl).href);
      window.sandpit = await Sandpit.create({ headless: true, timeoutMs });
    },
    { appUrl: app.url, timeoutMs: READY_TIMEOUT_MS },
  );
  return { app, sandpit };
}

/**
 * The usual hooks of a describe block: one app and one ready page for the
 * block, health checked after each test (console errors matching `allow`
 * excepted), everything closed at the end. `ready(sandpit, app)` receives
 * the page once it is ready, to keep it and finish setting it up.
 */
export function useSandpit(ready, { isolated = true, allow = [] } = {}) {
  let app;
  let sandpit;
  before(async () => {
    app = await startApp({ isolated });
    sandpit = await (await app.newPage()).open();
    await sandpit.waitReady();
    await ready(sandpit, app);
  });
  afterEach(async () => {
    await sandpit.assertHealthy({ allow });
  });
  after(async () => {
    await app?.close();
  });
}
