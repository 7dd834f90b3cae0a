// @ts-check
// Pyodide's packages for a run: which the code may import, loading them
// with progress, and what failed and why (the runner turns a later
// ImportError into the right hint).
import { countingDownloads } from "./downloads.mjs";

/**
 * @import { PyodideAPI } from "pyodide"
 * @import { RunRequest } from "../www/generated/protocol.js"
 * @import { Runner } from "./runner-install.mjs"
 */

/**
 * What the runner needs to explain a failed import: which import names
 * belong to which package, and which packages ship with the app.
 *
 * @typedef {{ imports: Record<string, string>, bundled: string[] }} PackageIndex
 */

/**
 * Why a package failed to load: the CSP refused a download (`blocked`), or
 * the download failed: what Pyodide said of it (naming the file where it
 * does), else `network`.
 *
 * @typedef {"blocked" | "network" | string} Failure
 */

/**
 * The package index of Pyodide's lockfile and the bundle's manifest.
 *
 * @param {{ packages: Record<string, { name: string, imports?: string[] }> }} lock
 * @param {{ bundled: string[] }} manifest
 * @returns {PackageIndex}
 */
export function packageIndex(lock, manifest) {
  /** @type {Record<string, string>} */
  const imports = {};
  for (const entry of Object.values(lock.packages)) {
    for (const name of entry.imports ?? []) imports[name] = entry.name;
  }
  return { imports, bundled: manifest.bundled };
}

/**
 * The texts of a run its runner is asked which packages they import: its
 * code and its tests, where they say `import` at all (most runs' do not,
 * and need no call into Python).
 *
 * @param {RunRequest} request
 * @returns {string[]}
 */
export function textsToScan(request) {
  return [request.code, request.tests ?? ""].filter((text) => text.includes("import"));
}

/**
 * What Pyodide's messages say it loads and what failed ("Loading a, b",
 * "Failed to load a, b", and "The following error occurred while loading
 * a:" followed by the error), including wheels refused by their integrity hash.
 */
export class LoadLog {
  /** Packages being loaded, in the order first heard. @type {string[]} */
  names = [];
  /** Packages that failed, by lower-case name. @type {Record<string, Failure>} */
  failures = {};
  /** The package whose error Pyodide says next, if it announced one. @type {string | null} */
  #explaining = null;

  /**
   * @param {unknown} message one of Pyodide's messages
   * @param {boolean} blocked whether the CSP has refused a request of this run
   */
  hear(message, blocked) {
    const text = String(message);
    if (this.#explaining !== null) {
      if (this.failures[this.#explaining] !== "blocked") this.failures[this.#explaining] = text;
      this.#explaining = null;
      return;
    }
    const loading = text.match(/^Loading (.+)$/);
    for (const name of loading?.[1].split(", ") ?? []) {
      if (!this.names.includes(name)) this.names.push(name);
    }
    const failure =
      text.match(/^Failed to load (.+)$/) ?? text.match(/^The following error occurred while loading (.+):$/);
    for (const name of failure?.[1].split(", ") ?? []) {
      this.failures[name.toLowerCase()] = blocked ? "blocked" : "network";
    }
    if (text.startsWith("The following error occurred while loading ")) this.#explaining = failure?.[1].toLowerCase() ?? null;
  }
}

/** The packages of a started Pyodide, as runs ask for them. */
export class Packages {
  #pyodide;
  #runner;

  /**
   * @param {PyodideAPI} pyodide
   * @param {Runner} runner
   */
  constructor(pyodide, runner) {
    this.#pyodide = pyodide;
    this.#runner = runner;
  }

  /**
   * The packages to load before a run: those its code and tests import that
   * are not importable yet, as the runner's one import scanner reads them
   * (sympy too, for `sandpit.verify`'s symbolic checks), and those the
   * request names.
   *
   * @param {RunRequest} request
   * @returns {string[]}
   */
  wanted(request) {
    const scanned = textsToScan(request).flatMap((text) => JSON.parse(this.#runner.packages_to_load(text)));
    return [...new Set([...scanned, ...(request.packages ?? [])])];
  }

  /**
   * Loads `names`, reporting `(packages, loaded, total)` bytes as they
   * arrive. Returns the packages that failed, with why.
   *
   * @param {string[]} names
   * @param {(packages: string[], loaded: number, total: number) => void} report
   * @param {() => boolean} blocked whether the CSP has refused a request of this run
   */
  async load(names, report, blocked) {
    const log = new LoadLog();
    const listen = (/** @type {unknown} */ message) => log.hear(message, blocked());
    // A response without Content-Length still counts: the total is then what arrived.
    const progress = (/** @type {number} */ loaded, /** @type {number} */ total) => {
      if (loaded > 0) report(log.names, loaded, Math.max(total, loaded));
    };
    await countingDownloads(progress, () =>
      this.#pyodide.loadPackage(names, { messageCallback: listen, errorCallback: listen }),
    );
    return log.failures;
  }
}
