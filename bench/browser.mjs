// The browser the bench drives: the browser tests' Chromium, with contexts
// that can reach loopback only.
import { launchChromium } from "../tests/e2e/harness.mjs";

export { launchChromium };

/**
 * A fresh context (empty HTTP cache) that reaches loopback and nothing else:
 * every other request goes to a proxy that is not there and fails at once.
 * The browser tests block with `context.route` instead, but routing turns
 * the HTTP cache off, and the warm start measures that cache.
 */
export function newContext(browser) {
  return browser.newContext({ proxy: { server: "http://127.0.0.1:9", bypass: "127.0.0.1" } });
}
