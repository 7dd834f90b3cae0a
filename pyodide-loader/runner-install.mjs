// @ts-check
// The runner (the Python packages sandpit_runner/ and sandpit/, packed by the
// build into python.json.gz): fetched as the worker starts, installed into each
// Pyodide the worker starts, the snapshot maker's included.
import { INTERRUPT_SIGNAL, NUDGE_SIGNAL, RUNNER_PACK } from "../www/generated/names.js";
import { unpacked } from "../www/unpack.js";

/**
 * @import { PyodideAPI } from "pyodide"
 * @import { HostCallForm } from "../www/generated/protocol.js"
 * @import { HostAnswer } from "./host-calls.mjs"
 * @import { PackageIndex } from "./packages.mjs"
 */

/**
 * The runner's `run`: a request's result as JSON, or a coroutine that gives it.
 *
 * @typedef {(requestJson: string, emit: (stream: string, text: string) => void, eager: boolean, failuresJson: string) =>
 *   string | PromiseLike<string> & { destroy(): void }} RunCall
 */

/**
 * The runner package, as a Python proxy: its functions called from the worker.
 *
 * @typedef {{
 *   configure(indexJson: string, interruptSignal: number, nudgeSignal: number): void,
 *   watch_signals(word: Int32Array | Map<number, number>): void,
 *   connect_host(bridge: (name: string, argumentsJson: string, form: HostCallForm) => Promise<HostAnswer>): void,
 *   run: RunCall & { callPromising: (...args: Parameters<RunCall>) => Promise<ReturnType<RunCall>> },
 *   read_file(session: string, path: string): string,
 *   check(code: string): string,
 *   complete(session: string, code: string, cursor: number): string,
 *   packages_to_load(code: string): string,
 *   warm(): void,
 * }} Runner
 */

/** The runner's package, which the worker imports. */
const RUNNER_MODULE = "sandpit_runner";

/** The packed packages (scripts/pack-python.mjs), beside this script in the bundle. */
const RUNNER_URL = new URL(RUNNER_PACK, import.meta.url).href;

/**
 * Starts fetching the runner's packages: each file's path under
 * site-packages, and its source.
 *
 * @returns {Promise<Record<string, string>>}
 */
export function fetchRunner() {
  return fetch(RUNNER_URL)
    .then((response) => unpacked(response, "application/json"))
    .then((response) => response.json());
}

/**
 * Installs the runner into a started Pyodide and gives it the package index.
 * Also after a restore: the modules are in the snapshot's memory already,
 * but their files are not in the file system (which a snapshot does not
 * hold), and tracebacks read them from there. The runner gets the signals the host
 * writes into the interrupt buffer with the index.
 *
 * @param {PyodideAPI} started
 * @param {Promise<Record<string, string>>} source what `fetchRunner` gave
 * @param {Promise<PackageIndex>} index
 * @returns {Promise<Runner>}
 */
export async function installRunner(started, source, index) {
  const sitePackages = started.runPython("import site; site.getsitepackages()[0]");
  for (const [path, text] of Object.entries(await source)) {
    started.FS.mkdirTree(`${sitePackages}/${path.slice(0, path.lastIndexOf("/"))}`);
    started.FS.writeFile(`${sitePackages}/${path}`, text);
  }
  /** @type {Runner} */
  const installed = started.pyimport(RUNNER_MODULE);
  installed.configure(JSON.stringify(await index), INTERRUPT_SIGNAL, NUDGE_SIGNAL);
  return installed;
}
