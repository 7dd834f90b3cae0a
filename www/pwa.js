// @ts-check
// The page's side of the service worker (www/sw.js) and of installation,
// bound from Rust in src/pwa.rs. Everything the page needs to know arrives
// as one state object, sent to each subscriber whenever it changes:
//
//   { supported, offlineReady, update, installable, version, cachedBytes, error,
//     installError, installProgress }
//
// `update` is "none", "ready" (a new version is installed and waiting),
// "activated" (another tab switched to a new version: this page should
// reload) or "failed" (a new version could not be installed; this one stays).
// `installError` says why the first offline copy could not be installed, and
// `installProgress` ({ done, total } bytes) how far its download is.
import { EARLY_WORKER_CHECK_GLOBAL, SERVICE_WORKER_CHANNEL } from "./generated/names.js";
import { threadMode } from "./thread-worker.js";

/**
 * What the page knows of the service worker and of installation.
 *
 * @typedef {{
 *   supported: boolean,
 *   offlineReady: boolean,
 *   update: "none" | "ready" | "activated" | "failed",
 *   installable: boolean,
 *   version: string | null,
 *   cachedBytes: number | null,
 *   error: string | null,
 *   installError: string | null,
 *   installProgress: { done: number, total: number } | null,
 * }} PwaState
 */

/**
 * The browser's install prompt (Chromium's `beforeinstallprompt` event), which DOM's types leave out.
 *
 * @typedef {Event & { prompt(): Promise<void>, userChoice: Promise<{ outcome: "accepted" | "dismissed" }> }} InstallPromptEvent
 */

/** How often a long-open page asks whether a new version was deployed. */
const UPDATE_CHECK_MS = 60 * 60 * 1000;

/**
 * The page's service workers, or null where it can have none: an opaque
 * origin (a frame sandboxed without allow-same-origin) throws on the read.
 *
 * @returns {ServiceWorkerContainer | null}
 */
function serviceWorkers() {
  try {
    return navigator.serviceWorker ?? null;
  } catch {
    return null;
  }
}

const container = serviceWorkers();
/** @type {PwaState} */
const state = {
  supported: container !== null,
  offlineReady: false,
  update: "none",
  installable: false,
  version: null,
  cachedBytes: null,
  error: null,
  installError: null,
  installProgress: null,
};
/** @type {Set<(state: PwaState) => void>} */
const subscribers = new Set();
/**
 * The browser's install prompt, kept from `beforeinstallprompt` until used.
 *
 * @type {InstallPromptEvent | null}
 */
let installPrompt = null;
/** Set when this page asked the waiting version to take over: it reloads once it has. */
let updateRequested = false;
/** @type {ServiceWorkerRegistration | null} */
let registration = null;
let started = false;

/** @param {Partial<PwaState>} patch */
function change(patch) {
  Object.assign(state, patch);
  const snapshot = { ...state };
  for (const subscriber of subscribers) subscriber(snapshot);
}

// The service worker says here why an install failed (a download or a hash
// check); the install's end alone says only that it did.
if (typeof BroadcastChannel === "function") {
  new BroadcastChannel(SERVICE_WORKER_CHANNEL).addEventListener("message", (event) => {
    if (container?.controller) return;
    if (event.data?.type === "install-failed") {
      change({ installError: String(event.data.reason), installProgress: null });
    } else if (event.data?.type === "install-progress") {
      change({ installProgress: { done: event.data.done, total: event.data.total } });
    }
  });
}

// Listened to from the start: the browser may offer installation before the
// app has mounted.
window.addEventListener("beforeinstallprompt", (event) => {
  event.preventDefault();
  installPrompt = /** @type {InstallPromptEvent} */ (event);
  change({ installable: true });
});
window.addEventListener("appinstalled", () => {
  installPrompt = null;
  change({ installable: false });
});

