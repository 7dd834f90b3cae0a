// @ts-check
// Sandpit's service worker (a module worker): keeps the whole app, Pyodide
// included, in a versioned cache so it starts and runs offline; adds the
// security headers to what it serves, so the page is cross-origin isolated
// even on a static host that cannot set headers; and caches package files
// fetched from other origins.
//
// Every file is checked against the sha256 it was built with, both when it is
// downloaded and each time it is served: a file that does not match is never
// served, it is fetched again (or the request fails). The one exception is the
// deployment's config, which is edited after the build: it is fetched fresh
// whenever the page asks for it online, kept only when it is a JSON object,
// and the Python worker's CSP is derived from the copy the page last read.
import { CONFIG_FILE, SERVICE_WORKER_CHANNEL, WORKER_PATH } from "./generated/names.js";
import { connectOrigins, securityHeaders } from "./security-headers.js";

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
/** Package files from other origins: wheels, and shared libraries (.zip in Pyodide's lockfile). */
const PACKAGE_SUFFIXES = [".whl", ".zip"];
/** Files downloaded at once while installing. */
const PARALLEL_DOWNLOADS = 4;

const scope = () => new URL(sw.registration.scope);
/** @param {string} path */
const appUrl = (path) => new URL(path, scope()).href;

/**
 * Bytes as they are kept: their type, when the response said one.
 *
 * @typedef {{ bytes: ArrayBuffer, type: string | null }} Stored
 */

/** @param {ArrayBuffer} bytes */
async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * A response made of `bytes`: their type and length only, nothing
 * host-specific, plus `headers` (the security headers, when serving).
 *
 * @param {Stored} stored
 * @param {Record<string, string>} [headers]
 */
function stored({ bytes, type }, headers = {}) {
  return new Response(bytes, {
    headers: {
      ...headers,
      ...(type ? { "Content-Type": type } : {}),
      // The worker counts package downloads against this.
      "Content-Length": String(bytes.byteLength),
    },
  });
}

/**
 * The bytes and type of `url` in `cache`, when they are there and match
 * `expected` (any content when `expected` is null). With `drop`, a copy that
 * does not match is deleted, so it is fetched again; another version's cache
 * is only looked at, since a different file there is that version's own.
 *
 * @param {Cache} cache
 * @param {string} url
 * @param {string | null} expected
 * @returns {Promise<Stored | null>}
 */
async function cachedBytes(cache, url, expected, { drop = true } = {}) {
  const response = await cache.match(url);
  if (!response) return null;
  const bytes = await response.arrayBuffer();
  if (expected !== null && (await sha256(bytes)) !== expected) {
    if (drop) {
      console.warn(`sandpit sw: ${url} does not match its sha256 in the cache; fetching it again`);
      await cache.delete(url);
    }
    return null;
  }
  return { bytes, type: response.headers.get("Content-Type") };
}

/**
 * Downloads `url` past the HTTP cache and checks it; throws on any failure or mismatch.
 *
 * @param {string} url
 * @param {string | null} expected
 * @param {RequestInit} [init]
 * @returns {Promise<Stored>}
 */
async function download(url, expected, init = {}) {
  const response = await fetch(url, { cache: "no-cache", ...init });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const bytes = await response.arrayBuffer();
  const actual = await sha256(bytes);
  if (expected !== null && actual !== expected) {
    throw new Error(`${url}: sha256 ${actual} does not match the expected ${expected}`);
  }
  return { bytes, type: response.headers.get("Content-Type") };
}

/**
 * A verified copy of `url` from any of this worker's precaches (an earlier version, an interrupted install).
 *
 * @param {string} url
 * @param {string} expected
 */
async function fromAnyPrecache(url, expected) {
  for (const name of await caches.keys()) {
    if (!name.startsWith(`${PREFIX}precache-`)) continue;
    const found = await cachedBytes(await caches.open(name), url, expected, { drop: false });
    if (found) return found;
  }
  return null;
}

/**
 * Runs `task` over `items`, at most `limit` at a time; rejects on the first failure.
 *
 * @template T
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T) => Promise<void>} task
 */
