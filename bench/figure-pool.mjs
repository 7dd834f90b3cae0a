// @ts-check
// Figure 14's rows: sessions beyond the cores (bench/pool.mjs). Sandpit's
// alone, so the raw column is empty; where a row is judged against another
// Sandpit figure, its ratio column is to that figure, as its title says.
import { median, row, targets } from "./figure-row.mjs";
import { formatMs } from "./format.mjs";
import { FEW_SESSIONS, MANY_SESSIONS, POOL_CALLS, RESTORED_RUNS } from "./pool.mjs";
import { summarise } from "./stats.mjs";

/** 300 calls over 6 sessions may take this many times as long as over 2. */
const MANY_OVER_FEW = 1.5;
/** A parked session with 200 runs must be back within this. */
const RESTORE_MS = 500;
/** A new session's first call, with a spare ready, may take this much longer than a resident session's. */
const NEW_SESSION_OVER_MS = 50;

export function poolRows(pool) {
  const few = summarise(pool.few.map((o) => o.ms));
  const many = summarise(pool.many.map((o) => o.ms));
  const resident = summarise(pool.resident);
  const fresh = summarise(pool.fresh);
  const back = summarise(pool.restore.map((r) => r.ms));
  const restore = summarise(pool.restore.map((r) => r.restored.ms));
  const ratio = many.value / few.value;
  return [
    row({
      id: "pool_calls_few_sessions",
      figure: "14",
      title: `${POOL_CALLS} calls fired at once (\`count += 1\` and a small sum), round robin over ${FEW_SESSIONS} sessions, agent path`,
      unit: "ms",
      sandpit: few,
      raw: null,
      target: targets.none,
    }),
    row({
      id: "pool_calls_many_sessions",
      figure: "14",
      title:
        `The same ${POOL_CALLS} calls over ${MANY_SESSIONS} sessions, in the same pages; ratio to the ${FEW_SESSIONS} sessions' ` +
        "time (none parked: the pool keeps every session's worker while memory allows, and runs two at once)",
      unit: "ms",
      sandpit: many,
      raw: null,
      ratio,
      target: { text: `≤ ${MANY_OVER_FEW.toFixed(2)}× the ${FEW_SESSIONS} sessions' time`, met: () => ratio <= MANY_OVER_FEW },
      note: () => `per pass, ${MANY_SESSIONS} sessions over ${FEW_SESSIONS}: ${pool.many.map((o, k) => (o.ms / pool.few[k].ms).toFixed(2)).join(", ")}.`,
    }),
    row({
      id: "pool_restore_parked",
      figure: "14",
      title:
        `A parked session with ${RESTORED_RUNS} runs back: its next call's round trip, a warm spare replaying its runs ` +
        "(a deployment of three workers, which parks it, idle, to keep the spare)",
      unit: "ms",
      sandpit: back,
      raw: null,
      target: { text: `< ${RESTORE_MS} ms`, met: (s) => s.value < RESTORE_MS },
      note: () => `the restore itself (\`restored.ms\`) took ${formatMs(restore.value)} at the median: the replay of ${RESTORED_RUNS} runs.`,
    }),
    row({
      id: "pool_restore_note_ms",
      figure: "14",
      title: "The same restore as its result's `restored.ms` says: from the session getting the spare to its last replay",
      unit: "ms",
      sandpit: restore,
      raw: null,
      target: targets.none,
    }),
    row({
      id: "pool_new_session_first_call",
      figure: "14",
      title:
        "The first call (`1 + 1`) of a new session with a warm spare ready; ratio to a resident session's call just before it " +
        `(${formatMs(resident.value)} at the median)`,
      unit: "ms",
      sandpit: fresh,
      raw: null,
      ratio: fresh.value / resident.value,
      target: {
        text: `< ${NEW_SESSION_OVER_MS} ms over a resident session's call`,
        met: (s) => s.value - resident.value < NEW_SESSION_OVER_MS,
      },
      note: () => `resident calls took ${formatMs(median(pool.resident))} at the median.`,
    }),
  ];
}
