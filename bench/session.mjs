// @ts-check
// Figures 4, 6 and 8: sessions as an agent uses them, on every target (the
// agent path, bench/client/, included). Sandpit's cost per run depends on how
// many runs its page (or widget) already shows, so each measurement says
// where it starts from:
//   - throughput: every pass over the program set on a fresh page;
//   - round trips and memory: one long session per target from a fresh page:
//     run 1, a memory snapshot, the timed round trips (trivial, then 100 KB
//     of output, then trivial back to back), programs up to the memory run
//     count, a second snapshot.
// The targets' pages stay open side by side and the work alternates between
// them in small blocks, so a busy moment on the machine hits both alike.
// Before each timed block the machine is left idle for a moment
// (BLOCK_PAUSE_MS): a page's leftover work after its block (painting,
// garbage collection) would otherwise land on the first runs of the target
// that follows it, always the same one.
import { RUN_TIMEOUT_MS } from "../tests/e2e/harness/timeouts.mjs";
import { newContext } from "./browser.mjs";
import { mainThreadClock, pageHeap, traceMainThread, workerHeaps } from "./cdp.mjs";
import { measureHostCalls } from "./host-calls.mjs";
import { runSeries, startFrameLog, stopFrameLog } from "./page-scripts.mjs";

/** A run that does nothing worth mentioning but still returns a value. */
export const TRIVIAL_RUN = "1 + 1";
/** 1,000 lines of 100 bytes (99 + newline): a run printing 100 KB. */
export const PRINT_100KB_RUN = 'for i in range(1000):\n    print("x" * 99)';
const PRINT_100KB_CHARS = 100_000;
/** Runs per target before round trips are timed, so first-call costs are not in the tail. */
const WARMUP_RUNS = 3;
/** Round trips alternate between the targets in blocks of this many runs... */
const BLOCK = 10;
/** ...and untimed programs in blocks of this many. */
const PROGRAMS_BLOCK = 100;
/**
 * The pause before each timed block. Without it the agent path's blocks,
 * which come right after the UI page's, started slow: 21 ms at a block's
 * first 100 KB round trip, 10 ms at its last, while raw's (after the agent
 * path's) were flat. An agent pauses between calls too.
 */
const BLOCK_PAUSE_MS = 250;

/** Leaves the machine idle for BLOCK_PAUSE_MS. */
const pause = () => new Promise((resolve) => setTimeout(resolve, BLOCK_PAUSE_MS));
/**
 * The Python interpreter's linear memory. Reached through Pyodide's private
 * `_module` since no public API reports it; a run is the only way in, so
 * this probe is one extra run per snapshot on both targets.
 */
const PYTHON_MEMORY_PROBE = "import gc, pyodide_js\ngc.collect()\npyodide_js._module.HEAP8.length";

export async function measureSessions(browser, targets, programs, settings, log) {
  const throughput = Object.fromEntries(targets.map((t) => [t.name, { runsPerSecond: [], ...measurements() }]));
  for (let pass = 1; pass <= settings.passes; pass++) {
    await withSessions(browser, targets, async (sessions) => {
      for (const s of sessions) {
        await pause();
        const outcome = await s.series(programs);
        throughput[s.name].runsPerSecond.push(programs.length / (outcome.ms / 1000));
        record(throughput[s.name], outcome);
        log(`throughput pass ${pass}/${settings.passes} ${s.name}: ${programs.length} programs in ${Math.round(outcome.ms)} ms`);
      }
    });
  }
  const long = await withSessions(browser, targets, (sessions) => longSession(browser, sessions, programs, settings, log));
  return Object.fromEntries(targets.map((t) => [t.name, { ...long[t.name], throughput: throughput[t.name] }]));
}

