// @ts-check
// The issue's figures as rows: each a statistic with min and max for Sandpit
// and for the raw baseline, their ratio, the target and whether it was met.
// A missed target gets a note, computed from the measurements, on what
// dominates the cost. Session figures (4, 6, 8) have a row per way into
// Sandpit: its UI, and the agent path through sandpit-client.js; the report's
// Sandpit column holds whichever the row's title names.
import { formatBytes, formatMs, formatRatio } from "./format.mjs";
import { exactly, quantile, summarise } from "./stats.mjs";
import { FILE_LINES } from "./typing.mjs";

/** The app's own wasm and JS (gzip) must stay under 350 KB (figure 7). */
const OWN_CODE_BUDGET = 350_000;

const targets = {
  none: { text: "—", met: () => null },
  ratioAtMost: (limit) => ({ text: `≤ ${limit.toFixed(2)}× raw`, met: (s, r) => s.value <= limit * r.value }),
  ratioAtLeast: (limit) => ({ text: `≥ ${limit.toFixed(2)}× raw`, met: (s, r) => s.value >= limit * r.value }),
  overheadUnder: (ms) => ({ text: `< ${ms} ms over raw`, met: (s, r) => s.value - r.value < ms }),
  under: (limit, text) => ({ text, met: (s) => s.value < limit }),
};

/**
 * Sandpit's ways in that sessions measure: `name` is the target's, `id` and
 * `title` mark its rows, `words` say where its round trip's parts run from
 * and to (see `costSplit`).
 */
const PATHS = [
  {
    name: "sandpit",
    id: "",
    title: "",
    words: {
      submit: "from pressing Run until the request leaves for the worker",
      worker: "until the result is back on the page",
      render: "from there until the run is in the DOM",
      mainThread: "Sandpit's main thread",
    },
  },
  {
    name: "sandpit-client",
    id: "_agent",
    title: ", agent path (sandpit-client.js, headless widget)",
    words: {
      submit: "from the request reaching the widget until the run leaves for its worker",
      worker: "until the result is back in the widget",
      render:
        "for the rest: both postMessage hops between the page and the widget, the widget turning the result into " +
        "MCP and adding the run to its hidden run list, and the client",
      mainThread: "The main thread that the page and its widget share (same site, one renderer)",
    },
  },
];

