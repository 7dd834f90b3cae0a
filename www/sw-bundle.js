// @ts-check
// The bundle's own files as the service worker (www/sw.js) keeps them, in
// one versioned cache, each checked against the sha256 it was built with.
//
// A first visit downloads nothing twice: the service worker's first install
// keeps nothing, a file it serves is fetched (from the HTTP cache when that
// holds the same bytes) and kept on the way, and the rest of the offline copy
// is kept only when a page asks for it (`keepAll`, which the installable app
// page does once its first run is over), from the HTTP cache first too. The
// bundled wheels are kept only then: until a page asks, a wheel an import
// needs is fetched and served, and stays in the HTTP cache, so an embedded
// widget never stores them. One request serves a page's fetch and the copy
// that wants the same file.
import { cachedBytes, inParallel, reuseOrDownload, stored } from "./sw-files.js";

/**
 * @import { Stored } from "./sw-files.js"
 * @typedef {Record<string, { sha256: string, size: number }>} Listed
 */

/**
 * Whether `path` is one of the files kept only with the whole offline copy: a bundled wheel.
 *
 * @param {string} path
 */
export const keptOnlyWhenAsked = (path) => path.endsWith(".whl");

/** Files downloaded at once while keeping the offline copy. */
const PARALLEL_DOWNLOADS = 4;

/** The bundle's files in one cache, and the downloads under way. */
export class BundleFiles {
  #cacheName;
  #files;
  #url;
  /**
   * Downloads under way, by path: a request and the offline copy share one.
   *
   * @type {Map<string, Promise<Stored>>}
   */
  #fetching = new Map();

  /**
   * @param {string} cacheName
   * @param {Listed} files every file of the bundle, with its sha256 and size
   * @param {(path: string) => string} url a path's URL
   */
  constructor(cacheName, files, url) {
    this.#cacheName = cacheName;
    this.#files = files;
    this.#url = url;
  }

  /**
   * Verified bytes of `path`, from the cache, else fetched and kept (a wheel
   * only with `keepPackages`). Throws when they can be neither read nor fetched.
   *
   * @param {string} path
   * @param {{ keepPackages: boolean }} options
   */
  async bytes(path, { keepPackages }) {
    const cache = await caches.open(this.#cacheName);
    const url = this.#url(path);
    const found = await cachedBytes(cache, url, this.#files[path].sha256);
    if (found) return found;
    const fetched = await this.#fetch(path);
    if (keepPackages || !keptOnlyWhenAsked(path)) await cache.put(url, stored(fetched));
    return fetched;
  }

  /** @param {string} path */
  #fetch(path) {
    let pending = this.#fetching.get(path);
    if (!pending) {
      pending = reuseOrDownload(this.#url(path), this.#files[path].sha256).finally(() => this.#fetching.delete(path));
      this.#fetching.set(path, pending);
    }
    return pending;
  }

  /** The listed paths this cache does not hold yet. */
  async missing() {
    const cache = await caches.open(this.#cacheName);
    const held = new Set((await cache.keys()).map((request) => request.url));
    return Object.keys(this.#files).filter((path) => !held.has(this.#url(path)));
  }

  /** Bytes of the listed files, all of them. */
  totalBytes() {
    return Object.values(this.#files).reduce((sum, file) => sum + file.size, 0);
  }

  /**
   * Keeps `paths` (every listed one not kept yet when not given), copied
   * from `reuse` when it has a verified copy, else fetched; `progress(done,
   * total)` hears of each. Rejects on the first that cannot be kept.
   *
   * @param {{ paths?: string[], reuse?: (url: string, expected: string) => Promise<Stored | null>, progress?: (done: number, total: number) => void }} [options]
   */
  async keepAll({ paths, reuse = async () => null, progress = () => {} } = {}) {
    const wanted = paths ?? (await this.missing());
    const total = wanted.reduce((sum, path) => sum + this.#files[path].size, 0);
    const cache = await caches.open(this.#cacheName);
    let done = 0;
    await inParallel(wanted, PARALLEL_DOWNLOADS, async (path) => {
      const url = this.#url(path);
      const found = (await reuse(url, this.#files[path].sha256)) ?? (await this.#fetch(path));
      await cache.put(url, stored(found));
      done += this.#files[path].size;
      progress(done, total);
    });
  }
}
