// @ts-check
// Sandpit's service worker (a module worker): keeps the app, Pyodide
// included, in a versioned cache so it starts and runs offline
// (sw-bundle.js says what it keeps when); adds the security headers to what
// it serves, so the page is cross-origin isolated even on a static host that
// cannot set headers; and caches package files fetched from other origins
// (sw-packages.js).
//
// Every file is checked against the sha256 it was built with, both when it is
// fetched and each time it is served: a file that does not match is never
// served, it is fetched again (or the request fails). The one exception is the
// deployment's config, which is edited after the build (sw-config.js).
import {
  CONFIG_FILE,
  SERVICE_WORKER_CHANNEL,
  SERVICE_WORKER_CLAIM,
  SERVICE_WORKER_INSTALL_FAILED,
  SERVICE_WORKER_INSTALL_PROGRESS,
  SERVICE_WORKER_KEEP,
  SERVICE_WORKER_SKIP_WAITING,
  SERVICE_WORKER_STATUS,
  WORKER_PATH,
} from "./generated/names.js";
import { securityHeaders } from "./security-headers.js";
import { BundleFiles } from "./sw-bundle.js";
import { cachedBytes, download, failure, precachedPath, stored } from "./sw-files.js";
import { ConfigFile } from "./sw-config.js";
import { isPackageFile, PackageFiles } from "./sw-packages.js";

// Replaced at build time by scripts/precache.mjs: every file of the bundle
// with its sha256 and size, and a version derived from them.
/** @type {{ version: string, files: Record<string, { sha256: string, size: number }> }} */
const PRECACHE = { version: "unbuilt", files: {} };

/** This script's global: a service worker's, which the type of `self` (any worker's) does not say. */
const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

/** Every cache this worker owns starts with this; others are left alone. */
const PREFIX = "sandpit-";
const PRECACHE_NAME = `${PREFIX}precache-${PRECACHE.version}`;
/** Lockfiles whose `packages.*.sha256` check package files fetched from other origins. */
const LOCKFILES = ["pyodide/pyodide-lock.json"];
/** Package files for the same lockfile outlive app updates; a new lockfile starts afresh. */
const PACKAGE_CACHE_NAME = `${PREFIX}packages-${PRECACHE.files[LOCKFILES[0]]?.sha256.slice(0, 16) ?? "unlocked"}`;

const scope = () => new URL(sw.registration.scope);
/** @param {string} path */
const appUrl = (path) => new URL(path, scope()).href;

const bundle = new BundleFiles(PRECACHE_NAME, PRECACHE.files, appUrl);

const config = new ConfigFile(
  () => appUrl(CONFIG_FILE),
  () => caches.open(PRECACHE_NAME),
  () => precachedJson("pyodide/manifest.json"),
);
const packages = new PackageFiles(PACKAGE_CACHE_NAME, () => Promise.all(LOCKFILES.map(precachedJson)));

/** Every precache of ours but this version's: earlier versions, an interrupted install. */
async function otherPrecaches() {
  const names = (await caches.keys()).filter((name) => name.startsWith(`${PREFIX}precache-`) && name !== PRECACHE_NAME);
  return Promise.all(names.map((name) => caches.open(name)));
}

/**
 * A verified copy of `url` from another of this worker's precaches.
 *
 * @param {Cache[]} others
 * @param {string} url
 * @param {string} expected
 */
async function fromOthers(others, url, expected) {
  for (const cache of others) {
    const found = await cachedBytes(cache, url, expected, { drop: false });
    if (found) return found;
  }
  return null;
}

/**
 * Tells the pages how keeping the offline copy goes: its progress, and why
 * it failed (a failed install leaves nothing the page could read
 * afterwards). Each message names this version, so a page hears only the
 * one that serves it, or the one installing while none does.
 *
 * @param {{ type: typeof SERVICE_WORKER_INSTALL_PROGRESS, done: number, total: number } | { type: typeof SERVICE_WORKER_INSTALL_FAILED, reason: string }} message
 */
function report(message) {
  const channel = new BroadcastChannel(SERVICE_WORKER_CHANNEL);
  channel.postMessage({ ...message, version: PRECACHE.version });
  channel.close();
}

