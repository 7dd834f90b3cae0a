// @ts-check
// What is measured side by side: Sandpit as users get it (its UI, through
// the data-testid hooks), Sandpit as an agent gets it (its embedding client
// and a headless widget, bench/client/) and the raw baseline (bench/raw/).
// Each target knows how to prepare a browser context, open itself, tell when
// it is ready and settled, and install the common `window.__bench` driver.
//
// A code to run on opening (figure 3) is given to both `prepare` and `url`:
// Sandpit gets it typed into its editor by an init script, the raw page
// reads it from its query string. The agent path is not loaded that way
// (figures 1 to 3 and 7 are about opening the app), so it has no `loadTimes`.
import { READY_TIMEOUT_MS } from "../tests/e2e/harness/timeouts.mjs";
import { CLOCK_PATH, EDITOR_MODULE } from "../www/generated/names.js";
import { firstRunOnOpen, installSandpitDriver, watchSandpit } from "./page-sandpit.mjs";
import { installClientDriver, installRawDriver, reportWidgetRuns } from "./page-scripts.mjs";

/**
 * Waits for `predicate` in a page or a frame, polling on a timer: Playwright's
 * default polls on animation frames, which the headless widget's hidden
 * iframe never gets.
 */
const waitFor = (frame, predicate) => frame.waitForFunction(predicate, null, { polling: 50, timeout: READY_TIMEOUT_MS });

/**
 * Sandpit's app (the page, or the widget's frame) is ready, every worker it
 * started has loaded Python (or, the snapshot maker, stored the snapshot),
 * and its service worker, if it registered one, is active (precache done).
 * The page's background start (the warm spare, or the snapshot maker on a
 * visit without a snapshot) waits until the page is idle, so with
 * `background` this also waits for it to begin. Counting the workers needs
 * `watchSandpit` in that frame.
 *
 * @param {import("playwright-core").Page | import("playwright-core").Frame} frame
 * @param {{ background?: boolean }} [options]
 */
export async function appSettled(frame, { background = false } = {}) {
  // Attached, not visible: the headless widget is hidden.
  await frame.locator('[data-testid="runtime-state"][data-state="ready"]').waitFor({ state: "attached", timeout: READY_TIMEOUT_MS });
  const workers = background ? 2 : 1;
  await frame.waitForFunction(
    (workers) => window.__benchSandpit.started >= workers && window.__benchSandpit.ready === window.__benchSandpit.started,
    workers,
    { polling: 50, timeout: READY_TIMEOUT_MS },
  );
  await waitFor(frame, async () => {
    const registration = await navigator.serviceWorker?.getRegistration();
    return !registration || registration.active !== null;
  });
}

/**
 * How long a frame's workers must have stayed as they are, all ready, for
 * its background start to be over: the runtime starts the snapshot maker or
 * the warm spare once it has been idle 500 ms (BACKGROUND_IDLE_MS in
 * src/runtime/supervisor.rs), so a shorter wait could end just before one
 * begins, and the next timed series would meet it.
 */
const QUIET_MS = 1_500;

/**
 * Waits until every worker `frame` started has been ready, and none started
 * or ended, for QUIET_MS. Needs `watchSandpit` in that frame.
 *
 * @param {import("playwright-core").Frame} frame
 */
export async function backgroundDone(frame) {
  await frame.waitForFunction(
    (quietMs) => {
      const spy = window.__benchSandpit;
      const now = performance.now();
      const counts = `${spy.started}/${spy.ready}`;
      if (spy.unchanged?.counts !== counts) spy.unchanged = { counts, since: now };
      return spy.started === spy.ready && now - spy.unchanged.since >= quietMs;
    },
    QUIET_MS,
    { polling: 50, timeout: READY_TIMEOUT_MS },
  );
}

