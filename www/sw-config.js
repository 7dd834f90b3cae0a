// @ts-check
// The deployment's config (sandpit.config.json) as the service worker
// (www/sw.js) keeps it: edited after the build, so not checked against a
// hash like every other file. It is fetched fresh whenever the page asks
// for it online, kept only when it is a JSON object, and the Python
// worker's CSP is derived from the copy the page last read.
import { CONFIG_FILE } from "./generated/names.js";
import { connectOrigins, securityHeaders } from "./security-headers.js";
import { cachedBytes, download, failure, stored } from "./sw-files.js";

/**
 * @import { Stored } from "./sw-files.js"
 */

/**
 * The config in `bytes` when it is a JSON object; throws with the reason otherwise.
 *
 * @param {ArrayBuffer} bytes
 */
export function checkConfig(bytes) {
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

/** The config's kept copy, and what the worker's CSP lets Python reach by it. */
export class ConfigFile {
  #url;
  #openCache;
  #manifest;
  /**
   * What the worker's CSP lets Python reach, until the config changes.
   *
   * @type {Promise<string[]> | null}
   */
  #connect = null;

  /**
   * @param {() => string} url the config's URL
   * @param {() => Promise<Cache>} openCache the cache the copy is kept in
   * @param {() => Promise<{ cdn?: string } | null>} manifest the bundle's pyodide/manifest.json
   */
  constructor(url, openCache, manifest) {
    this.#url = url;
    this.#openCache = openCache;
    this.#manifest = manifest;
  }

  /**
   * Keeps `found` for offline use and for the worker's CSP; throws, keeping
   * nothing, when it is not valid.
   *
   * @param {Stored} found
   */
  async keep(found) {
    checkConfig(found.bytes);
    const cache = await this.#openCache();
    await cache.put(this.#url(), stored(found));
    this.#connect = null;
  }

  /** The config the page last read, or null when there is none. */
  async #kept() {
    const found = await cachedBytes(await this.#openCache(), this.#url(), null);
    return found && checkConfig(found.bytes);
  }

  /** What the worker's CSP lets Python reach, from the kept config and the manifest. */
  connect() {
    this.#connect ??= Promise.all([this.#kept(), this.#manifest()])
      .then(([config, manifest]) => connectOrigins(config, manifest))
      .catch(() => []);
    return this.#connect;
  }

  /**
   * The config, fresh from the network when it can be, else the kept copy.
   * A config that is not valid is served (the page says what is wrong with
   * it) but not kept, so it never reaches the worker's CSP.
   */
  async serve() {
    const url = this.#url();
    const headers = securityHeaders(CONFIG_FILE);
    const fresh = await download(url, null).then(
      (found) => ({ found, error: null }),
      (/** @type {Error} */ error) => ({ found: null, error }),
    );
    if (fresh.found) {
      await this.keep(fresh.found).catch((error) => console.warn(`sandpit sw: ${error.message}; the last good copy stays`));
      return stored(fresh.found, headers);
    }
    const kept = await cachedBytes(await this.#openCache(), url, null);
    if (kept) return stored(kept, headers);
    return failure(503, `Sandpit could not load ${CONFIG_FILE}: ${fresh.error?.message}`, headers);
  }
}