/**
 * Asks the worker in control which version it serves. The answer comes back
 * as a message from the service worker (no MessageChannel: the page's
 * channels are the Python worker's).
 *
 * @param {ServiceWorkerContainer} container
 * @param {ServiceWorker} worker
 * @returns {Promise<{ version: string, bytes: number }>}
 */
function askStatus(container, worker) {
  return new Promise((resolve) => {
    /** @param {MessageEvent} event */
    const onMessage = (event) => {
      if (event.data?.type !== "status") return;
      container.removeEventListener("message", onMessage);
      resolve(event.data);
    };
    container.addEventListener("message", onMessage);
    container.startMessages();
    worker.postMessage({ type: "status" });
  });
}

/** @param {ServiceWorkerContainer} container */
async function controlled(container) {
  const worker = container.controller;
  if (!worker) return;
  const { version, bytes } = await askStatus(container, worker);
  change({ offlineReady: true, version, cachedBytes: bytes, installError: null, installProgress: null });
}

/**
 * Follows a newly found version until it is installed (an update is ready) or given up.
 *
 * @param {ServiceWorkerContainer} container
 * @param {ServiceWorker} worker
 */
function track(container, worker) {
  let installed = false;
  const settle = () => {
    // The very first install is not an update: it takes control by itself, or fails.
    if (!container.controller) {
      if (worker.state === "redundant" && state.installError === null) {
        change({ installError: "the service worker could not install the offline copy" });
      }
      return;
    }
    if (worker.state === "installed") {
      installed = true;
      change({ update: "ready" });
    } else if (worker.state === "redundant" && !installed && state.update !== "ready") {
      change({ update: "failed" });
    }
  };
  worker.addEventListener("statechange", settle);
  settle();
}

async function start() {
  if (started || container === null) return;
  started = true;
  const hadController = container.controller !== null;
  container.addEventListener("controllerchange", () => {
    if (updateRequested) {
      window.location.reload();
      return;
    }
    if (hadController) change({ update: "activated" });
    controlled(container).catch((error) => change({ error: String(error?.message ?? error) }));
  });
  await register(container);
  setInterval(() => registration?.update().catch(() => {}), UPDATE_CHECK_MS);
}

/**
 * Registers the service worker and follows its installs. A first install
 * that fails takes the registration with it, so trying again registers anew.
 *
 * @param {ServiceWorkerContainer} container
 */
async function register(container) {
  try {
    const base = document.baseURI;
    const registered = await container.register(new URL("sw.js", base), {
      type: "module",
      scope: new URL("./", base).href,
    });
    registration = registered;
    registered.addEventListener("updatefound", () => {
      if (registered.installing) track(container, registered.installing);
    });
    if (registered.waiting && container.controller) change({ update: "ready" });
    if (registered.installing) track(container, registered.installing);
    await controlled(container);
    registered.update().catch(() => {});
  } catch (error) {
    change({ error: String(/** @type {Error} */ (error)?.message ?? error) });
  }
}

/**
 * Calls `onChange(state)` now and on every change. Returns a subscription
 * whose `stop()` ends the calls.
 *
 * @param {(state: PwaState) => void} onChange
 */
export function subscribe(onChange) {
  subscribers.add(onChange);
  onChange({ ...state });
  return { stop: () => subscribers.delete(onChange) };
}

/**
 * Registers the service worker, whose first install downloads and checks
 * the whole offline copy (Pyodide included). The page calls this once Python
 * has started, so that on a first visit the copy does not compete with
 * Python's own start-up; a host that needs the worker earlier gets it from
 * `waitForServiceWorker`.
 */
export function installOfflineCopy() {
  start();
}

/** Tries the first install again (after it failed), as a new visit would. */
export function retryInstall() {
  change({ installError: null, installProgress: null });
  if (!started) start();
  else if (container !== null) register(container);
}

/** "Reload to update": the waiting version takes over, then the page reloads. */
export function applyUpdate() {
  const waiting = registration?.waiting;
  if (!waiting) {
    window.location.reload();
    return;
  }
  updateRequested = true;
  waiting.postMessage({ type: "skip-waiting" });
}

