// @ts-check
// What the page does not report itself, read through the Chrome DevTools
// Protocol: JS heap sizes (figure 8) and main-thread busy time (the notes
// on what a run costs).
//
// Playwright gives a CDP session for a page but not for a dedicated worker,
// so workers are reached from a browser session with the (older, unflattened)
// Target.sendMessageToTarget relay.
import { withDeadline } from "./deadline.mjs";

/** How long one DevTools command may take before the harness gives up. */
const COMMAND_TIMEOUT_MS = 30_000;

const withTimeout = (promise, what) => withDeadline(promise, COMMAND_TIMEOUT_MS, `DevTools did not answer ${what}`);

/** Collects garbage, then reads the V8 heap: `{ js, dom }` bytes in use. */
async function collectAndMeasure(send) {
  await send("HeapProfiler.collectGarbage");
  const usage = await send("Runtime.getHeapUsage");
  return { js: usage.usedSize, dom: usage.embedderHeapUsedSize ?? 0 };
}

/** The heap of `page`'s main thread. */
export async function pageHeap(page) {
  const session = await page.context().newCDPSession(page);
  try {
    return await collectAndMeasure((method) => withTimeout(session.send(method), method));
  } finally {
    await session.detach();
  }
}

/** The heap of every dedicated worker whose script URL is one of `page`'s workers'. */
export async function workerHeaps(browser, page) {
  const urls = new Set(page.workers().map((worker) => worker.url()));
  const session = await browser.newBrowserCDPSession();
  try {
    const { targetInfos } = await session.send("Target.getTargets");
    const heaps = [];
    for (const target of targetInfos.filter((t) => t.type === "worker" && urls.has(t.url))) {
      try {
        heaps.push(await measureTarget(session, target.targetId));
      } catch (error) {
        // A worker that ended meanwhile (a background worker giving way to a run) has no heap left.
        const { targetInfos: now } = await session.send("Target.getTargets");
        if (now.some((t) => t.targetId === target.targetId)) throw error;
      }
    }
    return heaps;
  } finally {
    await session.detach();
  }
}

async function measureTarget(session, targetId) {
  const { sessionId } = await session.send("Target.attachToTarget", { targetId, flatten: false });
  const waiting = new Map();
  const onMessage = (event) => {
    if (event.sessionId !== sessionId) return;
    const message = JSON.parse(event.message);
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  };
  session.on("Target.receivedMessageFromTarget", onMessage);
  let nextId = 0;
  const send = async (method) => {
    const id = ++nextId;
    const answer = new Promise((resolve, reject) => {
      waiting.set(id, (message) =>
        message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result),
      );
    });
    await session.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method }) });
    return withTimeout(answer, method);
  };
  try {
    return await collectAndMeasure(send);
  } finally {
    session.off("Target.receivedMessageFromTarget", onMessage);
    // Detaching from a worker that has ended fails: there is nothing left to detach from.
    await session.send("Target.detachFromTarget", { sessionId }).catch(() => {});
  }
}

/**
 * A clock of `page`'s main-thread time by kind (ms, cumulative): busy time
 * in tasks, and of it script, style and layout. `read()` samples it.
 */
export async function mainThreadClock(page) {
  const session = await page.context().newCDPSession(page);
  await withTimeout(session.send("Performance.enable"), "Performance.enable");
  return {
    async read() {
      const { metrics } = await withTimeout(session.send("Performance.getMetrics"), "Performance.getMetrics");
      const ms = (name) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
      return {
        task: ms("TaskDuration"),
        script: ms("ScriptDuration"),
        style: ms("RecalcStyleDuration"),
        layout: ms("LayoutDuration"),
      };
    },
  };
}

/** The user-timing mark that ties the page's clock to the trace's. */
const CLOCK_MARK = "sandpit-bench-clock";

/**
 * Traces `page`'s main thread while `body()` runs, and resolves to
 * `{ result, busy }`: what `body` resolved to, and `busy(from, to)`, the
 * milliseconds of CPU time the page's main thread spent in tasks (script,
 * style, layout, paint, everything the renderer runs as a task) between two
 * times on the page's clock (`performance.now()`). Idle time, such as
 * waiting for the display's next frame, is not in it, nor time the thread
 * waited for a core while other processes had the machine's (the trace's
 * thread time, `tdur`); a task partly in the interval counts in proportion.
 *
 * @template T
 * @param {import("playwright-core").Page} page
 * @param {() => Promise<T>} body
 * @returns {Promise<{ result: T, busy: (from: number, to: number) => number }>}
 */
export async function traceMainThread(page, body) {
  const session = await page.context().newCDPSession(page);
  /** @type {any[]} */
  const events = [];
  session.on("Tracing.dataCollected", ({ value }) => events.push(...value));
  const complete = new Promise((resolve) => session.once("Tracing.tracingComplete", resolve));
  await withTimeout(
    session.send("Tracing.start", { categories: "toplevel,blink.user_timing", transferMode: "ReportEvents" }),
    "Tracing.start",
  );
  let result;
  let markedAt;
  try {
    markedAt = await page.evaluate((name) => performance.mark(name).startTime, CLOCK_MARK);
    result = await body();
  } finally {
    await withTimeout(session.send("Tracing.end"), "Tracing.end");
    await withTimeout(complete, "the end of tracing");
    await session.detach();
  }
  // The mark was made on the page's main thread: its thread, and its clock.
  const mark = events.find((event) => event.name === CLOCK_MARK);
  if (!mark) throw new Error("the trace holds no clock mark from the page");
  const offset = mark.ts / 1000 - markedAt;
  // The thread's outermost tasks (toplevel events nest), as [start, end] on the page's clock and CPU ms.
  const events_ = events
    .filter((e) => e.pid === mark.pid && e.tid === mark.tid && e.ph === "X" && e.cat === "toplevel")
    .sort((a, b) => a.ts - b.ts);
  /** @type {[number, number, number][]} */
  const tasks = [];
  let until = -Infinity;
  for (const e of events_) {
    if (e.ts < until) continue;
    until = e.ts + e.dur;
    tasks.push([e.ts / 1000 - offset, until / 1000 - offset, (e.tdur ?? e.dur) / 1000]);
  }
  const busy = (from, to) =>
    tasks.reduce((sum, [start, end, cpu]) => {
      const overlap = Math.max(0, Math.min(end, to) - Math.max(start, from));
      return sum + (end > start ? (cpu * overlap) / (end - start) : 0);
    }, 0);
  return { result, busy };
}
