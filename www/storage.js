// The user's work in the page's IndexedDB, bound from Rust in
// src/storage.rs (which owns the record shapes: here they are plain objects).
// Only the page touches this database; the Python worker gets no handle to it.

const DB_NAME = "sandpit";
/** 1: workspace and runs; 2: files. */
const DB_VERSION = 2;
/** One record, under WORKSPACE_KEY: sessions, the current one, each one's code. */
const STATE = "state";
const WORKSPACE_KEY = "workspace";
/** Finished runs, oldest first (auto-increment keys). */
const RUNS = "runs";
/** Each session's files, keyed `[session, path]`: `{ session, path, size, kept }`. */
const FILES = "files";
const STORES = [STATE, RUNS, FILES];

/** Every key of `session`'s files: arrays sort after strings, so `[session, []]` follows its last path. */
const sessionFiles = (session) => IDBKeyRange.bound([session], [session, []]);

let opened = null;

function database() {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, DB_VERSION);
    request.onupgradeneeded = (event) => {
      const db = request.result;
      if (event.oldVersion < 1) {
        db.createObjectStore(STATE);
        db.createObjectStore(RUNS, { autoIncrement: true });
      }
      if (event.oldVersion < 2) db.createObjectStore(FILES);
    };
    request.onsuccess = () => {
      // A newer version of the app (another tab) upgrades the database: let it.
      request.result.onversionchange = () => {
        request.result.close();
        opened = null;
      };
      resolve(request.result);
    };
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
    const tx = db.transaction(STORES, mode);
    let result;
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("the transaction was aborted"));
    result = body({ state: tx.objectStore(STATE), runs: tx.objectStore(RUNS), files: tx.objectStore(FILES) });
  });
}

const value = (request) => () => request.result;

/** `{ workspace: object | null, runs: object[], files: object[] }`: everything saved, runs oldest first. */
export async function loadAll() {
  const read = await transaction("readonly", ({ state, runs, files }) => ({
    workspace: value(state.get(WORKSPACE_KEY)),
    runs: value(runs.getAll()),
    files: value(files.getAll()),
  }));
  return { workspace: read.workspace() ?? null, runs: read.runs(), files: read.files() };
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

/** Writes `records` (files of `session`) and deletes its files at `deletes`, all or nothing. */
export async function saveFiles(session, records, deletes) {
  await transaction("readwrite", ({ files }) => {
    for (const path of deletes) files.delete([session, path]);
    for (const record of records) files.put(record, [session, record.path]);
  });
}

/** Deletes every file of `session`. */
export async function forgetFiles(session) {
  await transaction("readwrite", ({ files }) => files.delete(sessionFiles(session)));
}

/** The record of `session`'s file at `path`, or null. */
export async function readFile(session, path) {
  const read = await transaction("readonly", ({ files }) => value(files.get([session, path])));
  return read() ?? null;
}

/** Deletes everything saved. */
export async function clearAll() {
  await transaction("readwrite", ({ state, runs, files }) => {
    state.clear();
    runs.clear();
    files.clear();
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
