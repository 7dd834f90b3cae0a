// @ts-check
// The browser the bench drives: the browser tests' Chromium, with contexts
// that can reach loopback only.
import { launchChromium, openProfile } from "../tests/e2e/harness/browser.mjs";

export { launchChromium };

/**
 * Every request but loopback's goes to a proxy that is not there and fails
 * at once. The browser tests block with `context.route` instead, but routing
 * turns the HTTP cache off, and the warm start measures that cache.
 */
const LOOPBACK_ONLY = { server: "http://127.0.0.1:9", bypass: "127.0.0.1" };

/** A fresh context (empty HTTP cache) that reaches loopback and nothing else. */
export function newContext(browser) {
  return browser.newContext({ proxy: LOOPBACK_ONLY });
}

/**
 * A browser of its own with a fresh on-disk profile (empty HTTP cache) that
 * reaches loopback and nothing else: `{ context, close }`, and `close()`
 * also deletes the profile. With `proxy` (a URL), every request goes to that
 * proxy, loopback's too, and it decides what the browser reaches.
 *
 * For the page loads: an incognito context keeps its HTTP cache in memory,
 * where an entry as large as Pyodide's 9.6 MB wasm is not kept, so every
 * worker that loads Pyodide downloaded it again: Sandpit's first visit
 * (page, snapshot maker, warm spare) came to 43 MB instead of 24, and raw's
 * return visit downloaded the wasm again. A user's browser caches it on
 * disk and revalidates it instead (a 304, no body).
 *
 * @param {string} [proxy]
 */
export function newProfileContext(proxy) {
  return openProfile({ proxy: proxy === undefined ? LOOPBACK_ONLY : { server: proxy, bypass: "<-loopback>" } });
}
