// @ts-check
// Figure 5: recovery after a timeout, until the next run can start.
//
// A sample is what an agent meets when its code hangs: a busy loop with a
// short timeout, and a trivial run queued behind it at once. Each page traces
// on its own clock how it stops the loop and when the queued run could start:
//   - from the moment the timeout fires: Sandpit writing the interrupt into
//     the worker's interrupt buffer (cross-origin isolated page) or
//     terminating the worker (plain page); raw terminating its worker;
//   - until the queued run could start: Sandpit posting it to the worker
//     (it posts only to a worker that is ready and idle, so after any
//     replay); raw's new worker saying it is ready (the run waits inside it).
// The queued run's own time comes after that point, so none of it counts.
import { RUN_TIMEOUT_MS } from "../tests/e2e/harness/timeouts.mjs";
import { withDeadline } from "./deadline.mjs";
import { recoverySample } from "./page-scripts.mjs";
import { TRIVIAL_RUN, withSessions } from "./session.mjs";

/** Code that never ends by itself: only the timeout stops it. */
export const BUSY_LOOP = "while True:\n    pass";
/** The loop's timeout, as typed into the app's timeout field (seconds). */
export const TIMEOUT_SECONDS = 1;
/**
 * Run once before the samples, so a terminated Sandpit worker has state to
 * restore: its ledger then holds this run plus every earlier sample's
 * queued run, all replayed into the spare.
 */
const EARLIER_RUN = { name: "earlier run", code: "kept = 42" };

/**
 * `subjects`: `[{ mode, target, stop }]`, where `stop` is how the timeout
 * must stop the loop on that target ("interrupt" or "terminate"); a sample
 * stopped otherwise fails the bench. The targets' pages stay open side by
 * side and take turns, each settled (spare loaded) before the next sample.
 * Resolves to the samples by mode.
 */
export async function measureRecovery(browser, subjects, samples, log) {
  const recovery = Object.fromEntries(subjects.map((s) => [s.mode, []]));
  await withSessions(
    browser,
    subjects.map((s) => s.target),
    async (sessions) => {
      for (const session of sessions) await session.series([EARLIER_RUN]);
      for (let i = 1; i <= samples; i++) {
        for (const [index, session] of sessions.entries()) {
          const { mode, stop } = subjects[index];
          const sample = await measureOne(session, stop);
          recovery[mode].push(sample);
          log(`recovery ${i}/${samples} ${mode}: next run could start ${Math.round(sample.ms)} ms after the timeout`);
        }
      }
    },
  );
  return recovery;
}

async function measureOne(session, stop) {
  const traced = await withDeadline(
    session.page.evaluate(recoverySample, { loop: BUSY_LOOP, next: TRIVIAL_RUN, timeoutSeconds: TIMEOUT_SECONDS }),
    RUN_TIMEOUT_MS,
    `${session.name}: no recovery from a timeout within ${RUN_TIMEOUT_MS} ms`,
  );
  // A terminated worker's replacement starts a new spare: let it load before
  // anything else is measured, or it would compete for the cores.
  await session.settled();
  return readSample(session.name, traced, stop);
}

const isStop = (event) => event.what === "interrupt" || event.what === "terminate";

/**
 * One sample's times (ms after the timeout fired), read off its trace;
 * throws when the page did not recover the way its mode says.
 */
export function readSample(name, { stopped, next, events, readyForNextAt }, stop) {
  const stops = events.filter(isStop);
  const problem =
    (stopped.phase !== "timeout" && `the loop ended as ${stopped.phase}: ${stopped.error}`) ||
    (!next.ok && `the run queued behind it ended as ${next.phase}: ${next.error}`) ||
    (stops.length === 0 && "the trace shows nothing stopping the loop") ||
    (stops.some((e) => e.what !== stop) && `the loop was stopped by ${stops.map((e) => e.what).join(" then ")}, not ${stop}`) ||
    (!(readyForNextAt >= stops[0].at) && "the trace shows no start for the queued run after the timeout");
  if (problem) throw new Error(`${name}: ${problem}`);
  const firedAt = stops[0].at;
  const since = (event) => (event ? event.at - firedAt : null);
  const after = events.filter((e) => e.at >= firedAt);
  const posts = after.filter((e) => e.what === "run posted");
  const firstPost = posts[0]?.at ?? readyForNextAt;
  return {
    /** The figure: until the queued run could start. */
    ms: readyForNextAt - firedAt,
    /** Until the stopped run's result was on the page (or, raw, its promise settled). */
    stoppedShownMs: stopped.finishedAt - firedAt,
    /** Until the queued run's result was on the page (raw: answered). */
    nextResultMs: next.finishedAt - firedAt,
    /** Interrupt mode: until the stopped run's `done` came back from the worker. */
    stoppedDoneMs: since(after.find((e) => e.what === "done" && e.at <= firstPost)),
    /** Terminate mode: until the first job (a replay, or the queued run) went to the promoted spare. */
    firstPostMs: posts.length ? firstPost - firedAt : null,
    /** Earlier runs replayed into the spare before the queued run, and how long that took. */
    replays: Math.max(0, posts.length - 1),
    replayMs: posts.length > 1 ? posts.at(-1).at - posts[0].at : 0,
    /** When a new worker (Sandpit's next spare, raw's replacement) was created. */
    workerStartedMs: since(after.find((e) => e.what === "worker started")),
    restored: stopped.restored,
  };
}
