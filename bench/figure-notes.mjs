// @ts-check
// The notes of figures that missed their target (see figures.mjs): what
// dominates the cost, computed from the measurements.
import { median } from "./figure-row.mjs";
import { formatBytes, formatMs, formatRatio } from "./format.mjs";
import { quantile } from "./stats.mjs";

/**
 * What bounds the batch: programs are handed out in input order, so its
 * longest program starts no sooner than those ahead of it are done, shared
 * over W workers, and the batch ends no sooner than it has. Raw's time over
 * the larger of that and raw's time shared W ways is the most runMany could gain.
 */
export function batchNote(batch) {
  const count = batch.names.length;
  const perProgram = batch.raw[0].pythonMs.map((_, i) => median(batch.raw.map((run) => run.pythonMs[i])));
  const longest = perProgram.indexOf(Math.max(...perProgram));
  const rawTotal = median(batch.raw.map((run) => run.ms));
  const agentTotal = median(batch.agent.map((run) => run.ms));
  const workers = batch.agent[0].workers ?? 2;
  const ahead = perProgram.slice(0, longest).reduce((a, b) => a + b, 0);
  const bound = rawTotal / Math.max(ahead / workers + perProgram[longest], rawTotal / workers);
  const inPython = median(batch.agent.map((run) => run.pythonMs.reduce((a, b) => a + b, 0)));
  const pair = median(batch.rawPair.map((run) => run.ms));
  // When the longest program started in runMany: its result's arrival less its time in Python.
  const longestMs = median(batch.agent.map((run) => run.pythonMs[longest]));
  const longestStart = median(batch.agent.map((run) => run.doneMs[longest] - run.pythonMs[longest]));
  return (
    `Raw runs the ${count} programs in ${formatMs(rawTotal)}; ${batch.names[longest]} alone takes ` +
    `${formatMs(perProgram[longest])} of it (${Math.round((100 * perProgram[longest]) / rawTotal)} %). Handed out in ` +
    `input order, it starts no sooner than the ${longest} programs ahead of it are done (${formatMs(ahead)} of raw's ` +
    `time, shared ${workers} ways), and a batch ends no sooner than it has, so ${workers} workers with a core each ` +
    `and no cost of their own can make it at most ${formatRatio(bound)} raw's throughput. ` +
    `runMany took ${formatMs(agentTotal)}, its programs ${formatMs(inPython)} in Python in all, ` +
    `over ${workers} workers sharing this machine's 2 cores with the page, the widget and the rest of the machine. ` +
    `There ${batch.names[longest]} started ${formatMs(longestStart)} into the batch, once the programs before it had ` +
    `been handed out, and took ${formatMs(longestMs)} beside the other worker's programs: the batch ended ` +
    `${formatMs(agentTotal - longestStart - longestMs)} after it (medians over the passes). ` +
    `As a control, raw ran all ${count} on two pages at once (each page its own worker, twice the work) in ` +
    `${formatMs(pair)}: ${formatRatio((2 * rawTotal) / pair)} its one worker's throughput, what this machine gave two ` +
    `workers at the time of the measurement.`
  );
}

/** Which programs failed, with why, on either target. */
export function batchFailures(batch) {
  const failed = (name, runs) =>
    runs.flatMap((run) =>
      run.statuses.flatMap((status, i) => (status === "ok" ? [] : [`${name}: ${batch.names[i]} (${status}: ${run.errors[i]})`])),
    );
  return [...new Set([...failed("Sandpit", batch.agent), ...failed("raw", batch.raw)])].join("; ");
}

/** How the chat-UI path's first calls compare with its later ones: the background starts compete with the first. */
export function chatUiNote(chatUi) {
  const part = (pick) => median(chatUi.sandpit.trivialMs.map(pick).filter((values) => values.length > 0).flat());
  const tenth = (calls) => Math.max(1, Math.floor(calls.length / 10));
  const early = part((calls) => calls.slice(0, tenth(calls)));
  const late = part((calls) => calls.slice(-tenth(calls)));
  const rawMedian = median(chatUi.raw.trivialMs.flat());
  return (
    `Calls start as the widget answers initialize, and after the first run Sandpit starts its snapshot maker and ` +
    `warm spare (each loading Pyodide) in the background: the first tenth of the trivial calls took ` +
    `${formatMs(early)} at the median, the last tenth ${formatMs(late)}, raw's ${formatMs(rawMedian)}.`
  );
}