async function longSession(browser, sessions, programs, settings, log) {
  for (const s of sessions) await s.series([programs[0]]);
  const memoryFirst = await snapshots(browser, sessions);
  log("memory after 1 run measured");

  const trivial = await roundTrips(sessions, { name: "trivial", code: TRIVIAL_RUN }, settings.roundTrips);
  log(`round trips: ${settings.roundTrips} trivial`);
  const print100kb = await roundTrips(
    sessions,
    { name: "print 100 KB", code: PRINT_100KB_RUN, check: printedAll },
    settings.roundTrips,
  );
  log(`round trips: ${settings.roundTrips} printing 100 KB`);
  const trivialBackToBack = await backToBack(sessions, { name: "trivial", code: TRIVIAL_RUN }, settings.roundTrips);
  log(`round trips: ${settings.roundTrips} trivial, back to back`);
  const agent = sessions.find((s) => s.name === "sandpit-client");
  const hostCalls = agent ? await measureHostCalls(agent, settings.roundTrips, settings.passes) : null;
  if (agent) log(`host calls: ${settings.roundTrips} one by one, ${settings.passes} loops of 1,000`);

  // Every session has made the same runs so far; top up with programs to the memory run count.
  const missing = Math.max(0, settings.memoryRuns - sessions[0].runs);
  const topUp = Array.from({ length: missing }, (_, i) => programs[i % programs.length]);
  for (let done = 0; done < topUp.length; done += PROGRAMS_BLOCK) {
    for (const s of sessions) await s.series(topUp.slice(done, done + PROGRAMS_BLOCK));
  }
  const memoryLast = await snapshots(browser, sessions);
  log(`memory after ${sessions[0].runs} runs measured`);

  // What a person feels with a long history: a new run's result painting,
  // each run submitted once the one before has painted, as a person presses
  // Run; and, apart, the same with each run submitted as soon as the one
  // before is in the DOM, as a script driving the page would.
  const ui = sessions.find((s) => s.name === "sandpit");
  const trivialRuns = Array(settings.roundTrips).fill({ name: "trivial", code: TRIVIAL_RUN });
  const paintAfterMany = ui ? await paintsOf(ui, trivialRuns, { afterPaint: true }) : null;
  const paintBackToBack = ui ? await paintsOf(ui, trivialRuns, { afterPaint: false }) : null;
  log(`paint after ${sessions[0].runs} runs measured`);
  const scrollFrames = ui ? await scrollThrough(ui.page) : [];
  log(`scrolling through the runs measured: ${scrollFrames.length} frames`);

  return Object.fromEntries(
    sessions.map((s) => [
      s.name,
      {
        trivial: trivial[s.name],
        print100kb: print100kb[s.name],
        trivialBackToBack: trivialBackToBack[s.name],
        hostCalls: s === agent ? hostCalls : null,
        paintAfterMany: s === ui ? paintAfterMany : null,
        paintBackToBack: s === ui ? paintBackToBack : null,
        scrollFrames: s === ui ? scrollFrames : [],
        memory: { first: memoryFirst[s.name], last: memoryLast[s.name], runs: s.runs },
      },
    ]),
  );
}

/**
 * Runs `items` on the UI page `ui` in blocks, each after a pause, while its
 * main thread is traced; resolves to each run's paint times (`paintTimes`):
 * the page's work from the answer arriving to the painted frame, and the
 * whole time, which also holds the wait for the display's next frame.
 */
async function paintsOf(ui, items, { afterPaint }) {
  await ui.page.evaluate(() => window.__bench.paints.splice(0));
  const { busy } = await traceMainThread(ui.page, async () => {
    for (let done = 0; done < items.length; done += BLOCK) {
      await pause();
      await ui.series(items.slice(done, done + BLOCK), { afterPaint });
    }
  });
  return paintTimes(await ui.page.evaluate(() => window.__bench.paints), busy);
}

/** Wheel steps of a scroll through the page's runs (figure 4's scroll row), each this many pixels, this often. */
const SCROLL_STEPS = 60;
const SCROLL_STEP_PX = 400;
const SCROLL_STEP_MS = 40;

/**
 * Scrolls `page` down through its runs with the mouse wheel, as a person
 * reads back, while its main thread is traced; resolves to each animation
 * frame's main-thread work (from one frame's start to the next's: a frame
 * that took longer than the display's interval shows as more work).
 */
async function scrollThrough(page) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.mouse.move(640, 360);
  const { busy, result: frames } = await traceMainThread(page, async () => {
    await page.evaluate(startFrameLog);
    for (let i = 0; i < SCROLL_STEPS; i++) {
      await page.mouse.wheel(0, SCROLL_STEP_PX);
      await page.waitForTimeout(SCROLL_STEP_MS);
    }
    return page.evaluate(stopFrameLog);
  });
  return frames.slice(1).map((end, i) => busy(frames[i], end));
}

/** Opens a fresh session per target, runs `body` with them, closes them whatever happens. */
export async function withSessions(browser, targets, body) {
  const sessions = [];
  try {
    for (const target of targets) sessions.push(await openSession(browser, target));
    return await body(sessions);
  } finally {
    // Closing a context also ends its DevTools sessions.
    for (const session of sessions) await session.context.close();
  }
}

const sum = (values) => values.reduce((a, b) => a + b, 0);

/**
 * `{ work, latency }` per paint (`{ answeredAt, paintedAt }` on the page's
 * clock, or a key's `{ keyAt, paintedAt }`): the page's main-thread time in
 * between, from the trace's `busy`, and the whole time, which also holds
 * the wait for the display's next frame.
 */
export function paintTimes(paints, busy) {
  const start = (p) => p.answeredAt ?? p.keyAt;
  return {
    work: paints.map((p) => busy(start(p), p.paintedAt)),
    latency: paints.map((p) => p.paintedAt - start(p)),
  };
}

/**
 * What a kind of run cost, run by run: round trips, time inside Python,
 * where the time went, and the page's main-thread time over all of them.
 */
const measurements = () => ({ ms: [], pythonMs: [], parts: [], runs: 0, mainThread: { task: 0, script: 0, style: 0, layout: 0 } });

function record(into, { results, mainThread }) {
  into.ms.push(...results.map((r) => r.ms));
  into.pythonMs.push(...results.map((r) => r.pythonMs).filter((v) => v !== null));
  into.parts.push(...results.map((r) => r.parts).filter(Boolean));
  into.runs += results.length;
  for (const key of Object.keys(into.mainThread)) into.mainThread[key] += mainThread[key];
}

