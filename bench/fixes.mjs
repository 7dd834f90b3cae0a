// @ts-check
// Figure 12: Sandpit's proposed fixes, on the agent path. Every failing
// program of bench/failing/ runs through runMany (a fresh namespace each);
// each result says whether it carries a verified fix, and how long its
// trials took (the runner's own count, `error.fix.trial_ms`).
import { withSessions } from "./session.mjs";

/** Each failing program's timeout: what a model's call would give it. */
const TIMEOUT_SECONDS = 30;

/**
 * In the agent path's page: runs `codes` through runMany; resolves to what
 * each result's error and fix say.
 *
 * @param {{ codes: string[], timeoutSeconds: number }} batch
 */
async function fixesInPage({ codes, timeoutSeconds }) {
  const results = await window.client.sandpit.runMany(codes, { timeoutSeconds });
  return results.map((/** @type {any} */ r) => ({
    status: r.status,
    error: r.error?.type ?? null,
    summary: r.error?.fix?.summary ?? null,
    verified: r.error?.fix?.verified ?? false,
    trialMs: r.error?.fix?.trial_ms ?? null,
  }));
}

/**
 * Runs the failing programs `passes` times, each pass on a fresh page;
 * resolves to each pass's per-program findings and the programs' names.
 *
 * @param {import("playwright-core").Browser} browser
 * @param {any} agent the agent path's target
 * @param {{ name: string, code: string }[]} programs
 * @param {number} passes
 * @param {(message: string) => void} log
 */
export async function measureFixes(browser, agent, programs, passes, log) {
  const batch = { codes: programs.map((p) => p.code), timeoutSeconds: TIMEOUT_SECONDS };
  const measured = [];
  for (let pass = 1; pass <= passes; pass++) {
    await withSessions(browser, [agent], async ([sandpit]) => {
      const found = await sandpit.page.evaluate(fixesInPage, batch);
      measured.push(found);
      const verified = found.filter((f) => f.verified).length;
      log(`fixes pass ${pass}/${passes}: ${verified} of ${found.length} failing programs came back with a verified fix`);
    });
  }
  return { passes: measured, names: programs.map((p) => p.name) };
}
