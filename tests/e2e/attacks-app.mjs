// @ts-check
// What the attack suites (attacks-*.test.mjs) share: one canary server, one
// app whose page runs every case, the errors the browser logs while it
// refuses an attack, and the checks of an attempt.
import assert from "node:assert/strict";
import { after, afterEach, before } from "node:test";

import { startCanary } from "./canary.mjs";
import { startApp } from "./harness.mjs";

/** Errors the browser logs while it refuses something; expected in these suites only. */
export const REFUSALS = [
  /Refused to connect/,
  /Refused to evaluate/,
  /Refused to load/,
  /Refused to create a worker/,
  /Failed to load resource/,
  /Blocked a frame with origin "null"/,
  /Blocked script execution in 'about:srcdoc'/,
  /Blocked form submission/,
  /Unsafe attempt to initiate navigation/,
  /violates the following Content Security Policy directive/,
  /does not have permission to navigate/,
  /Blocked opening .* in a new window/,
  /WebSocket connection to .* failed/,
  /EventSource/,
];

/**
 * The hooks of an attack suite: a canary on another loopback port that must
 * never hear from the sandbox, and one ready page; after every case the page
 * must still answer and have logged nothing outside the expected refusals.
 * `ready({ canary, sandpit })` hands both to the suite once the page is
 * ready. Returns `leak` and `attempt`, bound to them.
 */
export function useAttackedApp(ready) {
  const suite = { canary: null, app: null, sandpit: null };

  before(async () => {
    suite.canary = await startCanary();
    suite.app = await startApp();
    suite.sandpit = await (await suite.app.newPage()).open();
    await suite.sandpit.waitReady();
    // Long enough for every refused attempt to finish on a busy machine;
    // the endless ones end here.
    await suite.sandpit.setTimeoutSeconds(5);
    ready({ canary: suite.canary, sandpit: suite.sandpit });
  });

  afterEach(async () => {
    // The page still answers, and nothing it logged is outside the expected refusals.
    assert.equal(await suite.sandpit.page.evaluate(() => 1 + 1), 2);
    await suite.sandpit.assertHealthy({ allow: REFUSALS });
  });

  after(async () => {
    await suite.app?.close();
    const heard = suite.canary?.requests ?? [];
    await suite.canary?.close();
    assert.deepEqual(heard, [], "the canary heard from the sandbox");
  });

  return {
    /** The canary's URL for one case, so a hit names the case that leaked. */
    leak: (name) => `${suite.canary.origin}/${name}`,
    /** Runs `code` and returns the structured result. */
    attempt: async (code) => (await suite.sandpit.run(code)).json,
  };
}

/** The error type of a failed attempt, and that it failed. */
export function failedWith(result, type) {
  assert.equal(result.status, "error", JSON.stringify(result.error));
  assert.equal(result.error.type, type, result.error.message);
}