/** Sandpit served from dist/ at `url`; `name` tells two servings apart (figure 5 uses an isolated and a plain one). */
export function sandpitTarget(url, name = "sandpit") {
  return {
    name,
    async prepare(context, { firstRun = null } = {}) {
      await context.addInitScript(watchSandpit, CLOCK_PATH);
      if (firstRun !== null) await context.addInitScript(firstRunOnOpen, { code: firstRun, editorModule: EDITOR_MODULE });
    },
    url: () => url,
    /** Page-clock times of a load whose context was prepared with `firstRun`. */
    async loadTimes(page) {
      await waitFor(page, () => window.__benchLoad?.readyAt != null && window.__benchLoad.firstResultAt != null);
      return page.evaluate(() => ({ ...window.__benchLoad, workerAt: window.__benchSandpit.firstWorkerAt }));
    },
    /** Settled, and the code editor, which loads once Python has started, is in. */
    async settled(page) {
      await appSettled(page, { background: true });
      await page.getByTestId("code").waitFor({ timeout: READY_TIMEOUT_MS });
    },
    installDriver: installSandpitDriver,
    driverArgument: EDITOR_MODULE,
  };
}

/** The frame of the widget that bench/client/ embeds. */
const widgetFrame = (page) => page.frames().find((frame) => new URL(frame.url()).pathname.endsWith("/widget.html"));

/**
 * Sandpit as an agent drives it: bench/client/ served at `url`, a page on
 * another origin that imports sandpit-client.js from the app at `appUrl`
 * (whose config must list that origin in `embed.allow`) and creates a
 * headless widget. Init scripts run in every frame, so the widget's frame is
 * watched like the app page, and reports how long each run spent where.
 */
export function clientTarget(url, appUrl) {
  return {
    name: "sandpit-client",
    /** Sandpit's origin, beside the embedding page's own (whose files are not Sandpit's). */
    origin: new URL(appUrl).origin,
    async prepare(context) {
      await context.addInitScript(watchSandpit, CLOCK_PATH);
      await context.addInitScript(reportWidgetRuns);
    },
    /** With `firstRun`, the page runs it as soon as the widget answers (figure 15). */
    url: ({ firstRun = null } = {}) =>
      `${url}?app=${encodeURIComponent(appUrl)}${firstRun === null ? "" : `&run=${encodeURIComponent(firstRun)}`}`,
    /** Page-clock time of the `firstRun` result, on a page opened at `url({ firstRun })`. */
    async firstResultAt(page) {
      await waitFor(page, () => window.client?.firstResultAt != null || window.client?.error);
      const { firstResultAt, error } = await page.evaluate(() => ({ firstResultAt: window.client.firstResultAt, error: window.client.error }));
      if (error) throw new Error(`sandpit-client: ${error}`);
      return firstResultAt;
    },
    /** Where the app runs: the widget's frame, not the page. */
    appFrame: widgetFrame,
    /**
     * The client connected and the widget's app settled, as the app page's,
     * and its background start over (the widget's first sessions fill its
     * pool, so the spare's count cannot tell, as it does on the app page).
     */
    async settled(page) {
      await waitFor(page, () => window.client?.sandpit || window.client?.error);
      const error = await page.evaluate(() => window.client.error);
      if (error) throw new Error(`sandpit-client: ${error}`);
      await appSettled(widgetFrame(page));
      await backgroundDone(widgetFrame(page));
    },
    installDriver: installClientDriver,
  };
}

/**
 * Sandpit in a chat UI: bench/chat-ui/ at `url`, framing the widget at
 * `widgetUrl` (whose config must list that page's origin in `embed.allow`)
 * and calling through the MCP SDK's Client. Opened with `firstRun`, the
 * page connects and calls it at once (figure 15).
 */
export function chatUiTarget(url, widgetUrl) {
  return {
    name: "sandpit-chat-ui",
    /** Sandpit's origin, beside the chat UI's own (whose files are not Sandpit's). */
    origin: new URL(widgetUrl).origin,
    async prepare(context) {
      await context.addInitScript(watchSandpit, CLOCK_PATH);
    },
    url: ({ firstRun }) => `${url}?widget=${encodeURIComponent(widgetUrl)}&run=${encodeURIComponent(firstRun)}`,
    /** Page-clock time of the first call's result. */
    async firstResultAt(page) {
      await waitFor(page, () => window.chatUi?.opened != null);
      const { firstCall, firstResultAt } = await page.evaluate(() => window.chatUi.opened);
      if (!firstCall.ok) throw new Error(`chat-UI path: the first call failed: ${firstCall.error}`);
      return firstResultAt;
    },
    async settled(page) {
      await appSettled(widgetFrame(page));
      await backgroundDone(widgetFrame(page));
    },
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