/** Every figure, in the issue's order. */
export function buildFigures({ loads, sessions, typing, recovery, chatUi, programCount, size, server, ask, batch }) {
  const fromLoads = (pick) => ({
    sandpit: summarise(loads.sandpit.map(pick)),
    raw: summarise(loads.raw.map(pick)),
  });
  const cold = fromLoads((l) => l.cold.readyAt);
  const warm = fromLoads((l) => l.warm.readyAt);
  const first = fromLoads((l) => l.cold.firstResultAt);

  const rows = [
    row({
      id: "cold_start",
      figure: "1",
      title: "Cold start to ready, empty cache",
      unit: "ms",
      ...cold,
      target: targets.ratioAtMost(1.1),
      note: () => coldStartNote(loads),
    }),
    row({
      id: "warm_start",
      figure: "2",
      title: "Warm start to ready: a return visit (HTTP cache, service worker if any)",
      unit: "ms",
      ...warm,
      target: { text: "≤ 0.6× raw cold", met: (s) => s.value <= 0.6 * cold.raw.value },
      note: () => warmStartNote(cold, warm, loads, server),
    }),
    row({
      id: "first_result",
      figure: "3",
      title: "First result of `print(1)` submitted on opening the page, empty cache",
      unit: "ms",
      ...first,
      target: targets.ratioAtMost(1.1),
      note: () => firstResultNote(loads),
    }),
    row({
      id: "first_result_warm",
      figure: "3",
      title: "First result of `print(1)` on a return visit",
      unit: "ms",
      ...fromLoads((l) => l.warm.firstResultAt),
      target: targets.none,
    }),
    ...PATHS.flatMap((path) => roundTripRows("trivial", "a trivial run (`1 + 1`)", sessions, path)),
    ...PATHS.map((path) =>
      row({
        id: `round_trip_trivial_back_to_back_p50${path.id}`,
        figure: "4",
        title: `Round trip p50 for a trivial run, runs back to back (no pause between blocks)${path.title}`,
        unit: "ms",
        sandpit: summarise(sessions[path.name].trivialBackToBack.ms, 0.5),
        raw: summarise(sessions.raw.trivialBackToBack.ms, 0.5),
        target: targets.none,
      }),
    ),
    row({
      id: "paint_after_many_p95",
      figure: "4",
      title:
        "After the long session's runs (the page shows the latest 100), a new trivial run's result painted, " +
        "each run submitted once the one before has painted: the page's work from its answer arriving to the painted frame (p95)",
      unit: "ms",
      stat: "p95",
      sandpit: summarise(sessions.sandpit.paintAfterMany.work, 0.95),
      raw: null,
      ratio: null,
      target: targets.under(16.0001, "≤ 16 ms (a frame)"),
      note: () => paintNote(sessions.sandpit.paintAfterMany, "trivial runs after the long session", "answer"),
    }),
    row({
      id: "paint_latency_after_many_p95",
      figure: "4",
      title: "The same, from the answer arriving to the painted frame, waiting for the display's next frame included (p95)",
      unit: "ms",
      stat: "p95",
      sandpit: summarise(sessions.sandpit.paintAfterMany.latency, 0.95),
      raw: null,
      ratio: null,
      target: targets.none,
    }),
    row({
      id: "paint_back_to_back_p95",
      figure: "4",
      title:
        "The page's work as in the paint row, with each run typed and submitted as soon as the one before is in the DOM, " +
        "before that frame, so the next run's submission counts too (p95)",
      unit: "ms",
      stat: "p95",
      sandpit: summarise(sessions.sandpit.paintBackToBack.work, 0.95),
      raw: null,
      ratio: null,
      target: targets.none,
    }),
    row({
      id: "scroll_frame_p95",
      figure: "4",
      title: "Scrolling down through the long session's runs with the mouse wheel: the page's work per animation frame (p95)",
      unit: "ms",
      stat: "p95",
      sandpit: summarise(sessions.sandpit.scrollFrames, 0.95),
      raw: null,
      ratio: null,
      target: targets.under(16.0001, "≤ 16 ms (a frame)"),
      note: () =>
        `Over ${sessions.sandpit.scrollFrames.length} frames: the main thread worked ` +
        `${formatMs(quantile(sessions.sandpit.scrollFrames, 0.5))} per frame at the median, ` +
        `${formatMs(Math.max(...sessions.sandpit.scrollFrames))} at most.`,
    }),
    row({
      id: "typing_p95",
      figure: "4",
      title: `Typing in a ${FILE_LINES.toLocaleString("en-US")}-line file in the editor: the page's work from a key's press to the painted frame (p95)`,
      unit: "ms",
      stat: "p95",
      sandpit: summarise(typing.work, 0.95),
      raw: null,
      ratio: null,
      target: targets.under(16.0001, "≤ 16 ms (a frame)"),
      note: () => paintNote(typing, "keys", "key's press"),
    }),
    row({
      id: "typing_latency_p95",
      figure: "4",
      title: "The same, from the key's press to the painted frame, waiting for the display's next frame included (p95)",
      unit: "ms",
      stat: "p95",
      sandpit: summarise(typing.latency, 0.95),
      raw: null,
      ratio: null,
      target: targets.none,
    }),
    ...PATHS.flatMap((path) => roundTripRows("print100kb", "a run printing 100 KB", sessions, path)),
    ...recoveryRows(recovery),
    ...PATHS.map((path) =>
      row({
        id: `throughput${path.id}`,
        figure: "6",
        title: `Throughput over ${programCount} model-style programs with asserts${path.title}`,
        unit: "runs/s",
        sandpit: summarise(sessions[path.name].throughput.runsPerSecond),
        raw: summarise(sessions.raw.throughput.runsPerSecond),
        target: targets.ratioAtLeast(0.8),
        note: () => throughputNote(sessions, path),
      }),
    ),
    row({
      id: "bytes_first_load",
      figure: "7",
      title: "Bytes transferred on first load (until settled)",
      unit: "bytes",
      ...fromLoads((l) => l.cold.transferred.total),
      target: targets.none,
    }),
    row({
      id: "bytes_return_visit",
      figure: "7",
      title: "Bytes transferred on a return visit (until settled)",
      unit: "bytes",
      ...fromLoads((l) => l.warm.transferred.total),
      target: targets.none,
    }),
    row({
      id: "own_code_gzip",
      figure: "7",
      title: "The app's own wasm and JS, all the first paint needs (dist/'s .wasm, .js and .mjs files but Pyodide's and vendor/'s), gzip -9",
      unit: "bytes",
      sandpit: exactly(size.code.gzip),
      raw: null,
      target: targets.under(OWN_CODE_BUDGET, "< 350 KB gzip"),
      note: () => sizeNote(size),
    }),
    row({
      id: "editor_gzip",
      figure: "7",
      title: "The code editor (vendor/codemirror/: CodeMirror), loaded on opening once the app is on screen, gzip -9",
      unit: "bytes",
      sandpit: exactly(size.afterFirstPaint.gzip),
      raw: null,
      target: targets.none,
    }),
    row({
      id: "on_opening_gzip",
      figure: "7",
      title: "All the wasm and JS a visit loads on opening: the two rows above, gzip -9",
      unit: "bytes",
      sandpit: exactly(size.code.gzip + size.afterFirstPaint.gzip),
      raw: null,
      target: targets.none,
    }),
    row({
      id: "on_first_use_gzip",
      figure: "7",
      title: "Libraries loaded on first use, not on opening (vendor/katex/: KaTeX, on the first math display), gzip -9",
      unit: "bytes",
      sandpit: exactly(size.onFirstUse.gzip),
      raw: null,
      target: targets.none,
    }),
    row({
      id: "own_size_gzip",
      figure: "7",
      title: "All the app's own files (all of dist/ but Pyodide: also its HTML, CSS, Python, icons), gzip -9",
      unit: "bytes",
      sandpit: exactly(size.total.gzip),
      raw: null,
      target: targets.none,
    }),
    ...PATHS.flatMap((path) => memoryRows(sessions, path)),
    ...chatUiRows(chatUi, programCount),
    ...[
      ["p50", 0.5, targets.under(20, "< 20 ms")],
      ["p95", 0.95, targets.none],
    ].map(([stat, q, target]) =>
      row({
        id: `ask_overhead_${stat}`,
        figure: "11",
        title: `Ask loop overhead ${stat}: a model's tool call arriving to its next request leaving, less the run (stub model)`,
        unit: "ms",
        stat: String(stat),
        sandpit: summarise(ask, Number(q)),
        raw: null,
        target: /** @type {{ text: string, met: (s: any, r: any) => boolean | null }} */ (target),
      }),
    ),
    ...batchRows(batch),
  ];
  return rows;
}

