// @ts-check
// Package files (wheels, shared libraries) that Pyodide fetches from other
// origins, as the service worker (www/sw.js) caches them: checked against
// the sha256 the bundle's lockfiles pin, kept across app updates.
import { cachedBytes, download, stored } from "./sw-files.js";

/** Package files from other origins: wheels, and shared libraries (.zip in Pyodide's lockfile). */
const PACKAGE_SUFFIXES = [".whl", ".zip"];

/**
 * Whether `url` names a package file.
 *
 * @param {URL} url
 */
export const isPackageFile = (url) => PACKAGE_SUFFIXES.some((suffix) => url.pathname.endsWith(suffix));

/**
 * The last segment of a path or URL: how packages are matched to lockfile entries.
 *
 * @param {string} path
 */
export const baseName = (path) => path.slice(path.lastIndexOf("/") + 1);

/**
 * File name -> sha256 of every package `locks` pin. Entries name their file
 * relative to the lockfile or as a full URL (packages left on the CDN), so
 * they are matched by file name.
 *
 * @param {({ packages?: Record<string, { file_name?: string, sha256?: string }> } | null)[]} locks
 */
export function lockedHashes(locks) {
  const hashes = new Map();
  for (const lock of locks) {
    for (const pkg of Object.values(lock?.packages ?? {})) {
      if (pkg.file_name && pkg.sha256) hashes.set(baseName(pkg.file_name), pkg.sha256);
    }
  }
  return hashes;
}

/** The package cache, and the hashes it checks against. */
export class PackageFiles {
  #cacheName;
  #readLocks;
  /** @type {Promise<Map<string, string> | null> | null} */
  #hashes = null;

  /**
   * @param {string} cacheName
   * @param {() => Promise<any[]>} readLocks the bundle's lockfiles, as JSON
   */
  constructor(cacheName, readLocks) {
    this.#cacheName = cacheName;
    this.#readLocks = readLocks;
  }

  /** The pinned hashes, read once (null when a lockfile cannot be read; asked again next time). */
  #pinned() {
    this.#hashes ??= this.#readLocks()
      .then(lockedHashes)
      .catch(() => {
        this.#hashes = null;
        return null;
      });
    return this.#hashes;
  }

  /**
   * A package file, cache first. When a lockfile pins the file's sha256, a
   * copy that does not match is neither cached nor served.
   *
   * @param {Request} request
   */
  async serve(request) {
    const name = baseName(decodeURIComponent(new URL(request.url).pathname));
    const hashes = await this.#pinned();
    // Without the lockfile nothing can be checked: pass through, cache nothing.
    if (hashes === null) return fetch(request);
    const expected = hashes.get(name) ?? null;
    const cache = await caches.open(this.#cacheName);
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
}
