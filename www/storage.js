// @ts-check
// The user's work in the page's IndexedDB, bound from Rust in
// src/store/ (which owns the record shapes, in records.rs: here they are plain objects).
// Only the page touches this database; the Python worker gets no handle to it.

const DB_NAME = "sandpit";
/** 1: workspace and runs; 2: files; 3: conversations with a model. */
const DB_VERSION = 3;
/** One record, under WORKSPACE_KEY: sessions, the current one, each one's code. */
const STATE = "state";
const WORKSPACE_KEY = "workspace";
/** Finished runs, oldest first (auto-increment keys). */
const RUNS = "runs";
/** Each session's files, keyed `[session, path]`: `{ session, path, size, kept }`. */
const FILES = "files";
/** Each session's conversation with a model (the Ask panel), keyed by session. */
const CONVERSATIONS = "conversations";
const STORES = [STATE, RUNS, FILES, CONVERSATIONS];

/**
 * The object stores of one transaction, by name.
 *
 * @typedef {{ state: IDBObjectStore, runs: IDBObjectStore, files: IDBObjectStore, conversations: IDBObjectStore }} Stores
 */

/**
 * Every key of `session`'s files: arrays sort after strings, so `[session, []]` follows its last path.
 *
 * @param {string} session
 */
const sessionFiles = (session) => IDBKeyRange.bound([session], [session, []]);

/**
 * The workspace and finished runs are saved at every change and every run,
 * which may be many a second (typing; an agent running code in a loop).
 * They are written together, at most once per BATCH_MS: a transaction costs
 * the page's main thread about as much as rendering a run. The page can be
 * left meanwhile, so a batch is also written at once when it is hidden or
 * unloaded, and before any other transaction.
 */
const BATCH_MS = 200;
/**
 * Writes waiting to be made together, and who waits for them.
 *
 * @typedef {{
 *   workspace: object | null,
 *   runs: object[],
 *   keep: number,
 *   settle: [(value?: unknown) => void, (error: unknown) => void][],
 *   timer: ReturnType<typeof setTimeout>,
 * }} Batch
 */

/** The page's database, and the writes waiting to be made together. */
class SavedWork {
  /** @type {Promise<IDBDatabase> | null} */
  #opened = null;
  /** @type {Batch | null} */
  #batch = null;
  /**
   * Set once everything was deleted (`clearAll`): the page reloads next, and
   * nothing it still reports as it goes (the editor's last typing, say) may
   * save the work again.
   */
  #cleared = false;

