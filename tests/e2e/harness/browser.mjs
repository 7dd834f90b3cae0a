// @ts-check
// Debian's headless Chromium as the browser tests and bench/ drive it, with
// no network beyond loopback.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { chromium } from "playwright-core";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Tests run with no network: anything not on loopback fails at once, as it
 * would offline (nothing may reach a CDN from a test).
 */
export function loopbackOnly(context) {
  return context.route(
    (url) => !["127.0.0.1", "localhost"].includes(url.hostname) && url.protocol.startsWith("http"),
    (route) => route.abort("internetdisconnected"),
  );
}

/** Debian's headless Chromium with the flags this machine kind needs (see TOOLCHAIN.md); also used by bench/. */
export function launchChromium() {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/**
 * The same Chromium as a browser of its own with a fresh on-disk profile,
 * as a user has it (incognito contexts offer no installation, and their
 * HTTP cache lives in memory); `options` go to Playwright's
 * `launchPersistentContext`. Resolves to `{ context, close }`; `close()`
 * also deletes the profile. Also used by bench/.
 */
export async function openProfile(options = {}) {
  const profile = await mkdtemp(join(tmpdir(), "sandpit-profile-"));
  const remove = () => rm(profile, { recursive: true, force: true });
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, { ...options, executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    context,
    async close() {
      await context.close();
      await remove();
    },
  };
}
