// The two things measured side by side: Sandpit as users get it (its UI,
// through the data-testid hooks) and the raw baseline (bench/raw/). Each
// target knows how to prepare a browser context, open itself, tell when it
// is ready and settled, and install the common `window.__bench` driver.
//
// A code to run on opening (figure 3) is given to both `prepare` and `url`:
// Sandpit gets it typed into its editor by an init script, the raw page
// reads it from its query string.
import { READY_TIMEOUT_MS } from "../tests/e2e/harness.mjs";
import { firstRunOnOpen, installRawDriver, installSandpitDriver, watchSandpit } from "./page-scripts.mjs";

const waitFor = (page, predicate) => page.waitForFunction(predicate, null, { timeout: READY_TIMEOUT_MS });

/** Sandpit served from dist/ at `url`; `name` tells two servings apart (figure 5 uses an isolated and a plain one). */
export function sandpitTarget(url, name = "sandpit") {
  return {
    name,
    async prepare(context, { firstRun = null } = {}) {
      await context.addInitScript(watchSandpit);
      if (firstRun !== null) await context.addInitScript(firstRunOnOpen, firstRun);
    },
    url: () => url,
    /** Page-clock times of a load whose context was prepared with `firstRun`. */
    async loadTimes(page) {
      await waitFor(page, () => window.__benchLoad?.readyAt != null && window.__benchLoad.firstResultAt != null);
      return page.evaluate(() => ({ ...window.__benchLoad, workerAt: window.__benchSandpit.firstWorkerAt }));
    },
    /**
     * Ready, every worker it started (the warm spare too) has loaded Python,
     * and its service worker, if it registered one, is active (precache done).
     */
    async settled(page) {
      await page.locator('[data-testid="runtime-state"][data-state="ready"]').waitFor({ timeout: READY_TIMEOUT_MS });
      await waitFor(page, () => window.__benchSandpit.ready === window.__benchSandpit.started);
      await waitFor(page, async () => {
        const registration = await navigator.serviceWorker?.getRegistration();
        return !registration || registration.active !== null;
      });
    },
    installDriver: installSandpitDriver,
  };
}

/** The raw baseline served from bench/raw/ at `url`. */
export function rawTarget(url) {
  return {
    name: "raw",
    async prepare() {},
    url: (firstRun = null) => (firstRun === null ? url : `${url}?run=${encodeURIComponent(firstRun)}`),
    async loadTimes(page) {
      await waitFor(page, () => window.raw?.readyAt != null && window.raw.firstResultAt != null);
      return page.evaluate(() => {
        const { workerAt, readyAt, firstResultAt, firstOk } = window.raw;
        return { workerAt, readyAt, firstResultAt, firstOk, firstPhase: firstOk ? "ok" : "error" };
      });
    },
    async settled(page) {
      await waitFor(page, () => window.raw?.readyAt != null);
    },
    installDriver: installRawDriver,
  };
}