  /** @returns {Promise<IDBDatabase>} */
  #database() {
    this.#opened ??= new Promise((resolve, reject) => {
      const request = indexedDB.open(DB_NAME, DB_VERSION);
      request.onupgradeneeded = (event) => {
        const db = request.result;
        if (event.oldVersion < 1) {
          db.createObjectStore(STATE);
          db.createObjectStore(RUNS, { autoIncrement: true });
        }
        if (event.oldVersion < 2) db.createObjectStore(FILES);
        if (event.oldVersion < 3) db.createObjectStore(CONVERSATIONS);
      };
      request.onsuccess = () => {
        // A newer version of the app (another tab) upgrades the database: let it.
        request.result.onversionchange = () => {
          request.result.close();
          this.#opened = null;
        };
        resolve(request.result);
      };
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error("the database is blocked by another tab"));
    }).catch((error) => {
      this.#opened = null;
      throw error;
    });
    return this.#opened;
  }

  /**
   * Runs `body(stores)` in one transaction; resolves with its result once
   * committed. Batched writes still waiting go first: transactions on the
   * same stores run in the order they are created, so nothing overtakes them.
   * `commit` commits as soon as `body` has made its requests (it must not
   * make more from their callbacks) instead of when the task ends.
   *
   * @template T
   * @param {IDBTransactionMode} mode
   * @param {(stores: Stores) => T} body
   * @param {{ commit?: boolean }} [options]
   * @returns {Promise<T>}
   */
  async transaction(mode, body, { commit = false } = {}) {
    if (this.#batch !== null) this.writeBatch();
    const db = await this.#database();
    return new Promise((resolve, reject) => {
      const tx = db.transaction(STORES, mode);
      /** @type {T} */
      let result;
      tx.oncomplete = () => resolve(result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error("the transaction was aborted"));
      result = body({
        state: tx.objectStore(STATE),
        runs: tx.objectStore(RUNS),
        files: tx.objectStore(FILES),
        conversations: tx.objectStore(CONVERSATIONS),
      });
      if (commit) tx.commit();
    });
  }

  /**
   * Adds `change` to the next batch; resolves once that batch is committed.
   *
   * @param {(batch: Batch) => void} change
   */
  batched(change) {
    if (this.#cleared) return Promise.resolve();
    const next = (this.#batch ??= {
      workspace: null,
      runs: [],
      keep: Infinity,
      settle: [],
      timer: setTimeout(() => this.writeBatch(), BATCH_MS),
    });
    change(next);
    return new Promise((resolve, reject) => next.settle.push([resolve, reject]));
  }

  /**
   * Writes the waiting batch. `leaving`: the page is being hidden or unloaded,
   * so the batch is committed at once, and the oldest runs are dropped by the
   * next batch instead (that takes requests made after the first ones end).
   */
  writeBatch({ leaving = false } = {}) {
    if (this.#batch === null) return;
    const { workspace, runs: added, keep, settle, timer } = this.#batch;
    this.#batch = null;
    clearTimeout(timer);
    /** @param {Stores} stores */
    const write = ({ state, runs }) => {
      if (workspace !== null) state.put(workspace, WORKSPACE_KEY);
      for (const run of added) runs.add(run);
      if (added.length === 0 || leaving) return;
      const count = runs.count();
      count.onsuccess = () => {
        const excess = count.result - keep;
        if (excess <= 0) return;
        // Keys only, then one range: a cursor would read each dropped run's whole result first.
        const keys = runs.getAllKeys(null, excess);
        keys.onsuccess = () => runs.delete(IDBKeyRange.upperBound(keys.result.at(-1)));
      };
    };
    this.transaction("readwrite", write, { commit: leaving }).then(
      () => settle.forEach(([resolve]) => resolve()),
      (error) => settle.forEach(([, reject]) => reject(error)),
    );
  }

  /** Drops the writes still waiting (their callers hear they are done), and every later one. */
  dropWrites() {
    this.#cleared = true;
    if (this.#batch !== null) {
      clearTimeout(this.#batch.timer);
      this.#batch.settle.forEach(([resolve]) => resolve());
      this.#batch = null;
    }
  }
}

const work = new SavedWork();
const writeBeforeLeaving = () => work.writeBatch({ leaving: true });
addEventListener("pagehide", writeBeforeLeaving);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") writeBeforeLeaving();
});

/**
 * @template T
 * @param {IDBRequest<T>} request
 */
const value = (request) => () => request.result;

/**
 * The newest `limit` runs before key `before` (all keys when null), newest
 * first, each as `{ key, run }`, and how many runs there are before `before`
 * in all. Reads only those records, going back from the newest.
 *
 * @param {IDBObjectStore} store
 * @param {number | null | undefined} before
 * @param {number} limit
 */
function newestRuns(store, before, limit) {
  const range = before == null ? undefined : IDBKeyRange.upperBound(before, true);
  const count = store.count(range);
  /** @type {{ key: IDBValidKey, run: object }[]} */
  const found = [];
  const cursor = store.openCursor(range, "prev");
  cursor.onsuccess = () => {
    const at = cursor.result;
    if (at === null || found.length >= limit) return;
    found.push({ key: at.primaryKey, run: at.value });
    at.continue();
  };
  return () => ({ runs: found, total: count.result });
}

