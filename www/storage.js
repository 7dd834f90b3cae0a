// The user's work in the page's IndexedDB, bound from Rust in
// src/storage.rs (which owns the record shapes: here they are plain objects).
// Only the page touches this database; the Python worker gets no handle to it.

const DB_NAME = "sandpit";
const DB_VERSION = 1;
/** One record, under WORKSPACE_KEY: sessions, the current one, each one's code. */
const STATE = "state";
const WORKSPACE_KEY = "workspace";
/** Finished runs, oldest first (auto-increment keys). */
const RUNS = "runs";

let opened = null;

function database() {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, DB_VERSION);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(STATE);
      request.result.createObjectStore(RUNS, { autoIncrement: true });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error("the database is blocked by another tab"));
  }).catch((error) => {
    opened = null;
    throw error;
  });
  return opened;
}

/** Runs `body(stores)` in one transaction; resolves with its result once committed. */
async function transaction(mode, body) {
  const db = await database();
  return new Promise((resolve, reject) => {
    const tx = db.transaction([STATE, RUNS], mode);
    let result;
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("the transaction was aborted"));
    result = body({ state: tx.objectStore(STATE), runs: tx.objectStore(RUNS) });
  });
}

const value = (request) => () => request.result;

/** `{ workspace: object | null, runs: object[] }`: everything saved, runs oldest first. */
export async function loadAll() {
  const read = await transaction("readonly", ({ state, runs }) => ({
    workspace: value(state.get(WORKSPACE_KEY)),
    runs: value(runs.getAll()),
  }));
  return { workspace: read.workspace() ?? null, runs: read.runs() };
}

/** Replaces the saved workspace. */
export async function saveWorkspace(workspace) {
  await transaction("readwrite", ({ state }) => state.put(workspace, WORKSPACE_KEY));
}

/** Appends a finished run, then drops the oldest beyond `keep`. */
export async function addRun(run, keep) {
  await transaction("readwrite", ({ runs }) => {
    runs.add(run);
    const count = runs.count();
    count.onsuccess = () => {
      let excess = count.result - keep;
      if (excess <= 0) return;
      runs.openCursor().onsuccess = (event) => {
        const cursor = event.target.result;
        if (!cursor || excess <= 0) return;
        cursor.delete();
        excess -= 1;
        cursor.continue();
      };
    };
  });
}

/** Deletes everything saved. */
export async function clearAll() {
  await transaction("readwrite", ({ state, runs }) => {
    state.clear();
    runs.clear();
  });
}

/**
 * `{ usage, quota, caches, indexedDb }` in bytes for the whole origin; the
 * last two are null where the browser does not break usage down.
 */
export async function estimate() {
  const estimate = await navigator.storage.estimate();
  return {
    usage: estimate.usage ?? 0,
    quota: estimate.quota ?? 0,
    caches: estimate.usageDetails?.caches ?? null,
    indexedDb: estimate.usageDetails?.indexedDB ?? null,
  };
}
