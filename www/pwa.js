// The page's side of the service worker (www/sw.js) and of installation,
// bound from Rust in src/pwa.rs. Everything the page needs to know arrives
// as one state object, sent to each subscriber whenever it changes:
//
//   { supported, offlineReady, update, installable, version, cachedBytes, error }
//
// `update` is "none", "ready" (a new version is installed and waiting),
// "activated" (another tab switched to a new version: this page should
// reload) or "failed" (a new version could not be installed; this one stays).

/** How often a long-open page asks whether a new version was deployed. */
const UPDATE_CHECK_MS = 60 * 60 * 1000;

const container = navigator.serviceWorker ?? null;
const state = {
  supported: container !== null,
  offlineReady: false,
  update: "none",
  installable: false,
  version: null,
  cachedBytes: null,
  error: null,
};
const subscribers = new Set();
/** The browser's install prompt, kept from `beforeinstallprompt` until used. */
let installPrompt = null;
/** Set when this page asked the waiting version to take over: it reloads once it has. */
let updateRequested = false;
let registration = null;
let started = false;

function change(patch) {
  Object.assign(state, patch);
  const snapshot = { ...state };
  for (const subscriber of subscribers) subscriber(snapshot);
}

// Listened to from the start: the browser may offer installation before the
// app has mounted.
window.addEventListener("beforeinstallprompt", (event) => {
  event.preventDefault();
  installPrompt = event;
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
 */
function askStatus(worker) {
  return new Promise((resolve) => {
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

async function controlled() {
  const worker = container.controller;
  if (!worker) return;
  const { version, bytes } = await askStatus(worker);
  change({ offlineReady: true, version, cachedBytes: bytes });
}

/** Follows a newly found version until it is installed (an update is ready) or given up. */
function track(worker) {
  let installed = false;
  const settle = () => {
    // The very first install is not an update: it takes control by itself.
    if (!container.controller) return;
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
    controlled().catch((error) => change({ error: String(error?.message ?? error) }));
  });
  try {
    const base = document.baseURI;
    registration = await container.register(new URL("sw.js", base), {
      type: "module",
      scope: new URL("./", base).href,
    });
    registration.addEventListener("updatefound", () => {
      if (registration.installing) track(registration.installing);
    });
    if (registration.waiting && container.controller) change({ update: "ready" });
    if (registration.installing) track(registration.installing);
    await controlled();
    const check = () => registration.update().catch(() => {});
    check();
    setInterval(check, UPDATE_CHECK_MS);
  } catch (error) {
    change({ error: String(error?.message ?? error) });
  }
}

/**
 * Calls `onChange(state)` now and on every change. Returns a subscription
 * whose `stop()` ends the calls.
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

/** Whether `response` (the Python worker's script) comes with its own Content-Security-Policy. */
const servedWithCsp = (response) => response.ok && response.headers.has("Content-Security-Policy");

/** Whether `url` (the Python worker's script) comes with its own CSP; `fetched` is its response when already asked for. */
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
  const early = window.sandpitWorkerCheck;
  if (!(early instanceof Response && servedWithCsp(early))) return false;
  delete window.sandpitWorkerCheck;
  return true;
}

/**
 * Whether the Python worker's script arrives without its CSP, so Python must
 * wait for the service worker to add it (a static host that sets no headers).
 * The first call reads index.html's check, when there is one.
 */
export async function workerNeedsServiceWorker(url) {
  const early = window.sandpitWorkerCheck;
  delete window.sandpitWorkerCheck;
  return !(await hasOwnCsp(url, early ?? undefined));
}

/**
 * Resolves once the service worker controls the page and serves the worker
 * script with its CSP; rejects when that cannot happen, so Python never
 * starts unguarded. The first visit downloads the precache before this resolves.
 */
export async function waitForServiceWorker(url) {
  if (container === null) {
    throw new Error(
      "This host does not send the Python worker's security headers, and this browser " +
        "has no service worker to add them: Python will not start unguarded.",
    );
  }
  if (!container.controller) {
    await new Promise((resolve, reject) => {
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