export function coldStartNote(loads) {
  const part = (name, pick) => median(loads[name].map((l) => pick(l.cold)));
  const page = { s: part("sandpit", (c) => c.workerAt), r: part("raw", (c) => c.workerAt) };
  const worker = { s: part("sandpit", (c) => c.readyAt - c.workerAt), r: part("raw", (c) => c.readyAt - c.workerAt) };
  return (
    `Sandpit's page creates its worker ${formatMs(page.s)} after navigation starts (raw: ${formatMs(page.r)}), ` +
    `from an inline script in its HTML. From the worker's creation to ready takes ` +
    `${formatMs(worker.s)} (raw: ${formatMs(worker.r)}): Pyodide itself plus what Sandpit's worker ` +
    `adds around it (pyodide-loader/worker.mjs), beside the app's own wasm and JS starting on the page, ` +
    `which shares the machine's cores and passes the worker its messages.`
  );
}

export function warmStartNote(cold, warm, loads, server) {
  const validators = [server.etag && "ETag", server.lastModified && "Last-Modified"].filter(Boolean);
  const serviceWorker = loads.sandpit.some((l) => l.warm.serviceWorker);
  const bytes = (pick) => median(loads.sandpit.map((l) => pick(l).transferred.total));
  const [warmBytes, coldBytes] = [bytes((l) => l.warm), bytes((l) => l.cold)];
  const ratios =
    `Sandpit's warm start is ${formatRatio(warm.sandpit.value / cold.sandpit.value)} its own cold start ` +
    `(raw: ${formatRatio(warm.raw.value / cold.raw.value)}); the return visit transferred ` +
    `${formatBytes(warmBytes)} (first visit: ${formatBytes(coldBytes)}) and ` +
    `${serviceWorker ? "a" : "no"} service worker controlled it. `;
  if (warmBytes < 0.01 * coldBytes) {
    return ratios + warmStartSplit(loads, server);
  }
  const revalidated = /no-cache|no-store|max-age=0/.test(server.cacheControl ?? "");
  return (
    ratios +
    `The server sends Pyodide's files with Cache-Control "${server.cacheControl ?? "none"}" and ` +
    `${validators.length ? validators.join(" and ") : "no validator (ETag, Last-Modified)"}` +
    (revalidated && !validators.length ? ", so the browser must fetch them in full on every visit." : ".")
  );
}

/**
 * Where a return visit's time goes when next to nothing comes over the
 * network: the page before its worker exists, then the worker, which either
 * restored Python from the start-up snapshot or started it from scratch.
 */
function warmStartSplit(loads, server) {
  const warm = loads.sandpit.map((l) => l.warm);
  const restored = warm.filter((w) => w.snapshot === "used").length;
  const page = median(warm.map((w) => w.workerAt));
  const worker = median(warm.map((w) => w.readyAt - w.workerAt));
  const split = `Before its worker exists the page takes ${formatMs(page)}; from the worker's creation to ready takes ${formatMs(worker)}. `;
  if (restored === 0) {
    return (
      split +
      `No return visit restored Python from the start-up snapshot, so the time is starting Pyodide from local copies: ` +
      `compiling its ${formatBytes(server.wasmBytes)} of wasm and starting the interpreter.`
    );
  }
  return (
    `${restored} of ${warm.length} return visits restored Python from the start-up snapshot (stored by the first ` +
    `visit's snapshot maker, which the bench waits for before the return visit, as a user's next visit finds it). ` +
    split +
    `The worker's time is now compiling and instantiating Pyodide's ${formatBytes(server.wasmBytes)} of wasm ` +
    `(Pyodide's own JS loaded first), reading the snapshot from Cache Storage and checking its sha256, and ` +
    `restoring it; the interpreter is no longer initialised.`
  );
}