function printedAll(result) {
  return result.outputChars >= PRINT_100KB_CHARS - 1000 ? null : `printed only ${result.outputChars} characters`;
}

/** A fresh context with `target` open, settled and driven through `window.__bench`. */
async function openSession(browser, target) {
  const context = await newContext(browser);
  let page;
  let clock;
  try {
    page = await context.newPage();
    await target.prepare(context);
    await page.goto(target.url());
    await target.settled(page);
    await page.evaluate(target.installDriver, target.driverArgument ?? null);
    clock = await mainThreadClock(page);
  } catch (error) {
    await context.close();
    throw error;
  }
  const session = {
    name: target.name,
    context,
    page,
    /** The frame Sandpit's app runs in: the page, but for the agent path's widget. */
    appFrame: target.appFrame?.(page) ?? page,
    /** Runs that count towards the memory figure (probes do not). */
    runs: 0,
    /** Resolves when the page is idle again: ready, with every worker it started loaded. */
    settled: () => target.settled(page),
    /**
     * Runs `items` ({ name, code, check? }) in order; fails on the first that
     * went wrong. Also reports the main-thread time the series took.
     */
    async series(items, { counted = true, afterPaint = false } = {}) {
      const before = await clock.read();
      const outcome = await page.evaluate(runSeries, { codes: items.map((i) => i.code), timeoutMs: RUN_TIMEOUT_MS, afterPaint });
      const after = await clock.read();
      outcome.mainThread = Object.fromEntries(Object.keys(after).map((key) => [key, after[key] - before[key]]));
      outcome.results.forEach((result, i) => {
        const problem = result.ok ? items[i].check?.(result) : `ended as ${result.phase}: ${result.error}`;
        if (problem) throw new Error(`${target.name}: run "${items[i].name}" ${problem}`);
      });
      if (counted) session.runs += items.length;
      return outcome;
    },
  };
  return session;
}

/**
 * Per target, `count` runs of `item` in one series, each submitted as soon as
 * the one before has answered: what a run costs when runs follow each other
 * closely, without the idle pause before every block of `roundTrips` (after
 * one, this machine ran everything about three times slower for a few runs).
 */
async function backToBack(sessions, item, count) {
  const times = Object.fromEntries(sessions.map((s) => [s.name, measurements()]));
  for (const s of sessions) {
    await pause();
    record(times[s.name], await s.series(Array(count).fill(item)));
  }
  return times;
}

/** Per target, the page clock times of `count` runs of `item`, after a short warm-up. */
async function roundTrips(sessions, item, count) {
  const times = Object.fromEntries(sessions.map((s) => [s.name, measurements()]));
  for (const s of sessions) await s.series(Array(WARMUP_RUNS).fill(item));
  for (let done = 0; done < count; done += BLOCK) {
    const block = Array(Math.min(BLOCK, count - done)).fill(item);
    for (const s of sessions) {
      await pause();
      record(times[s.name], await s.series(block));
    }
  }
  return times;
}

/** Long enough for Sandpit's background work (the warm spare) to have started: it waits for half a second of idle. */
const BACKGROUND_START_MS = 750;

/**
 * Every target's memory, each at rest: Sandpit starts its background
 * workers (the snapshot maker, then the warm spare) once it has been idle a
 * while, so each snapshot waits until an idle spell starts no more of them
 * and those started have loaded: the first and the last count the same workers.
 */
async function snapshots(browser, sessions) {
  const result = {};
  for (const s of sessions) {
    const started = () => s.appFrame.evaluate(() => window.__benchSandpit?.started ?? 0);
    for (let before = -1; before !== (await started()); ) {
      before = await started();
      await new Promise((resolve) => setTimeout(resolve, BACKGROUND_START_MS));
      await s.settled();
    }
    result[s.name] = await memorySnapshot(browser, s);
  }
  return result;
}

/**
 * JS heaps (page and workers) after a full GC, plus the app's and Python's
 * wasm memory. The agent path's widget is a same-site frame, so it shares the
 * page's renderer and V8 heap, and its workers are among the page's.
 */
async function memorySnapshot(browser, session) {
  const probe = { name: "memory probe", code: PYTHON_MEMORY_PROBE, check: (r) => (Number(r.value) > 0 ? null : `returned ${r.value}`) };
  const { results } = await session.series([probe], { counted: false });
  const pythonWasm = Number(results[0].value);
  // Kept by `watchSandpit` when the app started; the raw page has no app.
  const appWasm = await session.appFrame.evaluate(() => window.__benchAppMemory?.buffer.byteLength ?? 0);
  const page = await pageHeap(session.page);
  const workers = await workerHeaps(browser, session.page);
  const workersJs = sum(workers.map((w) => w.js));
  return {
    total: page.js + appWasm + workersJs + pythonWasm,
    pageJs: page.js,
    appWasm,
    workersJs,
    pythonWasm,
    workers: workers.length,
    // Blink's DOM heap, not part of the figure but where a growing page shows.
    pageDom: page.dom,
  };
}