/** @param {unknown} error */
const reportFailure = (error) =>
  report({ type: SERVICE_WORKER_INSTALL_FAILED, reason: String(/** @type {Error} */ (error)?.message ?? error) });

/** @param {number} done @param {number} total */
const reportProgress = (done, total) => report({ type: SERVICE_WORKER_INSTALL_PROGRESS, done, total });

// A first install keeps nothing: the page fetched what it needed already,
// and the rest is kept when a page asks (sw-bundle.js). A new version keeps
// what the one it replaces kept, copied when unchanged, downloaded when not;
// any download that fails or does not match its hash fails the install, and
// the running version stays in charge. The config is not part of that: one
// that cannot be read now is read again when the page asks for it.
sw.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const others = await otherPrecaches();
      const kept = new Set();
      for (const cache of others) for (const request of await cache.keys()) kept.add(request.url);
      const paths = Object.keys(PRECACHE.files).filter((path) => kept.has(appUrl(path)));
      await bundle.keepAll({ paths, reuse: (url, expected) => fromOthers(others, url, expected), progress: reportProgress });
      await download(appUrl(CONFIG_FILE), null)
        .then((found) => config.keep(found))
        .catch((error) => console.warn(`sandpit sw: ${error.message}`));
    })().catch((error) => {
      reportFailure(error);
      throw error;
    }),
  );
});

/** This version's state for a page: which version, and how much of its offline copy is kept. */
async function status() {
  const missing = await bundle.missing();
  return {
    type: SERVICE_WORKER_STATUS,
    version: PRECACHE.version,
    files: Object.keys(PRECACHE.files).length,
    bytes: bundle.totalBytes(),
    complete: missing.length === 0,
  };
}

// The new version is in charge: every other cache of ours is stale.
sw.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const keep = new Set([PRECACHE_NAME, PACKAGE_CACHE_NAME]);
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && !keep.has(name)) await caches.delete(name);
      }
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener("message", (event) => {
  switch (event.data?.type) {
    // The page's "Reload to update": the waiting version takes over now.
    case SERVICE_WORKER_SKIP_WAITING:
      sw.skipWaiting();
      break;
    // A page that came without us (a forced reload) and needs us to guard Python.
    case SERVICE_WORKER_CLAIM:
      event.waitUntil(sw.clients.claim());
      break;
    case SERVICE_WORKER_STATUS:
      event.waitUntil(status().then((answer) => event.source?.postMessage(answer)));
      break;
    // The installable page's ask for the whole offline copy; answered with the status once it is kept.
    case SERVICE_WORKER_KEEP:
      event.waitUntil(
        bundle
          .keepAll({ progress: reportProgress })
          .then(status)
          .then((answer) => event.source?.postMessage(answer), reportFailure),
      );
      break;
    default:
      break;
  }
});

/**
 * A file of this version as JSON, checked against its hash like everything
 * served; null when the bundle has no such file, an error when it cannot be read.
 *
 * @param {string} path
 */
async function precachedJson(path) {
  if (!Object.hasOwn(PRECACHE.files, path)) return null;
  const response = await servePrecached(path);
  if (!response.ok) throw new Error(await response.text());
  return response.json();
}

/**
 * Serves a file of the bundle with the security headers: kept, else fetched
 * (and kept, but for a wheel no page asked to keep yet).
 *
 * @param {string} path
 */
async function servePrecached(path) {
  const connect = path === WORKER_PATH ? await config.connect() : [];
  const headers = securityHeaders(path, { connect });
  try {
    return stored(await bundle.bytes(path, { keepPackages: false }), headers);
  } catch (error) {
    return failure(503, `Sandpit could not load ${path}: ${/** @type {Error} */ (error).message}`, headers);
  }
}

sw.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin === sw.location.origin) {
    const path = precachedPath(url, scope(), PRECACHE.files);
    if (path === CONFIG_FILE) event.respondWith(config.serve());
    else if (path !== null) event.respondWith(servePrecached(path));
  } else if (isPackageFile(url)) {
    event.respondWith(packages.serve(request));
  }
  // Anything else goes to the network untouched.
});
