// @ts-check
// Starting Python: what every start fetches, the start itself (from the
// start-up snapshot when a good one is stored, else from scratch, see
// snapshot.mjs), and the snapshot maker's start.
//
// Python starts loading as the worker's script runs, not at `init`: the
// page's main thread, busy starting the app, forwards `init` later. Starting
// Python runs none of the user's code: code arrives only over the port that
// `init` brings, which the page sends once it has checked the worker's CSP.
import { SNAPSHOT_CHANNEL } from "../www/generated/names.js";
import { countingDownloads } from "./downloads.mjs";
import { packageIndex } from "./packages.mjs";
import { ON_A_PAGE } from "./page-valve.mjs";
import { fetchRunner, installRunner } from "./runner-install.mjs";
import { deleteSnapshot, openSnapshot, SnapshotRejected, storeSnapshot } from "./snapshot.mjs";

/**
 * @import { LoadProgress, SnapshotUse } from "../www/generated/protocol.js"
 * @import { Lockfile, PyodideAPI } from "pyodide"
 * @import { HostChannel } from "./host-channel.mjs"
 * @import { PackageIndex } from "./packages.mjs"
 * @import { Runner } from "./runner-install.mjs"
 */

/**
 * The bundle's pyodide/manifest.json (scripts/vendor-pyodide.mjs).
 *
 * @typedef {{ fetched: Record<string, number>, bundled: string[], snapshot_key: string }} Manifest
 */

/**
 * What `startFetches` started.
 *
 * @typedef {{
 *   manifest: Promise<Manifest>,
 *   lock: Promise<Lockfile>,
 *   index: Promise<PackageIndex>,
 *   runner: Promise<Record<string, string>>,
 *   loader: Promise<typeof import("pyodide")>,
 * }} Fetches
 */

/**
 * Python started, with the runner installed.
 *
 * @typedef {{ started: PyodideAPI, snapshot: SnapshotUse, installed: Runner, index: PackageIndex }} Started
 */

/** Pyodide's files, where the bundle puts them beside this script. */
const PYODIDE_URL = new URL("../pyodide/", import.meta.url).href;

/** Pyodide's lockfile, which the worker fetches itself and hands to Pyodide. */
const LOCK_FILE = "pyodide-lock.json";

/**
 * What every start fetches besides Pyodide's own files, before Python starts
 * rather than after: Pyodide's loader, the manifest (sizes, snapshot key),
 * the package index and the runner's source. None of it runs Python, so it
 * may happen before the page has checked the worker's CSP; a worker that
 * fails that check is terminated without ever getting `init`.
 *
 * @returns {Fetches}
 */
export function startFetches() {
  const fetchJson = async (/** @type {URL} */ url) => (await fetch(url)).json();
  /** @type {Promise<Manifest>} */
  const manifest = fetchJson(new URL("manifest.json", PYODIDE_URL));
  // Fetched now, not once the manifest is in: a fetch made while Python
  // loads would be counted as its download (`countingDownloads`). Pyodide
  // gets it too (`lockFileContents`) rather than fetching it again.
  /** @type {Promise<Lockfile>} */
  const lock = fetchJson(new URL(LOCK_FILE, PYODIDE_URL));
  const index = Promise.all([lock, manifest]).then(([found, about]) => packageIndex(found, about));
  const runner = fetchRunner();
  /** @type {Promise<typeof import("pyodide")>} */
  const loader = import(new URL("pyodide.mjs", PYODIDE_URL).href);
  // Their failures are reported where they are awaited, not as unhandled meanwhile.
  for (const pending of [manifest, lock, index, runner, loader]) pending.catch(() => {});
  // Pyodide imports its generated JS only once loadPyodide runs; importing
  // it now overlaps that with waiting for `init` and the snapshot (the
  // module is loaded once, so loadPyodide finds it). After the loader:
  // compiling it holds this thread, and would delay the loader, the lookup
  // and `init` behind it.
  loader.then(() => import(new URL("pyodide.asm.mjs", PYODIDE_URL).href)).catch(() => {});
  return { manifest, lock, index, runner, loader };
}

/**
 * Starts Pyodide from the stored snapshot when there is a good one, else
 * from scratch. Returns the interpreter and how the snapshot was used
 * (`used`, `absent`, or `rejected` with why), which `ready` reports. Any
 * failure of the snapshot path ends in a start from scratch.
 *
 * @param {typeof import("pyodide").loadPyodide} loadPyodide
 * @param {Promise<Lockfile>} lock Pyodide's lockfile, fetched already
 * @param {Promise<{ absent: true } | { rejected: string } | { verified: Promise<ArrayBuffer> }>} stored
 * @param {(loaded: number) => void} startup
 * @returns {Promise<{ started: PyodideAPI, snapshot: SnapshotUse }>}
 */