export function firstResultNote(loads) {
  const after = (name) => median(loads[name].map((l) => l.cold.firstResultAt - l.cold.readyAt));
  return (
    `The first result comes ${formatMs(after("sandpit"))} after ready in Sandpit (raw: ` +
    `${formatMs(after("raw"))}); the rest of the gap is the later ready of figure 1. ` +
    coldStartNote(loads)
  );
}

/**
 * Where a Sandpit run's time goes: the split of its round trip (medians,
 * worded for the way in, `words`) and what its page's main thread did per
 * run, against raw's main thread.
 */
function costSplit(sandpit, raw, words) {
  const part = (key) => median(sandpit.parts.map((p) => p[key]));
  const perRun = (m, key) => m.mainThread[key] / m.runs;
  return (
    `Split (medians): ${formatMs(part("submit"))} ${words.submit}; ` +
    `${formatMs(part("worker"))} ${words.worker} (the runner reports ` +
    `${formatMs(median(sandpit.pythonMs))} inside Python; the rest is the worker, messaging, and main-thread ` +
    `work that delays the result's delivery); ${formatMs(part("render"))} ${words.render}. ` +
    `${words.mainThread} was busy ${formatMs(perRun(sandpit, "task"))} per run (script ` +
    `${formatMs(perRun(sandpit, "script"))}, style ${formatMs(perRun(sandpit, "style"))}, layout ` +
    `${formatMs(perRun(sandpit, "layout"))}, other work such as paint and GC ` +
    `${formatMs(perRun(sandpit, "task") - perRun(sandpit, "script") - perRun(sandpit, "style") - perRun(sandpit, "layout"))}); ` +
    `raw's ${formatMs(perRun(raw, "task"))}.`
  );
}

export function roundTripNote(sessions, key, path) {
  const s = median(sessions[path.name][key].ms);
  const r = median(sessions.raw[key].ms);
  return (
    `Median ${formatMs(s)} against raw ${formatMs(r)}. ${costSplit(sessions[path.name][key], sessions.raw[key], path.words)}` +
    (key === "trivial" ? backToBackNote(sessions, path) : "")
  );
}

/** The same trivial runs back to back, beside the blocks that each follow an idle pause. */
function backToBackNote(sessions, path) {
  const s = median(sessions[path.name].trivialBackToBack.ms);
  const r = median(sessions.raw.trivialBackToBack.ms);
  return (
    ` Back to back, with no idle pause before each block of runs, the median is ${formatMs(s)} against raw ` +
    `${formatMs(r)} (${formatMs(s - r)} over).`
  );
}

export function throughputNote(sessions, path) {
  const perRun = (name) => 1000 / median(sessions[name].throughput.runsPerSecond);
  return (
    `A program takes ${formatMs(perRun(path.name))} in Sandpit against ${formatMs(perRun("raw"))} raw. ` +
    costSplit(sessions[path.name].throughput, sessions.raw.throughput, path.words)
  );
}

/** Where the time from the timeout firing to the queued run's start went, in medians over the samples. */
export function recoveryNote(recovery, mode) {
  const samples = recovery[mode];
  const part = (pick, from = samples) => median(from.map(pick).filter((v) => v !== null && Number.isFinite(v)));
  const replays = samples.map((s) => s.replays);
  const [fewest, most] = [Math.min(...replays), Math.max(...replays)];
  const how =
    mode === "interrupt"
      ? `the stopped run's result came back from the worker ${formatMs(part((s) => s.stoppedDoneMs))} after the ` +
        `interrupt was written (Python raising KeyboardInterrupt at its next check, the runner building the timeout ` +
        `result, the message back, and the page's main thread getting to it), and the queued run left for the worker ` +
        `${formatMs(part((s) => s.ms - s.stoppedDoneMs))} after that.`
      : `the first job went to the promoted spare ${formatMs(part((s) => s.firstPostMs))} after the old worker was ` +
        `terminated; replaying the session's ${fewest === most ? fewest : `${fewest} to ${most}`} earlier runs one by one ` +
        `took ${formatMs(part((s) => s.replayMs))} (${formatMs(part((s) => s.replayMs / s.replays))} a run), while a new ` +
        `spare, created ${formatMs(part((s) => s.workerStartedMs))} after the timeout, loaded Pyodide on the same cores.`;
  return (
    `Median ${formatMs(part((s) => s.ms))} from the timeout firing until the queued run could start: ${how} ` +
    `Its result was on the page ${formatMs(part((s) => s.nextResultMs))} after the timeout. Raw takes ` +
    `${formatMs(part((s) => s.ms, recovery.raw))}: terminating the worker and loading Pyodide again, losing the session's state.`
  );
}