/** Figure 9: HumanEval through runMany against raw, and how many of its programs passed. */
function batchRows(batch) {
  const count = batch.names.length;
  const rate = (runs, programs = count) => summarise(runs.map((run) => programs / (run.ms / 1000)));
  const passed = (runs) => exactly(Math.min(...runs.map((run) => run.statuses.filter((s) => s === "ok").length)));
  return [
    row({
      id: "batch_humaneval",
      figure: "9",
      title: `HumanEval's ${count} canonical solutions with their tests: runMany over the widget's session workers (agent path) against raw Pyodide's one worker`,
      unit: "runs/s",
      sandpit: rate(batch.agent),
      raw: rate(batch.raw),
      target: targets.ratioAtLeast(1.6),
      note: () => batchNote(batch),
    }),
    row({
      id: "batch_humaneval_control",
      figure: "9",
      title:
        `The control: raw Pyodide on two pages at once, each page its own worker running all ${count} (twice the work), ` +
        "in the Sandpit column, against raw's one worker: what this machine gave two workers",
      unit: "runs/s",
      sandpit: rate(batch.rawPair, 2 * count),
      raw: rate(batch.raw),
      target: targets.none,
    }),
    row({
      id: "batch_humaneval_passed",
      figure: "9",
      title: "HumanEval programs that passed their tests (the fewest over the passes)",
      unit: "programs",
      sandpit: passed(batch.agent),
      raw: passed(batch.raw),
      target: { text: `all ${count}`, met: (s, r) => s.value === count && r.value === count },
      note: () => batchFailures(batch),
    }),
  ];
}

/**
 * What bounds the batch: programs are handed out in input order, so its
 * longest program starts no sooner than those ahead of it are done, shared
 * over W workers, and the batch ends no sooner than it has. Raw's time over
 * the larger of that and raw's time shared W ways is the most runMany could gain.
 */
