// @ts-check
// The page's side of the service worker (www/sw.js) and of installation,
// bound from Rust in src/pwa.rs. Everything the page needs to know arrives
// as one state object, sent to each subscriber whenever it changes:
//
//   { supported, offlineReady, update, installable, version, cachedBytes, error,
//     installError, installProgress, snapshotBytes }
//
// `update` is "none", "ready" (a new version is installed and waiting),
// "activated" (another tab switched to a new version: this page should
// reload) or "failed" (a new version could not be installed; this one stays).
// `installError` says why the offline copy could not be kept, and
// `installProgress` ({ done, total } bytes) how far its download is.
// `snapshotBytes` is the size of the start-up snapshot this browser keeps
// (Python's memory after start-up, which the next start restores), or null.
// `offlineReady` means the whole copy is kept, which only the installable
// app page asks for (`installOfflineCopy`), once its first run is over
// (`firstResult`) or Python has waited a while for one: until then its
// downloads would compete with the first run's. The embedded widget never
// asks: its service worker, where it needs one, keeps only what it serves.
//
// Python's worker waits here for the service worker where the host sends
// no CSP with its script (worker-gate.js).
import {
  SERVICE_WORKER_CHANNEL,
  SERVICE_WORKER_CLAIM,
  SERVICE_WORKER_INSTALL_FAILED,
  SERVICE_WORKER_INSTALL_PROGRESS,
  SERVICE_WORKER_KEEP,
  SERVICE_WORKER_SKIP_WAITING,
  SERVICE_WORKER_STATUS,
  SNAPSHOT_CACHE,
  SNAPSHOT_CHANNEL,
  SNAPSHOT_ENTRY,
} from "./generated/names.js";

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
 *   snapshotBytes: number | null,
 * }} PwaState
 */

/**
 * The browser's install prompt (Chromium's `beforeinstallprompt` event), which DOM's types leave out.
 *
 * @typedef {Event & { prompt(): Promise<void>, userChoice: Promise<{ outcome: "accepted" | "dismissed" }> }} InstallPromptEvent
 */

/** How often a long-open page asks whether a new version was deployed. */
const UPDATE_CHECK_MS = 60 * 60 * 1000;

/** How long after Python has started the app page keeps its offline copy when no run has come. */
const KEEP_WITHOUT_RUN_MS = 5_000;

/**
 * Calls `task` when the page is idle (or after a second and a half at most).
 *
 * @param {() => void} task
 */
function whenIdle(task) {
  if (typeof requestIdleCallback === "function") requestIdleCallback(task, { timeout: 1_500 });
  else setTimeout(task, 0);
}

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

/**
 * What a new version's install came to, once its worker is in `state`:
 * the update is ready, it failed, or nothing new is known (null). The
 * very first install (no worker controls the page) is no update: it takes
 * control by itself, or fails with `installFailed`.
 *
 * @param {{ controlled: boolean, state: ServiceWorkerState, installedBefore: boolean, update: PwaState["update"], installError: string | null }} install
 * @returns {Partial<PwaState> | null}
 */
function installOutcome({ controlled, state, installedBefore, update, installError }) {
  if (!controlled) {
    if (state === "redundant" && installError === null) {
      return { installError: "the service worker could not install the offline copy" };
    }
    return null;
  }
  if (state === "installed") return { update: "ready" };
  if (state === "redundant" && !installedBefore && update !== "ready") return { update: "failed" };
  return null;
}

/** The page's service worker and install prompt, and who hears of them. */
class OfflineApp {
  container = serviceWorkers();
  /** @type {PwaState} */
  state = {
    supported: this.container !== null,
    offlineReady: false,
    update: "none",
    installable: false,
    version: null,
    cachedBytes: null,
    error: null,
    installError: null,
    installProgress: null,
    snapshotBytes: null,
  };
  /** @type {Set<(state: PwaState) => void>} */
  subscribers = new Set();
  /**
   * The browser's install prompt, kept from `beforeinstallprompt` until used.
   *
   * @type {InstallPromptEvent | null}
   */
  installPrompt = null;
  /** Set when this page asked the waiting version to take over: it reloads once it has. */
  updateRequested = false;
  /** @type {ServiceWorkerRegistration | null} */
  registration = null;
  started = false;
  /** Whether this page keeps the whole offline copy: the app page does, an embedded widget never. */
  keeps = false;
  /** Whether the copy may be kept now: the first run is over, or Python waited long enough for one. */
  keepDue = false;
  /** Whether this page asked the service worker in control to keep it (until a failure is retried). */
  keepAsked = false;

