// @ts-check
// What the installable app's suites (pwa-*.test.mjs) share: each test's own
// app, other deployments of the built bundle, and what the service worker
// cached.
import { createHash } from "node:crypto";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach } from "node:test";

import { writePrecache } from "../../scripts/precache.mjs";
import { DIST, startApp } from "./harness.mjs";

export const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * A temporary directory, removed after the test that asked for it: `after`
 * called within a test is a hook of that test, run once the suite's
 * `afterEach` has closed the app that served the directory.
 */
export async function scratchDir() {
  const dir = await mkdtemp(join(tmpdir(), "sandpit-pwa-"));
  after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The app of the test under way, used as the app `startApp` resolves to:
 * each test starts its own server and browser (service workers persist per
 * origin and context), closed after the test.
 */
class AppPerTest {
  /** @type {Awaited<ReturnType<typeof startApp>> | null} */
  #app = null;

  /** Starts this test's app (options as `startApp`). */
  async start(options) {
    this.#app = await startApp(options);
    return this.#app;
  }

  /** Starts this test's app (options as `startApp`), opens it and waits for Python. */
  async open(options) {
    const app = await this.start(options);
    return (await (await app.newPage()).open()).waitReady();
  }

  get url() {
    return this.#app.url;
  }

  get server() {
    return this.#app.server;
  }

  newPage(options) {
    return this.#app.newPage(options);
  }

  newProfilePage() {
    return this.#app.newProfilePage();
  }

  async close() {
    await this.#app?.close();
    this.#app = null;
  }
}

/** The hook of a suite whose tests each start their own app: returns the app of the test under way. */
export function useAppPerTest() {
  const app = new AppPerTest();
  afterEach(() => app.close());
  return app;
}

/**
 * A copy of the built bundle as another deployment: `edit(dir)` changes its
 * files, then its precache list is written again, as the build would.
 */
export async function deployment(edit) {
  const dir = join(await scratchDir(), "dist");
  await cp(DIST, dir, { recursive: true });
  await edit(dir);
  return { dir, ...(await writePrecache(dir)) };
}

/** The sha256 of what Cache Storage holds for `path` (relative to the app), or null. */
export function cachedSha256(sandpit, path) {
  return sandpit.page.evaluate(async (path) => {
    const response = await caches.match(new URL(path, document.baseURI));
    if (!response) return null;
    const digest = await crypto.subtle.digest("SHA-256", await response.arrayBuffer());
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  }, path);
}
