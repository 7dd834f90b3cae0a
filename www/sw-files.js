// @ts-check
// The service worker's files (www/sw.js): which one a request asks for, and
// their bytes, downloaded, kept and served only when they match the sha256
// they are expected to have.
import { CONFIG_FILE } from "./generated/names.js";

/**
 * Bytes as they are kept: their type, when the response said one.
 *
 * @typedef {{ bytes: ArrayBuffer, type: string | null }} Stored
 */

/** @param {ArrayBuffer} bytes */
export async function sha256(bytes) {
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
export function stored({ bytes, type }, headers = {}) {
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
 * A plain-text response that says why something could not be served.
 *
 * @param {number} status
 * @param {string} message
 * @param {Record<string, string>} [headers]
 */
export function failure(status, message, headers = {}) {
  return new Response(message, { status, headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" } });
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
export async function cachedBytes(cache, url, expected, { drop = true } = {}) {
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
export async function download(url, expected, init = {}) {
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
 * Bytes of `url` that match `expected`, from the HTTP cache when it holds
 * them (what the page fetched before the service worker took over, so they
 * are not downloaded twice), else downloaded. Throws as `download` does.
 *
 * @param {string} url
 * @param {string} expected
 * @returns {Promise<Stored>}
 */
export async function reuseOrDownload(url, expected) {
  const cached = await fetch(url, { cache: "force-cache" }).catch(() => null);
  if (cached?.ok) {
    const bytes = await cached.arrayBuffer();
    if ((await sha256(bytes)) === expected) return { bytes, type: cached.headers.get("Content-Type") };
  }
  return download(url, expected);
}

/**
 * Runs `task` over `items`, at most `limit` at a time; rejects on the first failure.
 *
 * @template T
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T) => Promise<void>} task
 */
export async function inParallel(items, limit, task) {
  const queue = [...items];
  const lane = async () => {
    while (queue.length > 0) await task(/** @type {T} */ (queue.shift()));
  };
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, lane));
}

/**
 * The file of the bundle a same-origin request asks for (relative to the
 * app's root `base`), or null: only the config and the files in `files`.
 *
 * @param {URL} url
 * @param {URL} base
 * @param {Record<string, unknown>} files
 */
export function precachedPath(url, base, files) {
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return null;
  const path = decodeURIComponent(url.pathname.slice(base.pathname.length)) || "index.html";
  return path === CONFIG_FILE || Object.hasOwn(files, path) ? path : null;
}
