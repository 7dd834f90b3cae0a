// @ts-check
// The start-up snapshot: Pyodide's memory right after start-up (interpreter
// initialised, runner imported and configured), kept in Cache Storage so a
// later start restores it instead of initialising Python again.
//
// Trust: only a worker started to make the snapshot writes it, before and
// without running any user code (see `makeSnapshot` in startup.mjs); every
// other worker reads it before it removes the storage APIs, so Python never
// has a handle to it. Each entry carries the bundle's snapshot key (see
// scripts/vendor-pyodide.mjs: Pyodide's files, the lockfile and this
// worker's own files) and the sha256 of its bytes: one made for another
// bundle, or whose bytes changed, is deleted instead of used.
import { SNAPSHOT_CACHE, SNAPSHOT_ENTRY } from "../www/generated/names.js";

/** @param {string} pyodideUrl */
const entryUrl = (pyodideUrl) => new URL(SNAPSHOT_ENTRY, pyodideUrl).href;

const KEY_HEADER = "X-Snapshot-Key";
const SHA256_HEADER = "X-Snapshot-Sha256";

/** Pyodide's snapshot header: magic, offset of the memory, JSON length, padding, build id; then the JSON. */
const SNAPSHOT_MAGIC = 0x706e7300;
const HEADER_BYTES = 48;
/** WebAssembly memory grows in 64 KiB pages; a snapshot's memory is a whole number of them. */
const WASM_PAGE = 65536;

/** @param {BufferSource} bytes */
async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Why `bytes` cannot be restored, or null. Pyodide checks its build id
 * itself (and throws), but a memory that is not a whole number of wasm
 * pages makes its instantiation fail silently and loadPyodide never
 * settles, so the shape is checked here first. And the snapshot must hold
 * no JS object: Pyodide would look each one up by its path from the
 * worker's global and hand it to Python while restoring, before the worker
 * removes what Python must not reach (a `caches` kept that way would
 * survive the lockdown). Checked before storing and before restoring.
 *
 * @param {ArrayBuffer} bytes
 */
export function snapshotProblem(bytes) {
  if (bytes.byteLength < HEADER_BYTES || bytes.byteLength % 4 !== 0) {
    return `${bytes.byteLength} bytes is no snapshot`;
  }
  const [magic, offset, jsonLength] = new Uint32Array(bytes, 0, 3);
  if (magic !== SNAPSHOT_MAGIC) return "it does not start with Pyodide's snapshot magic";
  const memory = bytes.byteLength - offset;
  if (offset > bytes.byteLength || memory <= 0 || memory % WASM_PAGE !== 0) {
    return "its memory is not a whole number of wasm pages";
  }
  let state;
  try {
    const json = new Uint8Array(bytes, HEADER_BYTES, Math.min(jsonLength, offset - HEADER_BYTES));
    state = JSON.parse(new TextDecoder().decode(json));
  } catch {
    return "its header is not Pyodide's";
  }
  if (!Array.isArray(state?.hiwireKeys) || state.hiwireKeys.some((/** @type {unknown} */ entry) => entry !== null)) {
    return "it holds JS objects, which restoring would hand to Python before the lockdown";
  }
  return null;
}

/** A stored snapshot that failed its checks; its message says why. */
export class SnapshotRejected extends Error {}

/**
 * The stored snapshot for `key` (a promise: the lookup, slow on a fresh
 * profile, overlaps the fetch of the manifest that says it; with no snapshot
 * stored, the key is not awaited), looked up quickly: `{ absent: true }` when
 * none is stored; `{ rejected }` (why) when the one stored was made for
 * another bundle (it is deleted); else `{ verified }`, a promise of its bytes
 * that rejects with a `SnapshotRejected` when they do not match their sha256
 * or are no snapshot. Reading and hashing the whole memory is slow, so the
 * bytes are checked while Pyodide's start-up goes on (it awaits them only
 * before instantiating); whoever awaits a rejection deletes the snapshot.
 *
 * @param {CacheStorage} cacheStorage
 * @param {string} pyodideUrl
 * @param {string | Promise<string>} key
 * @returns {Promise<{ absent: true } | { rejected: string } | { verified: Promise<ArrayBuffer> }>}
 */
export async function openSnapshot(cacheStorage, pyodideUrl, key) {
  const url = entryUrl(pyodideUrl);
  // Without a snapshot the start need not wait for the key, nor hear of its failure.
  Promise.resolve(key).catch(() => {});
  const cache = await cacheStorage.open(SNAPSHOT_CACHE);
  const response = await cache.match(url);
  if (!response) return { absent: true };
  if (response.headers.get(KEY_HEADER) !== (await key)) {
    await cache.delete(url);
    return { rejected: "it was made for another build of the app" };
  }
  const verified = (async () => {
    const bytes = await response.arrayBuffer();
    if ((await sha256(bytes)) !== response.headers.get(SHA256_HEADER)) {
      throw new SnapshotRejected("its bytes do not match their sha256");
    }
    const problem = snapshotProblem(bytes);
    if (problem !== null) throw new SnapshotRejected(problem);
    return bytes;
  })();
  // Handled where it is awaited; not an unhandled rejection meanwhile.
  verified.catch(() => {});
  return { verified };
}

/**
 * Replaces the stored snapshot with `bytes`, made for `key`; throws when they could not be restored.
 *
 * @param {CacheStorage} cacheStorage
 * @param {string} pyodideUrl
 * @param {string} key
 * @param {Uint8Array<ArrayBuffer>} bytes
 */
export async function storeSnapshot(cacheStorage, pyodideUrl, key, bytes) {
  // Pyodide returns a view of a buffer of its own; a copy only if that ever changes.
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const problem = snapshotProblem(whole ? bytes.buffer : bytes.slice().buffer);
  if (problem !== null) throw new Error(`the snapshot would not be restored: ${problem}`);
  const cache = await cacheStorage.open(SNAPSHOT_CACHE);
  const headers = {
    [KEY_HEADER]: key,
    [SHA256_HEADER]: await sha256(bytes),
    "Content-Length": String(bytes.byteLength),
  };
  await cache.put(entryUrl(pyodideUrl), new Response(bytes, { headers }));
}

/**
 * Deletes the stored snapshot (one that failed its checks, or that Pyodide refused to restore).
 *
 * @param {CacheStorage} cacheStorage
 * @param {string} pyodideUrl
 */
export async function deleteSnapshot(cacheStorage, pyodideUrl) {
  const cache = await cacheStorage.open(SNAPSHOT_CACHE);
  await cache.delete(entryUrl(pyodideUrl));
}
