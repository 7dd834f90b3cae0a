// @ts-check
// The gate before Python's worker gets code: its script must come with its
// own Content-Security-Policy (see SECURITY.md), from the host or, where a
// static host sends no headers, from the service worker. Bound from Rust in
// src/runtime/gate.rs; no code reaches Python before it says yes.
import { EARLY_WORKER_CHECK_GLOBAL } from "./generated/names.js";
import { whenControlled } from "./pwa.js";
import { threadMode } from "./thread-worker.js";

/**
 * Whether `response` (the Python worker's script) comes with its own Content-Security-Policy.
 *
 * @param {Response} response
 */
export const servedWithCsp = (response) => response.ok && response.headers.has("Content-Security-Policy");

/**
 * Whether `url` (the Python worker's script) comes with its own CSP; `fetched` is its response when already asked for.
 *
 * @param {string} url
 * @param {Response | Promise<Response>} [fetched]
 */
async function hasOwnCsp(url, fetched = fetch(url, { cache: "no-store" })) {
  return servedWithCsp(await fetched);
}

/**
 * index.html's check of the Python worker's script: its promise, or its
 * response once that is in; undefined once taken.
 *
 * @returns {Promise<Response> | Response | undefined}
 */
const earlyCheck = () => Reflect.get(window, EARLY_WORKER_CHECK_GLOBAL);

/**
 * Whether index.html's check of the Python worker's script, made as the page
 * started, is in already and found its CSP (it is then taken). Lets the
 * worker get `init` (and code) without waiting for the app to finish
 * mounting. Any other answer is left for `workerNeedsServiceWorker`.
 */
export function workerCheckedEarly() {
  const early = earlyCheck();
  if (!(early instanceof Response && servedWithCsp(early))) return false;
  Reflect.deleteProperty(window, EARLY_WORKER_CHECK_GLOBAL);
  return true;
}

/**
 * Whether the Python worker's script arrives without its CSP, so Python must
 * wait for the service worker to add it (a static host that sets no headers).
 * The first call reads index.html's check, when there is one.
 *
 * @param {string} url
 */
export async function workerNeedsServiceWorker(url) {
  const early = earlyCheck();
  Reflect.deleteProperty(window, EARLY_WORKER_CHECK_GLOBAL);
  // Where Python runs on a frame's thread, that frame's page carries the
  // worker's policy itself (THREAD_PAGE), whatever the server sends.
  if (threadMode()) return false;
  return !(await hasOwnCsp(url, early ?? undefined));
}

/**
 * Resolves once the service worker controls the page and serves the worker
 * script with its CSP; rejects when that cannot happen, so Python never
 * starts unguarded. The first visit downloads the precache before this resolves.
 *
 * @param {string} url
 */
export async function waitForServiceWorker(url) {
  await whenControlled({
    unsupported: () =>
      new Error(
        "This host does not send the Python worker's security headers, and this browser " +
          "has no service worker to add them: Python will not start unguarded.",
      ),
    failed: (why) =>
      new Error(
        `The service worker that adds the Python worker's security headers could not start ` +
          `(${why}): Python will not start unguarded.`,
      ),
  });
  if (!(await hasOwnCsp(url))) {
    throw new Error("The Python worker's script still has no security policy: Python will not start unguarded.");
  }
}
