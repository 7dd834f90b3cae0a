// @ts-check
// Host calls on the agent path: Python calling a function of the embedding
// page (`sandpit.host`) and back. The agent path's page (client/main.mjs)
// offers `echo`, which answers its argument at once, so a call's time is
// the round trip itself, Python -> worker -> widget -> page's handler and
// back, timed by Python's own clock around each `await`.
import { row } from "./figure-row.mjs";
import { summarise } from "./stats.mjs";

/** Calls timed one by one, printed back as JSON: each call's ms. */
const EACH = (count) =>
  `import time\nfrom sandpit import host\neach = []\nfor i in range(${count}):\n    t = time.perf_counter()\n    await host.echo(n=i)\n    each.append((time.perf_counter() - t) * 1000)\neach`;

/** 1,000 calls in a loop (a run's limit), timed whole, in ms. */
const LOOP =
  "import time\nfrom sandpit import host\nt = time.perf_counter()\nfor i in range(1000):\n    await host.echo(n=i)\n(time.perf_counter() - t) * 1000";

/**
 * On the agent path's session (its page's `window.client.sandpit`): `count`
 * calls timed one by one (in runs of at most 500), then `passes` loops of
 * 1,000 calls. `{ eachMs, loopMs }`.
 *
 * @param {{ page: import("playwright-core").Page }} session
 * @param {number} count
 * @param {number} passes
 */
export async function measureHostCalls(session, count, passes) {
  const run = (/** @type {string} */ code) =>
    session.page.evaluate(async (code) => {
      const result = await window.client.sandpit.run(code, { timeoutSeconds: 120 });
      if (result.status !== "ok") throw new Error(`host calls: ${result.error?.type}: ${result.error?.message}`);
      return result.value.json;
    }, code);
  // A first call loads the widget's schema validator; it is not what a call costs.
  await run(EACH(5));
  const eachMs = [];
  for (let done = 0; done < count; done += 500) eachMs.push(...(await run(EACH(Math.min(500, count - done)))));
  const loopMs = [];
  for (let pass = 0; pass < passes; pass++) loopMs.push(await run(LOOP));
  return { eachMs, loopMs };
}

/** What a missed round-trip target is made of: the tail, and a call's share of the loop's time. */
function hostCallNote(eachMs, loopMs) {
  const p95 = summarise(eachMs, 0.95).value;
  const perCall = summarise(loopMs).value / 1000;
  return (
    `The round trip's p95 was ${p95.toFixed(2)} ms; in a loop of 1,000 calls in one run a call took ${perCall.toFixed(2)} ms (median pass). ` +
    "The handler answers at once, so this is the path: the worker, the widget's checks and both postMessage hops."
  );
}

/** Figure 13: a host call's round trip on the agent path, and 1,000 in a loop. No raw column: raw Pyodide has no host. */
export function hostCallRows({ eachMs, loopMs }) {
  const title = "A host call's round trip (Python → the embedding page's handler → Python), agent path";
  return [
    row({
      id: "host_call_round_trip_p50_agent",
      figure: "13",
      title: `${title}, p50`,
      unit: "ms",
      sandpit: summarise(eachMs, 0.5),
      raw: null,
      target: { text: "≤ 1 ms", met: (s) => s.value <= 1 },
      note: () => hostCallNote(eachMs, loopMs),
    }),
    row({
      id: "host_call_round_trip_p95_agent",
      figure: "13",
      title: `${title}, p95`,
      unit: "ms",
      sandpit: summarise(eachMs, 0.95),
      raw: null,
      target: { text: "—", met: () => null },
    }),
    row({
      id: "host_calls_loop_1000_agent",
      figure: "13",
      title: "1,000 host calls in a loop in one run, agent path, from the first call to the last answer",
      unit: "ms",
      sandpit: summarise(loopMs),
      raw: null,
      target: { text: "—", met: () => null },
    }),
  ];
}