async function inParallel(items, limit, task) {
  const queue = [...items];
  const lane = async () => {
    while (queue.length > 0) await task(/** @type {T} */ (queue.shift()));
  };
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, lane));
}

/**
 * The config in `bytes` when it is a JSON object; throws with the reason otherwise.
 *
 * @param {ArrayBuffer} bytes
 */
function checkConfig(bytes) {
  let config;
  try {
    config = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new Error(`${CONFIG_FILE} is not valid JSON: ${/** @type {Error} */ (error).message}`);
  }
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    throw new Error(`${CONFIG_FILE} is not a JSON object`);
  }
  return config;
}

/**
 * Keeps `found` as the config for offline use and for the worker's CSP;
 * throws, keeping nothing, when it is not valid.
 *
 * @param {Stored} found
 */
async function keepConfig(found) {
  checkConfig(found.bytes);
  const cache = await caches.open(PRECACHE_NAME);
  await cache.put(appUrl(CONFIG_FILE), stored(found));
  workerConnect = null;
}

/**
 * Tells the pages how installing goes: its progress, and why it failed (a
 * failed install leaves nothing the page could read afterwards).
 *
 * @param {{ type: "install-progress", done: number, total: number } | { type: "install-failed", reason: string }} message
 */
function reportInstall(message) {
  const channel = new BroadcastChannel(SERVICE_WORKER_CHANNEL);
  channel.postMessage(message);
  channel.close();
}

// Installing fills this version's cache; any download that fails or does not
// match its hash fails the install, and the running version stays in charge.
// The config is not part of that: one that cannot be read now is read again
// when the page asks for it.
sw.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(PRECACHE_NAME);
      const total = Object.values(PRECACHE.files).reduce((sum, file) => sum + file.size, 0);
      let done = 0;
      await inParallel(Object.entries(PRECACHE.files), PARALLEL_DOWNLOADS, async ([path, file]) => {
        const url = appUrl(path);
        const reused = await fromAnyPrecache(url, file.sha256);
        await cache.put(url, stored(reused ?? (await download(url, file.sha256))));
        done += file.size;
        reportInstall({ type: "install-progress", done, total });
      });
      await download(appUrl(CONFIG_FILE), null)
        .then(keepConfig)
        .catch((error) => console.warn(`sandpit sw: ${error.message}`));
    })().catch((error) => {
      reportInstall({ type: "install-failed", reason: String(error?.message ?? error) });
      throw error;
    }),
  );
});

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
    case "skip-waiting":
      sw.skipWaiting();
      break;
    // A page that came without us (a forced reload) and needs us to guard Python.
    case "claim":
      event.waitUntil(sw.clients.claim());
      break;
    case "status": {
      const sizes = Object.values(PRECACHE.files).map((file) => file.size);
      event.source?.postMessage({
        type: "status",
        version: PRECACHE.version,
        files: sizes.length,
        bytes: sizes.reduce((sum, size) => sum + size, 0),
      });
      break;
    }
    default:
      break;
  }
});

/**
 * The precached file a same-origin request asks for, or null.
 *
 * @param {URL} url
 */
function precachedPath(url) {
  const base = scope();
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return null;
  const path = decodeURIComponent(url.pathname.slice(base.pathname.length)) || "index.html";
  return path === CONFIG_FILE || Object.hasOwn(PRECACHE.files, path) ? path : null;
}

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

/** @type {Promise<string[]> | null} */
let workerConnect = null;

/** The config the page last read (kept by `keepConfig`), or null when there is none. */
async function keptConfig() {
  const found = await cachedBytes(await caches.open(PRECACHE_NAME), appUrl(CONFIG_FILE), null);
  return found && checkConfig(found.bytes);
}

/**
 * What the worker's CSP lets Python reach, from the kept config and the
 * precached manifest; read again after the config changes.
 */
function connectForWorker() {
  workerConnect ??= Promise.all([keptConfig(), precachedJson("pyodide/manifest.json")])
    .then(([config, manifest]) => connectOrigins(config, manifest))
    .catch(() => []);
  return workerConnect;
}