  /** @param {Partial<PwaState>} patch */
  change(patch) {
    Object.assign(this.state, patch);
    const snapshot = { ...this.state };
    for (const subscriber of this.subscribers) subscriber(snapshot);
  }

  /** Listens, from the start, to what the service worker and the browser say unasked. */
  listen() {
    // The service worker says here why keeping the offline copy failed (a
    // download or a hash check); the install's end alone says only that it
    // did. Only the version in control is heard, or the one installing while none is.
    if (typeof BroadcastChannel === "function") {
      new BroadcastChannel(SERVICE_WORKER_CHANNEL).addEventListener("message", (event) => {
        if (this.container?.controller && event.data?.version !== this.state.version) return;
        if (event.data?.type === SERVICE_WORKER_INSTALL_FAILED) {
          this.change({ installError: String(event.data.reason), installProgress: null });
        } else if (event.data?.type === SERVICE_WORKER_INSTALL_PROGRESS) {
          this.change({ installProgress: { done: event.data.done, total: event.data.total } });
        }
      });
    }
    // The start-up snapshot: the one kept from an earlier visit, and each one stored from now on.
    this.readSnapshot();
    if (typeof BroadcastChannel === "function") {
      new BroadcastChannel(SNAPSHOT_CHANNEL).addEventListener("message", (event) => {
        this.change({ snapshotBytes: Number(event.data?.bytes) || null });
      });
    }
    // The browser may offer installation before the app has mounted.
    window.addEventListener("beforeinstallprompt", (event) => {
      event.preventDefault();
      this.installPrompt = /** @type {InstallPromptEvent} */ (event);
      this.change({ installable: true });
    });
    window.addEventListener("appinstalled", () => {
      this.installPrompt = null;
      this.change({ installable: false });
    });
  }

  /** The size of the start-up snapshot kept in this browser, if any (an opaque origin has no Cache Storage). */
  async readSnapshot() {
    try {
      const url = new URL(`pyodide/${SNAPSHOT_ENTRY}`, document.baseURI);
      const found = await caches.match(url, { cacheName: SNAPSHOT_CACHE });
      if (found) this.change({ snapshotBytes: Number(found.headers.get("Content-Length")) || null });
    } catch {
      // No storage here: nothing is kept.
    }
  }

  /**
   * Asks the worker in control which version it serves and how much of its
   * copy is kept; the answer comes back as a message from the service worker
   * (no MessageChannel: the page's channels are the Python worker's), as
   * does the one once a copy it was asked to keep is kept.
   *
   * @param {ServiceWorkerContainer} container
   */
  controlled(container) {
    container.controller?.postMessage({ type: SERVICE_WORKER_STATUS });
  }

  /**
   * The service worker's status: the page works offline once the whole copy is kept.
   *
   * @param {{ version: string, bytes: number, complete: boolean }} status
   */
  heard({ version, bytes, complete }) {
    const done = complete ? { installError: null, installProgress: null } : {};
    this.change({ offlineReady: complete, version, cachedBytes: bytes, ...done });
    this.keepWhenDue();
  }

  /** Asks the service worker in control to keep the whole copy, once this page keeps one and it is due. */
  keepWhenDue() {
    const worker = this.container?.controller;
    if (!this.keeps || !this.keepDue || this.keepAsked || !worker || this.state.offlineReady || this.state.version === null) return;
    this.keepAsked = true;
    whenIdle(() => worker.postMessage({ type: SERVICE_WORKER_KEEP }));
  }

  /**
   * Follows a newly found version until it is installed (an update is ready) or given up.
   *
   * @param {ServiceWorkerContainer} container
   * @param {ServiceWorker} worker
   */
  track(container, worker) {
    let installedBefore = false;
    const settle = () => {
      const { update, installError } = this.state;
      const outcome = installOutcome({ controlled: container.controller !== null, state: worker.state, installedBefore, update, installError });
      if (worker.state === "installed" && container.controller) installedBefore = true;
      if (outcome !== null) this.change(outcome);
    };
    worker.addEventListener("statechange", settle);
    settle();
  }