/**
 * What the app's wasm is made of cannot be read from the bundle (its names
 * are stripped); measured on a build with a name section (twiggy, or the
 * code section's bodies grouped by name), as of December 2026.
 */
const WASM_MAKEUP =
  "Inside the app's wasm, by code size before wasm-opt (measured with twiggy in December 2026, with `{:?}` " +
  "compiled out): Leptos's view and reactive code, with its copies for the app's own types, about 31%; the app's " +
  "own components and logic about 30%; the standard library (formatting, collections, hash maps, allocation) " +
  "about 22%; constant data (strings, the tool descriptors, Leptos's type ids) about 7%; wasm-streams, which " +
  "Leptos requires through server_fn, is dropped with its exported classes at build (scripts/drop-classes.mjs). " +
  "What is left to cut is mostly Leptos and the app itself.";

/**
 * What a missed paint target's time was made of: the page's work (its p50
 * and p95) and the whole time until the frame was painted.
 */
export function paintNote(times, what, from) {
  const q = (values, at) => formatMs(quantile(values, at));
  return (
    `Over ${times.work.length} ${what}: the page's main thread worked ${q(times.work, 0.5)} at the median ` +
    `(p95 ${q(times.work, 0.95)}) from the ${from} to the frame that shows it painted; with the wait for the ` +
    `display's next frame, ${q(times.latency, 0.5)} (p95 ${q(times.latency, 0.95)}).`
  );
}

export function sizeNote(size) {
  const largest = size.files
    .filter((f) => f.code)
    .slice(0, 3)
    .map((f) => `${f.path} ${formatBytes(f.gzip)}`)
    .join(", ");
  return `Largest files (gzip): ${largest}. ${WASM_MAKEUP}`;
}

export function memoryNote(memory) {
  const parts = { pageJs: "page JS heap", appWasm: "app wasm", workersJs: "workers' JS heaps", pythonWasm: "Python's wasm memory" };
  const deltas = Object.entries(parts)
    .map(([key, label]) => ({ label, delta: memory.sandpit.last[key] - memory.sandpit.first[key] }))
    .sort((a, b) => b.delta - a.delta);
  const rawGrowth = memory.raw.last.total - memory.raw.first.total;
  return (
    `Sandpit grew by ${formatBytes(memory.sandpit.last.total - memory.sandpit.first.total)}, most in ` +
    deltas.map((d) => `${d.label} ${formatBytes(d.delta)}`).join(", ") +
    `; raw grew by ${formatBytes(rawGrowth)} over the same runs. Not counted above: Blink's DOM heap on ` +
    `Sandpit's page went from ${formatBytes(memory.sandpit.first.pageDom)} to ${formatBytes(memory.sandpit.last.pageDom)}. ` +
    APP_WASM_GROWTH
  );
}

/**
 * What the app's wasm memory holds, which the numbers alone do not say: the
 * page keeps its newest 100 runs (`KEPT_RUNS` in src/app/mod.rs), but their
 * bulky parts are JS values (src/js/bulk.rs), so the long session's runs
 * printing 100 KB land on the JS heap, which is measured after a forced GC
 * and gives them back once they leave the list; wasm memory never shrinks.
 */
const APP_WASM_GROWTH =
  "The app's wasm memory holds the page's bookkeeping for its newest 100 runs (their code, status and the views " +
  "drawing them); their output, values, figures and file bytes are JS strings on the JS heap, freed once a run " +
  "leaves the list. Wasm memory keeps the size it once grew to, so its growth is the most that bookkeeping " +
  "ever needed at once, not a leak (the list is capped and Python's memory stays flat).";