/**
 * `{ workspace: object | null, runs: object[], storedRuns: number, files: object[] }`:
 * everything saved but the older runs: the newest `runLimit` of them, oldest
 * first, and how many there are in all (the rest are read by `historyPage`).
 *
 * @param {number} runLimit
 */
export async function loadAll(runLimit) {
  const read = await work.transaction("readonly", ({ state, runs, files }) => ({
    workspace: value(state.get(WORKSPACE_KEY)),
    runs: newestRuns(runs, null, runLimit),
    files: value(files.getAll()),
  }));
  const runs = read.runs();
  return {
    workspace: read.workspace() ?? null,
    runs: runs.runs.map(({ run }) => run).reverse(),
    storedRuns: runs.total,
    files: read.files(),
  };
}

/**
 * A page of the run history, newest first: `{ runs: { key, run }[], older }`,
 * the newest `limit` runs before key `before` (from the newest when null),
 * and how many runs are older than those.
 *
 * @param {number | null | undefined} before
 * @param {number} limit
 */
export async function historyPage(before, limit) {
  const read = await work.transaction("readonly", ({ runs }) => newestRuns(runs, before, limit));
  const { runs, total } = read();
  return { runs, older: total - runs.length };
}

/**
 * Replaces the saved workspace (batched).
 *
 * @param {object} workspace
 */
export function saveWorkspace(workspace) {
  return work.batched((next) => {
    next.workspace = workspace;
  });
}

/**
 * Appends a finished run, then drops the oldest beyond `keep` (batched).
 *
 * @param {object} run
 * @param {number} keep
 */
export function addRun(run, keep) {
  return work.batched((next) => {
    next.runs.push(run);
    next.keep = Math.min(next.keep, keep);
  });
}

/**
 * Writes `records` (files of `session`) and deletes its files at `deletes`, all or nothing.
 *
 * @param {string} session
 * @param {{ path: string }[]} records
 * @param {string[]} deletes
 */
export async function saveFiles(session, records, deletes) {
  await work.transaction("readwrite", ({ files }) => {
    for (const path of deletes) files.delete([session, path]);
    for (const record of records) files.put(record, [session, record.path]);
  });
}

/**
 * Deletes every file of `session`.
 *
 * @param {string} session
 */
export async function forgetFiles(session) {
  await work.transaction("readwrite", ({ files }) => files.delete(sessionFiles(session)));
}

/**
 * The record of `session`'s file at `path`, or null.
 *
 * @param {string} session
 * @param {string} path
 */
export async function readFile(session, path) {
  const read = await work.transaction("readonly", ({ files }) => value(files.get([session, path])));
  return read() ?? null;
}

/** Deletes everything saved, and the writes still waiting; later writes are dropped. */
export async function clearAll() {
  work.dropWrites();
  await work.transaction("readwrite", ({ state, runs, files, conversations }) => {
    state.clear();
    runs.clear();
    files.clear();
    conversations.clear();
  });
}

/** Every session's conversation with a model. */
export async function loadConversations() {
  const read = await work.transaction("readonly", ({ conversations }) => value(conversations.getAll()));
  return read();
}

/**
 * Replaces `session`'s conversation.
 *
 * @param {string} session
 * @param {object} conversation
 */
export async function saveConversation(session, conversation) {
  await work.transaction("readwrite", ({ conversations }) => conversations.put(conversation, session));
}

/**
 * `{ usage, quota, caches, indexedDb }` in bytes for the whole origin; the
 * last two are null where the browser does not break usage down.
 */
export async function estimate() {
  /** @type {StorageEstimate & { usageDetails?: { caches?: number, indexedDB?: number } }} */
  const estimate = await navigator.storage.estimate();
  return {
    usage: estimate.usage ?? 0,
    quota: estimate.quota ?? 0,
    caches: estimate.usageDetails?.caches ?? null,
    indexedDb: estimate.usageDetails?.indexedDB ?? null,
  };
}