  async start() {
    const container = this.container;
    if (this.started || container === null) return;
    this.started = true;
    const hadController = container.controller !== null;
    container.addEventListener("controllerchange", () => {
      if (this.updateRequested) {
        window.location.reload();
        return;
      }
      if (hadController) this.change({ update: "activated" });
      this.controlled(container);
    });
    container.addEventListener("message", (event) => {
      if (event.data?.type === SERVICE_WORKER_STATUS) this.heard(event.data);
    });
    container.startMessages();
    await this.register(container);
    setInterval(() => this.registration?.update().catch(() => {}), UPDATE_CHECK_MS);
  }

  /**
   * Registers the service worker and follows its installs. A first install
   * that fails takes the registration with it, so trying again registers anew.
   *
   * @param {ServiceWorkerContainer} container
   */
  async register(container) {
    try {
      const base = document.baseURI;
      const registered = await container.register(new URL("sw.js", base), {
        type: "module",
        scope: new URL("./", base).href,
      });
      this.registration = registered;
      registered.addEventListener("updatefound", () => {
        if (registered.installing) this.track(container, registered.installing);
      });
      if (registered.waiting && container.controller) this.change({ update: "ready" });
      if (registered.installing) this.track(container, registered.installing);
      this.controlled(container);
      registered.update().catch(() => {});
    } catch (error) {
      this.change({ error: String(/** @type {Error} */ (error)?.message ?? error) });
    }
  }
}

const app = new OfflineApp();
app.listen();

/**
 * Calls `onChange(state)` now and on every change. Returns a subscription
 * whose `stop()` ends the calls.
 *
 * @param {(state: PwaState) => void} onChange
 */
export function subscribe(onChange) {
  app.subscribers.add(onChange);
  onChange({ ...app.state });
  return { stop: () => app.subscribers.delete(onChange) };
}

/**
 * Registers the service worker and keeps the whole offline copy (Pyodide
 * and the bundled wheels): the installable app page's choice. The page calls
 * this once Python has started, and the copy is kept after its first run
 * (`firstResult`), or after a while without one, so that neither competes
 * with Python's own start-up or the first run's; Python's worker gets the
 * service worker earlier where it needs it (`whenControlled`).
 */
export function installOfflineCopy() {
  app.keeps = true;
  app.start();
  setTimeout(firstResult, KEEP_WITHOUT_RUN_MS);
}

/** The page's first run is over: the offline copy may be kept now, when the page is idle. */
export function firstResult() {
  app.keepDue = true;
  app.keepWhenDue();
}

/** Tries keeping the offline copy again (after it failed), as a new visit would. */
export function retryInstall() {
  app.change({ installError: null, installProgress: null });
  app.keepAsked = false;
  if (!app.started) app.start();
  else if (app.container?.controller) firstResult();
  else if (app.container !== null) app.register(app.container);
}

/** "Reload to update": the waiting version takes over, then the page reloads. */
export function applyUpdate() {
  const waiting = app.registration?.waiting;
  if (!waiting) {
    window.location.reload();
    return;
  }
  app.updateRequested = true;
  waiting.postMessage({ type: SERVICE_WORKER_SKIP_WAITING });
}

/** Shows the browser's install prompt; resolves to whether the user accepted. */
export async function promptInstall() {
  const prompt = app.installPrompt;
  if (!prompt) return false;
  app.installPrompt = null;
  app.change({ installable: false });
  await prompt.prompt();
  const { outcome } = await prompt.userChoice;
  return outcome === "accepted";
}

/**
 * Resolves once a service worker controls the page, registering it if it
 * is not yet; rejects when this browser has none (`unsupported`) or it
 * could not start (`failed`, with why).
 *
 * @param {{ unsupported: () => Error, failed: (why: string) => Error }} errors
 */
export async function whenControlled({ unsupported, failed }) {
  const container = app.container;
  if (container === null) throw unsupported();
  if (container.controller) return;
  await new Promise((/** @type {(value?: unknown) => void} */ resolve, reject) => {
    /** @param {PwaState} snapshot */
    const watch = (snapshot) => {
      if (snapshot.error) {
        app.subscribers.delete(watch);
        reject(failed(snapshot.error));
      }
    };
    container.addEventListener(
      "controllerchange",
      () => {
        app.subscribers.delete(watch);
        resolve();
      },
      { once: true },
    );
    app.subscribers.add(watch);
    watch(app.state);
    app.start();
    // A forced reload leaves the page uncontrolled although the service
    // worker is active; it takes over again when asked.
    container.ready.then((ready) => {
      if (!container.controller) ready.active?.postMessage({ type: SERVICE_WORKER_CLAIM });
    });
  });
}