/** Shows the browser's install prompt; resolves to whether the user accepted. */
export async function promptInstall() {
  const prompt = installPrompt;
  if (!prompt) return false;
  installPrompt = null;
  change({ installable: false });
  await prompt.prompt();
  const { outcome } = await prompt.userChoice;
  return outcome === "accepted";
}

/**
 * Whether `response` (the Python worker's script) comes with its own Content-Security-Policy.
 *
 * @param {Response} response
 */
const servedWithCsp = (response) => response.ok && response.headers.has("Content-Security-Policy");

/**
 * Whether `url` (the Python worker's script) comes with its own CSP; `fetched` is its response when already asked for.
 *
 * @param {string} url
 * @param {Response | Promise<Response>} [fetched]
 */
async function hasOwnCsp(url, fetched = fetch(url, { cache: "no-store" })) {
  return servedWithCsp(await fetched);
}

/**
 * Whether index.html's check of the Python worker's script, made as the page
 * started, is in already and found its CSP (it is then taken). Lets the
 * worker get `init` (and code) without waiting for the app to finish
 * mounting. Any other answer is left for `workerNeedsServiceWorker`.
 */
export function workerCheckedEarly() {
  const early = earlyCheck();
  if (!(early instanceof Response && servedWithCsp(early))) return false;
  Reflect.deleteProperty(window, EARLY_WORKER_CHECK_GLOBAL);
  return true;
}

/**
 * index.html's check of the Python worker's script: its promise, or its
 * response once that is in; undefined once taken.
 *
 * @returns {Promise<Response> | Response | undefined}
 */
const earlyCheck = () => Reflect.get(window, EARLY_WORKER_CHECK_GLOBAL);

/**
 * Whether the Python worker's script arrives without its CSP, so Python must
 * wait for the service worker to add it (a static host that sets no headers).
 * The first call reads index.html's check, when there is one.
 *
 * @param {string} url
 */
export async function workerNeedsServiceWorker(url) {
  const early = earlyCheck();
  Reflect.deleteProperty(window, EARLY_WORKER_CHECK_GLOBAL);
  // Where Python runs on a frame's thread, that frame's page carries the
  // worker's policy itself (THREAD_PAGE), whatever the server sends.
  if (threadMode()) return false;
  return !(await hasOwnCsp(url, early ?? undefined));
}

/**
 * Resolves once the service worker controls the page and serves the worker
 * script with its CSP; rejects when that cannot happen, so Python never
 * starts unguarded. The first visit downloads the precache before this resolves.
 *
 * @param {string} url
 */
export async function waitForServiceWorker(url) {
  if (container === null) {
    throw new Error(
      "This host does not send the Python worker's security headers, and this browser " +
        "has no service worker to add them: Python will not start unguarded.",
    );
  }
  if (!container.controller) {
    await new Promise((/** @type {(value?: unknown) => void} */ resolve, reject) => {
      /** @param {PwaState} snapshot */
      const watch = (snapshot) => {
        if (snapshot.error) {
          subscribers.delete(watch);
          reject(
            new Error(
              `The service worker that adds the Python worker's security headers could not start ` +
                `(${snapshot.error}): Python will not start unguarded.`,
            ),
          );
        }
      };
      container.addEventListener(
        "controllerchange",
        () => {
          subscribers.delete(watch);
          resolve();
        },
        { once: true },
      );
      subscribers.add(watch);
      watch(state);
      start();
      // A forced reload leaves the page uncontrolled although the service
      // worker is active; it takes over again when asked.
      container.ready.then((ready) => {
        if (!container.controller) ready.active?.postMessage({ type: "claim" });
      });
    });
  }
  if (!(await hasOwnCsp(url))) {
    throw new Error("The Python worker's script still has no security policy: Python will not start unguarded.");
  }
}