function batchNote(batch) {
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
function batchFailures(batch) {
  const failed = (name, runs) =>
    runs.flatMap((run) =>
      run.statuses.flatMap((status, i) => (status === "ok" ? [] : [`${name}: ${batch.names[i]} (${status}: ${run.errors[i]})`])),
    );
  return [...new Set([...failed("Sandpit", batch.agent), ...failed("raw", batch.raw)])].join("; ");
}

/**
 * Figure 10: the official SDK client over IframeParentTransport, calls from
 * the moment the widget answers `initialize` (bench/chat-ui.mjs).
 */
function chatUiRows(chatUi, programCount) {
  const trivial = (path) => chatUi[path].trivialMs.flat();
  return [
    row({
      id: "chat_ui_first_call",
      figure: "10",
      title: "Chat-UI path (the MCP SDK's Client over IframeParentTransport): first call, sent as the widget answers `initialize` (raw: as its page opens), until its result",
      unit: "ms",
      sandpit: summarise(chatUi.sandpit.firstCallMs),
      raw: summarise(chatUi.raw.firstCallMs),
      target: targets.none,
    }),
    row({
      id: "chat_ui_round_trip_trivial_p50",
      figure: "10",
      title: "Chat-UI path: round trip p50 for a trivial run, the calls right after the first",
      unit: "ms",
      sandpit: summarise(trivial("sandpit"), 0.5),
      raw: summarise(trivial("raw"), 0.5),
      target: targets.overheadUnder(1),
      note: () => chatUiNote(chatUi),
    }),
    row({
      id: "chat_ui_throughput",
      figure: "10",
      title: `Chat-UI path: throughput over ${programCount} model-style programs, right after the first call`,
      unit: "runs/s",
      sandpit: summarise(chatUi.sandpit.runsPerSecond),
      raw: summarise(chatUi.raw.runsPerSecond),
      target: targets.ratioAtLeast(0.8),
      note: () => chatUiNote(chatUi),
    }),
  ];
}

/** How the chat-UI path's first calls compare with its later ones: the background starts compete with the first. */
function chatUiNote(chatUi) {
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

/**
 * One figure's row: both targets' statistic, their ratio unless given, and whether the target was met.
 *
 * @param {{
 *   id: string,
 *   figure: string,
 *   title: string,
 *   unit: string,
 *   sandpit: { value: number, min?: number, max?: number, n?: number },
 *   raw: { value: number, min?: number, max?: number, n?: number } | null,
 *   ratio?: number | null,
 *   target: { text: string, met: (sandpit: any, raw: any) => boolean | null },
 *   note?: () => string,
 *   stat?: string,
 * }} figure
 */
function row({ id, figure, title, unit, sandpit, raw, ratio, target, note, stat = "median" }) {
  const met = target.met(sandpit, raw);
  return {
    id,
    figure,
    title,
    unit,
    stat,
    sandpit,
    raw,
    // No ratio to nothing: both return visits may transfer no bytes at all.
    ratio: ratio !== undefined ? ratio : raw?.value ? sandpit.value / raw.value : null,
    target: { text: target.text, met },
    note: met === false && note ? note() : null,
  };
}

function roundTripRows(key, what, sessions, path) {
  const times = (s) => s[key].ms;
  const make = (stat, q, target) =>
    row({
      id: `round_trip_${key}_${stat}${path.id}`,
      figure: "4",
      title: `Round trip ${stat} for ${what}${path.title}`,
      unit: "ms",
      stat,
      sandpit: summarise(times(sessions[path.name]), q),
      raw: summarise(times(sessions.raw), q),
      target,
      note: () => roundTripNote(sessions, key, path),
    });
  // The UI path is judged by what a person sees (the paint row); the agent path by its overhead.
  const p50Target = path.id === "" ? targets.none : targets.overheadUnder(1);
  return [make("p50", 0.5, p50Target), make("p95", 0.95, targets.none)];
}

/** Figure 8 for one way into Sandpit: after 1 run, after the long session, the growth between. */
function memoryRows(sessions, path) {
  const memory = { sandpit: sessions[path.name].memory, raw: sessions.raw.memory };
  const growth = (m) => exactly(((m.last.total - m.first.total) / m.first.total) * 100);
  const runs = memory.sandpit.runs.toLocaleString("en-US");
  return [
    row({
      id: `memory_first${path.id}`,
      figure: "8",
      title: `JS heap + wasm memory after 1 run${path.title}`,
      unit: "bytes",
      sandpit: exactly(memory.sandpit.first.total),
      raw: exactly(memory.raw.first.total),
      target: targets.none,
    }),
    row({
      id: `memory_last${path.id}`,
      figure: "8",
      title: `JS heap + wasm memory after ${runs} runs${path.title}`,
      unit: "bytes",
      sandpit: exactly(memory.sandpit.last.total),
      raw: exactly(memory.raw.last.total),
      target: targets.none,
    }),
    row({
      id: `memory_growth${path.id}`,
      figure: "8",
      title: `Memory growth from 1 to ${runs} runs${path.title}`,
      unit: "%",
      sandpit: growth(memory.sandpit),
      raw: growth(memory.raw),
      ratio: null,
      target: targets.under(10, "< 10 %"),
      note: () => memoryNote(memory),
    }),
  ];
}

const median = (values) => quantile(values, 0.5);

/** Figure 5, once per way Sandpit stops a run, each against raw's terminate and reload. */
function recoveryRows(recovery) {
  const make = (mode, title, limitMs) =>
    row({
      id: `recovery_${mode}`,
      figure: "5",
      title: `Recovery after a timeout until the next run can start: ${title}`,
      unit: "ms",
      sandpit: summarise(recovery[mode].map((s) => s.ms)),
      raw: summarise(recovery.raw.map((s) => s.ms)),
      target: targets.under(limitMs, `< ${limitMs} ms`),
      note: () => recoveryNote(recovery, mode),
    });
  return [
    make("interrupt", "interrupt mode (cross-origin isolated page)", 50),
    make("terminate", "terminate mode with the warm spare (page not isolated)", 300),
  ];
}

function coldStartNote(loads) {
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

function warmStartNote(cold, warm, loads, server) {
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

function firstResultNote(loads) {
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

function roundTripNote(sessions, key, path) {
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

function throughputNote(sessions, path) {
  const perRun = (name) => 1000 / median(sessions[name].throughput.runsPerSecond);
  return (
    `A program takes ${formatMs(perRun(path.name))} in Sandpit against ${formatMs(perRun("raw"))} raw. ` +
    costSplit(sessions[path.name].throughput, sessions.raw.throughput, path.words)
  );
}

/** Where the time from the timeout firing to the queued run's start went, in medians over the samples. */
function recoveryNote(recovery, mode) {
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
  "Leptos requires through server_fn and whose classes stay exported though nothing uses them, about 1.5 KB gzip " +
  "(measured by deleting its exports). What is left to cut is mostly Leptos and the app itself.";

/**
 * What a missed paint target's time was made of: the page's work (its p50
 * and p95) and the whole time until the frame was painted.
 */
function paintNote(times, what, from) {
  const q = (values, at) => formatMs(quantile(values, at));
  return (
    `Over ${times.work.length} ${what}: the page's main thread worked ${q(times.work, 0.5)} at the median ` +
    `(p95 ${q(times.work, 0.95)}) from the ${from} to the frame that shows it painted; with the wait for the ` +
    `display's next frame, ${q(times.latency, 0.5)} (p95 ${q(times.latency, 0.95)}).`
  );
}

function sizeNote(size) {
  const largest = size.files
    .filter((f) => f.code)
    .slice(0, 3)
    .map((f) => `${f.path} ${formatBytes(f.gzip)}`)
    .join(", ");
  return `Largest files (gzip): ${largest}. ${WASM_MAKEUP}`;
}

function memoryNote(memory) {
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
 * page keeps its newest 100 runs (`KEPT_RUNS` in src/storage.rs), but their
 * bulky parts are JS values (src/bulk.rs), so the long session's runs
 * printing 100 KB land on the JS heap, which is measured after a forced GC
 * and gives them back once they leave the list; wasm memory never shrinks.
 */
const APP_WASM_GROWTH =
  "The app's wasm memory holds the page's bookkeeping for its newest 100 runs (their code, status and the views " +
  "drawing them); their output, values, figures and file bytes are JS strings on the JS heap, freed once a run " +
  "leaves the list. Wasm memory keeps the size it once grew to, so its growth is the most that bookkeeping " +
  "ever needed at once, not a leak (the list is capped and Python's memory stays flat).";
