// @ts-check
// Figure 14: sessions beyond the cores, on the agent path (a page of its
// own origin driving the headless widget through sandpit-client.js), each
// pass on fresh pages:
//   - concurrency: six sessions made, then 300 calls fired at once, round
//     robin over two of them and over all six, in the same page, the order
//     alternating from pass to pass;
//   - a new session: the first call of a new session once a warm spare is
//     ready, against a call of a resident session just before it;
//   - a restore: a session with 200 runs parked (the widget's deployment
//     holds three workers, so the pool parks it, idle, to keep a warm
//     spare), then its next call, which brings it back.
import { RUN_TIMEOUT_MS } from "../tests/e2e/harness/timeouts.mjs";
import { pollUntil } from "../tests/e2e/harness/poll.mjs";
import { withSessions } from "./session.mjs";
import { backgroundDone } from "./targets.mjs";

/** The load: 300 calls, each `count += 1` and a small sum. */
export const POOL_CALLS = 300;
const CALL = "count += 1\nsum(range(1000))";
/** Sessions the calls are spread over: as many as the cores, and three times that. */
export const FEW_SESSIONS = 2;
export const MANY_SESSIONS = 6;
/** The deployment's pool for the restore: three workers, so a full pool parks an idle session for a spare. */
export const POOL_PARKING = { max_workers: 3 };
/** Runs the parked session had before it was parked. */
export const RESTORED_RUNS = 200;
/** New sessions made per pass, each once a spare is ready: within a pool of eight with one resident. */
const NEW_SESSIONS = 5;
/** The pause before each timed part, so what the last left to do does not land on it. */
const PAUSE_MS = 500;

const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));

/**
 * In the agent path's page: makes `names` sessions (a first call each, `count = 0`),
 * then, when `calls` is given, fires that many calls at once round robin
 * over the first `over` of them; resolves to the wall time, whether every
 * call came back right, and the most sessions seen running at once.
 *
 * @param {{ names: string[], calls: number, over: number, code: string, timeoutMs: number }} load
 */
async function fireInPage({ names, calls, over, code, timeoutMs }) {
  const sandpit = window.client.sandpit;
  for (const session of names) {
    const made = await sandpit.run("count = 0", { session, timeoutSeconds: timeoutMs / 1000 });
    if (made.status !== "ok") throw new Error(`${session}: ${made.status}`);
  }
  if (calls === 0) return null;
  const counts = Object.fromEntries(names.slice(0, over).map((name) => [name, 0]));
  const started = performance.now();
  const fired = Array.from({ length: calls }, (_, k) => sandpit.run(code, { session: names[k % over] }));
  const results = await Promise.all(fired);
  const ms = performance.now() - started;
  const wrong = results.filter((r) => r.status !== "ok" || r.restored).length;
  const states = await sandpit.sessions();
  for (const name of Object.keys(counts)) counts[name] = (await sandpit.run("count", { session: name })).value.json;
  return { ms, wrong, counts, parked: states.filter((/** @type {any} */ s) => !s.resident).map((/** @type {any} */ s) => s.name) };
}

/**
 * In the agent path's page: one call to resident session `resident`, then
 * the first call of new session `fresh`; resolves to both round trips.
 *
 * @param {{ resident: string, fresh: string }} pair
 */
async function pairInPage({ resident, fresh }) {
  const sandpit = window.client.sandpit;
  const time = async (/** @type {string} */ session) => {
    const started = performance.now();
    const result = await sandpit.run("1 + 1", { session });
    if (result.status !== "ok" || result.restored) throw new Error(`${session}: ${result.status}`);
    return performance.now() - started;
  };
  return { resident: await time(resident), fresh: await time(fresh) };
}

/**
 * In the agent path's page: `runs` runs in session "long", then a call in
 * each of two more sessions (the pool of three is full then).
 *
 * @param {{ runs: number }} setup
 */