async function startPython(loadPyodide, lock, stored, startup) {
  // Wheels the lockfile names by a relative path are beside it.
  const options = { indexURL: PYODIDE_URL, lockFileContents: lock, packageBaseUrl: PYODIDE_URL };
  const found = await stored;
  if ("verified" in found) {
    try {
      const restore = () => loadPyodide({ ...options, _loadSnapshot: found.verified });
      const restored = await countingDownloads(startup, restore);
      return { started: restored, snapshot: "used" };
    } catch (error) {
      await deleteSnapshot(self.caches, PYODIDE_URL).catch(() => {});
      const reason =
        error instanceof SnapshotRejected
          ? error.message
          : `Pyodide could not restore it: ${/** @type {Error} */ (error)?.message ?? error}`;
      const started = await countingDownloads(startup, () => loadPyodide(options));
      return { started, snapshot: { rejected: { reason } } };
    }
  }
  const started = await countingDownloads(startup, () => loadPyodide(options));
  /** @type {SnapshotUse} */
  const snapshot = "rejected" in found ? { rejected: { reason: found.rejected } } : "absent";
  return { started, snapshot };
}

/** Cache Storage, or null where the page's origin has none (an opaque one throws). */
function storage() {
  try {
    return self.caches ?? null;
  } catch {
    return null;
  }
}

/**
 * Starts Python, with the runner installed; resolves to what `startPython`
 * does, or to null when the worker's script (`script`) came without its
 * CSP. The page never sends `init` to such a worker (it waits for the
 * service worker to add the CSP, then starts another), so it would download
 * Pyodide for nothing; this check saves that, while the guard is the page's.
 *
 * @param {Fetches} fetches
 * @param {string} script the worker's own script
 * @param {(body: LoadProgress) => void} progress
 * @returns {Promise<Started | null>}
 */
export async function startEarly(fetches, script, progress) {
  // Read before the lockdown removes Cache Storage, beside the check below.
  const cacheStorage = storage();
  const stored = (
    cacheStorage === null
      ? Promise.resolve(/** @type {{ absent: true }} */ ({ absent: true }))
      : openSnapshot(cacheStorage, PYODIDE_URL, fetches.manifest.then((manifest) => manifest.snapshot_key))
  ).catch((error) => ({ rejected: `it could not be read: ${error?.message ?? error}` }));
  // On a page (THREAD_PAGE) the page's own policy is the worker's, whatever this script was served with.
  if (!ON_A_PAGE) {
    // Revalidated, not downloaded again: the headers are the server's (or the service worker's) as it sends them now.
    const own = await fetch(script, { cache: "no-cache" });
    if (!(own.ok && own.headers.has("Content-Security-Policy"))) return null;
  }
  const { loadPyodide } = await fetches.loader;
  // The manifest knows the sizes up front, so the bar never runs backwards.
  // Python does not wait for it: progress is reported once it is in. The
  // lockfile is in before Pyodide starts, so it is not counted.
  const sizeOf = (/** @type {Manifest} */ manifest) =>
    Object.entries(manifest.fetched).reduce((sum, [name, size]) => (name === LOCK_FILE ? sum : sum + size), 0);
  /** @type {number | null} */
  let total = null;
  fetches.manifest.then((manifest) => (total = sizeOf(manifest)), () => {});
  /** @param {number} loaded */
  const startup = (loaded) => {
    if (total === null) return;
    // Once every byte is in, what remains is compiling and starting the interpreter.
    const stage = loaded >= total ? "start" : "download";
    progress({ stage, loaded, total });
  };
  const { started, snapshot } = await startPython(loadPyodide, fetches.lock, stored, startup);
  total = sizeOf(await fetches.manifest);
  progress({ stage: "runner", loaded: total, total });
  const installed = await installRunner(started, fetches.runner, fetches.index);
  return { started, snapshot, installed, index: await fetches.index };
}

/**
 * The snapshot maker: starts Python from scratch with Pyodide's snapshot
 * support, installs the runner as every start does, stores the memory and
 * says so. It runs no user code (it takes no runs at all), so the snapshot
 * holds nothing any session did; the host terminates it afterwards, so the
 * globals wrapper that snapshot support puts between Python and `js` never
 * meets user code either.
 *
 * @param {Fetches} fetches
 * @param {HostChannel} host
 */
export async function makeSnapshot(fetches, host) {
  try {
    const [manifest, { loadPyodide }] = await Promise.all([fetches.manifest, fetches.loader]);
    const made = await loadPyodide({ indexURL: PYODIDE_URL, lockFileContents: fetches.lock, packageBaseUrl: PYODIDE_URL, _makeSnapshot: true });
    const installed = await installRunner(made, fetches.runner, fetches.index);
    installed.warm();
    const bytes = /** @type {Uint8Array<ArrayBuffer>} */ (made.makeMemorySnapshot());
    await storeSnapshot(self.caches, PYODIDE_URL, manifest.snapshot_key, bytes);
    host.post("snapshot_stored", { bytes: bytes.byteLength });
    // Settings says so, on every page of the app (www/pwa.js).
    const channel = new BroadcastChannel(SNAPSHOT_CHANNEL);
    channel.postMessage({ bytes: bytes.byteLength });
    channel.close();
  } catch (error) {
    host.post("fatal", { message: `could not make a start-up snapshot: ${/** @type {Error} */ (error)?.message ?? error}` });
  }
}