/**
 * The config, fresh from the network when it can be, else the kept copy.
 * A config that is not valid is served (the page says what is wrong with
 * it) but not kept, so it never reaches the worker's CSP.
 */
async function serveConfig() {
  const url = appUrl(CONFIG_FILE);
  const headers = securityHeaders(CONFIG_FILE);
  const fresh = await download(url, null).then(
    (found) => ({ found, error: null }),
    (/** @type {Error} */ error) => ({ found: null, error }),
  );
  if (fresh.found) {
    await keepConfig(fresh.found).catch((error) => console.warn(`sandpit sw: ${error.message}; the last good copy stays`));
    return stored(fresh.found, headers);
  }
  const kept = await cachedBytes(await caches.open(PRECACHE_NAME), url, null);
  if (kept) return stored(kept, headers);
  return new Response(`Sandpit could not load ${CONFIG_FILE}: ${fresh.error?.message}`, {
    status: 503,
    headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" },
  });
}

/**
 * Serves a precached file with the security headers, fetching it again when the copy is bad.
 *
 * @param {string} path
 */
async function servePrecached(path) {
  const url = appUrl(path);
  const { sha256: expected } = PRECACHE.files[path];
  const connect = path === WORKER_PATH ? await connectForWorker() : [];
  const headers = securityHeaders(path, { connect });
  try {
    const cache = await caches.open(PRECACHE_NAME);
    let found = await cachedBytes(cache, url, expected);
    if (!found) {
      found = await download(url, expected);
      await cache.put(url, stored(found));
    }
    return stored(found, headers);
  } catch (error) {
    return new Response(`Sandpit could not load ${path}: ${/** @type {Error} */ (error).message}`, {
      status: 503,
      headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" },
    });
  }
}

/** @type {Promise<Map<string, string> | null> | null} */
let lockedHashes = null;

/**
 * The last segment of a path or URL: how packages are matched to lockfile entries.
 *
 * @param {string} path
 */
const baseName = (path) => path.slice(path.lastIndexOf("/") + 1);

/**
 * File name -> sha256 of every package the lockfiles pin, read once (null
 * when a lockfile cannot be read; asked again next time). Entries
 * name their file relative to the lockfile or as a full URL (packages left on
 * the CDN), so they are matched by file name.
 */
function packageHashes() {
  lockedHashes ??= (async () => {
    const hashes = new Map();
    for (const path of LOCKFILES) {
      const lock = await precachedJson(path);
      for (const pkg of Object.values(lock?.packages ?? {})) {
        if (pkg.file_name && pkg.sha256) hashes.set(baseName(pkg.file_name), pkg.sha256);
      }
    }
    return hashes;
  })().catch(() => {
    lockedHashes = null;
    return null;
  });
  return lockedHashes;
}

/**
 * Package files from other origins, cache first. When a lockfile pins the
 * file's sha256, a copy that does not match is neither cached nor served.
 *
 * @param {Request} request
 */
async function servePackage(request) {
  const name = baseName(decodeURIComponent(new URL(request.url).pathname));
  const hashes = await packageHashes();
  // Without the lockfile nothing can be checked: pass through, cache nothing.
  if (hashes === null) return fetch(request);
  const expected = hashes.get(name) ?? null;
  const cache = await caches.open(PACKAGE_CACHE_NAME);
  let found = await cachedBytes(cache, request.url, expected);
  if (!found) {
    try {
      found = await download(request.url, expected, { mode: "cors", credentials: "omit" });
    } catch (error) {
      return new Response(`Sandpit could not fetch ${name}: ${/** @type {Error} */ (error).message}`, { status: 502 });
    }
    await cache.put(request.url, stored(found));
  }
  return stored(found);
}

sw.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin === sw.location.origin) {
    const path = precachedPath(url);
    if (path === CONFIG_FILE) event.respondWith(serveConfig());
    else if (path !== null) event.respondWith(servePrecached(path));
  } else if (PACKAGE_SUFFIXES.some((suffix) => url.pathname.endsWith(suffix))) {
    event.respondWith(servePackage(request));
  }
  // Anything else goes to the network untouched.
});