async function longSessionInPage({ runs }) {
  const sandpit = window.client.sandpit;
  await sandpit.run("n = 0", { session: "long" });
  for (let k = 1; k < runs; k++) await sandpit.run(k % 2 ? "n += 1" : `x${k} = n * 2`, { session: "long" });
  for (const session of ["other", "third"]) await sandpit.run("1", { session });
}

/** In the agent path's page: session "long"'s next call; its round trip, what it saw and the restore note. */
async function comeBackInPage() {
  const started = performance.now();
  const result = await window.client.sandpit.run("n", { session: "long" });
  return { ms: performance.now() - started, status: result.status, value: result.value?.json, restored: result.restored };
}

/**
 * Measures figure 14 `passes` times: `agent` drives a widget with the
 * pool as shipped, `parking` one whose deployment holds three workers.
 */
export async function measurePool(browser, { agent, parking }, passes, log) {
  const measured = { few: [], many: [], resident: [], fresh: [], restore: [] };
  const names = Array.from({ length: MANY_SESSIONS }, (_, k) => `chat-${k}`);
  for (let pass = 1; pass <= passes; pass++) {
    await withSessions(browser, [agent], async ([page]) => {
      await page.page.evaluate(fireInPage, { names, calls: 0, over: 0, code: CALL, timeoutMs: RUN_TIMEOUT_MS });
      await backgroundDone(page.appFrame);
      const order = pass % 2 ? [FEW_SESSIONS, MANY_SESSIONS] : [MANY_SESSIONS, FEW_SESSIONS];
      for (const over of order) {
        await pause();
        const outcome = await page.page.evaluate(fireInPage, { names, calls: POOL_CALLS, over, code: CALL, timeoutMs: RUN_TIMEOUT_MS });
        if (outcome === null) throw new Error("no calls were fired");
        const counted = Object.values(outcome.counts).every((count) => count === POOL_CALLS / over);
        if (outcome.wrong > 0 || outcome.parked.length > 0 || !counted) throw new Error(`pool pass ${pass}: ${JSON.stringify(outcome)}`);
        (over === FEW_SESSIONS ? measured.few : measured.many).push(outcome);
        log(`pool pass ${pass}/${passes}: ${POOL_CALLS} calls over ${over} sessions in ${Math.round(outcome.ms)} ms`);
      }
    });
    await withSessions(browser, [agent], async ([page]) => {
      await page.page.evaluate(fireInPage, { names: ["chat-0"], calls: 0, over: 0, code: CALL, timeoutMs: RUN_TIMEOUT_MS });
      for (let k = 0; k < NEW_SESSIONS; k++) {
        await backgroundDone(page.appFrame);
        const pair = await page.page.evaluate(pairInPage, { resident: "chat-0", fresh: `new-${pass}-${k}` });
        measured.resident.push(pair.resident);
        measured.fresh.push(pair.fresh);
      }
      log(`pool pass ${pass}/${passes}: ${NEW_SESSIONS} new sessions, each with a spare ready`);
    });
    await withSessions(browser, [parking], async ([page]) => {
      await page.page.evaluate(longSessionInPage, { runs: RESTORED_RUNS });
      await waitParked(page.page);
      await backgroundDone(page.appFrame);
      await pause();
      const back = await page.page.evaluate(comeBackInPage);
      if (back.status !== "ok" || back.restored?.replayed !== RESTORED_RUNS) throw new Error(`restore pass ${pass}: ${JSON.stringify(back)}`);
      measured.restore.push(back);
      log(`pool pass ${pass}/${passes}: a parked session with ${RESTORED_RUNS} runs back in ${Math.round(back.ms)} ms (restore ${back.restored.ms} ms)`);
    });
  }
  return measured;
}

/** Waits until session "long" is parked (the pool parks it to keep a spare once it has been idle 10 s). */
async function waitParked(page) {
  await pollUntil(
    page,
    async () => (await window.client.sandpit.sessions()).find((/** @type {any} */ s) => s.name === "long")?.phase === "parked",
    null,
    { what: 'session "long" to be parked', timeout: RUN_TIMEOUT_MS, polling: 250 },
  );
}
