// @ts-check
// Writes the results as bench/results.json and as the table in bench/RESULTS.md.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { formatBytes, formatRatio, formatValue } from "./format.mjs";

export async function writeReport(results, dir) {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(join(dir, "RESULTS.md"), markdown(results));
}

/** `value (min–max)`, or just the value when there was one sample. */
function cell(unit, summary) {
  if (!summary) return "—";
  const value = formatValue(unit, summary.value);
  return summary.n === 1 ? value : `${value} (${formatValue(unit, summary.min)} – ${formatValue(unit, summary.max)})`;
}

function verdict(met) {
  if (met === null) return "—";
  return met ? "met" : "**missed**";
}

function tableRow(figure) {
  return [
    "",
    figure.figure,
    figure.title,
    cell(figure.unit, figure.sandpit),
    cell(figure.unit, figure.raw),
    figure.ratio === null ? "—" : formatRatio(figure.ratio),
    figure.target.text,
    verdict(figure.target.met),
    "",
  ].join(" | ").trim();
}

/**
 * The results as RESULTS.md's text.
 *
 * @param {{ date: string, machine: any, settings: any, figures: any[], details: any, note?: string, partial?: any }} results
 */
export function markdown({ date, machine, settings, figures, details, note, partial }) {
  const missed = figures.filter((f) => f.target.met === false);
  const lines = [
    "# Benchmarks: Sandpit against raw Pyodide",
    "",
    "Written by `make bench` (`node bench/run.mjs`); do not edit by hand.",
    "",
    `- Date: ${date}`,
    `- Machine: ${machine.nproc} cores (\`nproc\`), ${machine.cpu}; Chromium ${machine.chromium} headless; Node ${machine.node}; Pyodide ${machine.pyodide}`,
    `- Measured: \`dist/\` built ${machine.distBuilt}, at commit ${machine.commit}`,
    `- Load average before measuring: ${machine.loadAverageBefore.toFixed(2)}, after: ${machine.loadAverageAfter.toFixed(2)}` +
      (machine.busy ? " — **the machine was busy with other work while measuring**: absolute times are inflated; the targets were measured alternately, so ratios suffer less." : ""),
    ...(note ? [`- Note: ${note}`] : []),
    ...(partial
      ? [
          `- Figure ${partial.figure} was measured on its own (\`BENCH_ONLY\`) on ${partial.date}, \`dist/\` built ${partial.machine.distBuilt} ` +
            `at commit ${partial.machine.commit}, load average ${partial.machine.loadAverageBefore.toFixed(2)} before and ` +
            `${partial.machine.loadAverageAfter.toFixed(2)} after; the other figures are from the run above.`,
        ]
      : []),
    `- Samples: ${settings.loads} cold + warm loads per target; ${settings.roundTrips} timed round trips per kind; ` +
      `${settings.passes} passes over ${settings.programs} programs; memory after 1 run and after ${settings.memoryRuns.toLocaleString("en-US")}; ` +
      `${settings.recoveries} timeouts recovered from per mode; ${settings.batches} HumanEval batches per target` +
      (settings.poolPasses ? `; ${settings.poolPasses} passes over figure 14.` : "."),
    "",
    "Each cell is the median (p95 where the figure says so) with the smallest and largest sample in brackets. " +
      "Ratio is Sandpit over raw for the same figure. Rows marked *agent path* measure Sandpit as a model drives it, " +
      "through `sandpit-client.js` and a headless widget, instead of through its UI; their Sandpit column is that path.",
    "",
    "| # | Figure | Sandpit | Raw Pyodide | Ratio | Target | Result |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...figures.map(tableRow),
    "",
  ];
  if (missed.length) {
    lines.push("## Missed targets", "");
    for (const figure of missed) lines.push(`- **${figure.figure}. ${figure.title}**: ${figure.note}`);
    lines.push("");
  }
  lines.push(
    "## How it is measured",
    "",
    "- Sandpit is the release bundle in `dist/` (copied when the bench starts, so a rebuild cannot change it midway), " +
      "served by `scripts/serve.mjs` on loopback with its usual headers; " +
      "the raw baseline (`bench/raw/`) is a page and a module worker that load the same `dist/pyodide/` files and answer " +
      "`runPython` over plain `postMessage`, served the same way. Both run in one headless Chromium, alternately.",
    "- The agent path (`bench/client/`, figures 4, 6 and 8): a page on another loopback origin, served with the same " +
      "isolating headers, imports `sandpit-client.js` from a second serving of the same bundle (its config lists the page's " +
      "origin in `embed.allow`) and creates a headless widget (`Sandpit.create({ headless: true })`). A round trip runs " +
      "from calling `sandpit.run(code)` to its promise resolving with the RunResult, which the widget sends after adding " +
      "the run to its hidden run list. The widget is a same-site frame and shares the page's renderer, so that page's " +
      "main-thread time, JS heap and DOM heap include the widget's. The client creates its iframe with " +
      "`allow=\"cross-origin-isolated\"`, so on this isolated page the widget is cross-origin isolated too, as on a host " +
      "page that isolates itself; no run measured here times out. Figures 1 to 3, 5 and 7 are the app page's only.",
    "- The chat-UI path (`bench/chat-ui/`, figure 10): a page on another loopback origin (not isolated) frames the " +
      "widget (`widget.html`, shown, not headless) and connects the official MCP SDK's `Client` over `@mcp-b/transports`' " +
      "`IframeParentTransport`; the moment the widget answers `initialize` it calls `run_python` (a first call, which waits " +
      "for Python to load), then at once either the trivial round trips or the program set, each call sent when the one " +
      "before answered. Every sample is a fresh context; nothing waits for the page to settle, so Sandpit's snapshot maker " +
      "and warm spare start while the calls go on. Raw's page is called the same way from the moment it opens.",
    "- The relay path (`bench/relay.mjs`, figure 4's relay row): a desktop MCP client, the official SDK's client, starts " +
      "Sandpit's MCP server (`mcp-server/`, serving the same bundle) over stdio as Claude Desktop does; the app's standalone " +
      "page, opened at the URL the server names, pairs with it over its loopback WebSocket. A round trip runs from " +
      "`callTool(run_python)` in the client to its result, after a first call and 3 warm-up calls, in blocks of 10 after a " +
      "pause; the target is the agent path's p50 plus 2 ms. The tab notes when each call reached its WebSocket and when the " +
      "result left it, which the note on a missed target uses.",
    "- Times are taken on the page's own clock: start-up figures from navigation start; a round trip from handing over " +
      "the code to having the answer. For Sandpit's UI that means typing into the editor, pressing Run and waiting until the " +
      "finished run is in the DOM, so it **includes rendering the run** (not painting it), as a user gets it; for raw it is " +
      "`postMessage` to the answer.",
    "- Cold start: a fresh browser with an on-disk profile (empty HTTP cache), as a user's browser caches: an " +
      "incognito context keeps its HTTP cache in memory, where Pyodide's 9.6 MB wasm is not kept, so every worker that " +
      "loads it would download it again. Warm start: a new tab in the same browser after the first " +
      "visit has settled, with the HTTP cache (and service worker, if any) it left; Sandpit's first visit settles once its " +
      "snapshot maker has stored the start-up snapshot (Python's memory after start-up), which the return visit restores. " +
      "`print(1)` is submitted the moment the page can take it (Sandpit: when the editor appears; raw: at script start).",
    "- Bytes: what every request a visit makes until the page has settled received over the network, head and body, " +
      "as DevTools counts it for the page, its frames on other sites, their workers and service workers (Sandpit starts a " +
      "warm spare worker after ready, and on a first visit a snapshot maker before it, each fetching Pyodide again, which " +
      "the HTTP cache answers or revalidates, and its service worker, if any, fills its cache); an answer from the HTTP " +
      "cache costs nothing, a revalidation (304) its head. The server does not compress. Answers a service worker gives " +
      "the page are not counted again.",
    "- The app's own share: every file of the bundle but Pyodide's, each gzipped at level 9 as a static host would. " +
      "The target (the issue's \"gzip size of the app's own wasm and JS\") counts its wasm and JS that the first paint " +
      "needs: the wasm, its wasm-bindgen loader and snippets, the worker's modules, the service worker (with its precache " +
      "list) and `sandpit-client.js`. The code editor (CodeMirror, `vendor/codemirror/`) has a row of its own: every " +
      "visit loads it, once the app is on screen (a plain text field stands in until then), and the row after sums " +
      "both. KaTeX (`vendor/katex/`) loads on the first math display only. The last row counts the rest too (HTML, CSS, " +
      "the runner's Python, the icons). Every file is listed at the end.",
    "- Paint (figure 4): on the UI page after its long session (the page shows the latest 100 of its runs), as many " +
      "trivial runs as the round trips are run again, in blocks of 10 after a pause, while DevTools traces the page's " +
      "main thread; each run is submitted once the one before has painted, as a person presses Run after reading a " +
      "result. (The row after next submits each run as soon as the one before is in the DOM, as the round trips do: " +
      "the next run's typing and submission then happen before the frame and count in its time.) For each run the page notes " +
      "when the answer arrived and when the frame after the finished run reached the DOM was painted (the task after " +
      "that animation frame); the row is the main thread's CPU time in between (every task: handling the answer, " +
      "rendering the run, style, layout, paint; DevTools' thread time, so time the thread waited for a core while " +
      "other processes had them does not count), and the row after it the whole time, which also holds the wait for " +
      "the display's next frame (up to 16.7 ms at 60 Hz whatever the page does). Scrolling: the same page, from " +
      "its top, is scrolled down with the mouse wheel (400 px every 40 ms) while traced; each animation frame's work " +
      "is the main thread's busy time from its start to the next frame's. Typing: a fresh UI page holds a " +
      "2,000-line file in its editor; keys are pressed through DevTools every 120 ms at the end of its middle line " +
      "(code, and Enter, which indents), and each key is timed the same way from the key event's own time stamp.",
    "- Throughput: each pass runs the program set (`bench/programs/*.py`, each program with its own asserts) on a fresh " +
      "page, one program at a time, each waiting for the previous result.",
    "- Figures 4 and 6 alternate between the targets' pages in blocks (10 round trips, or a pass over the programs), " +
      "with the machine left idle for 250 ms before each block, so that one page's leftover work (painting, garbage " +
      "collection) does not land on the next target's first runs. One more series of trivial runs per target goes " +
      "back to back, the whole series after one pause, to show what a run costs when runs follow each other closely.",
    "- Round trips and memory: one long session per target from a fresh page: run 1, a memory snapshot, the round trips " +
      "(after 3 warm-up runs each), programs up to the memory run count, a second snapshot. Sandpit's page keeps every run " +
      "on screen (the widget keeps them in its hidden run list), so what a run costs there depends on how many came before; " +
      "the notes give its main-thread time per run " +
      "(DevTools' Performance metrics).",
    "- Memory: V8 heap in use on the page and in every worker (after a forced GC, via DevTools) plus the app's wasm memory " +
      "and Python's wasm memory (read by a probe run). The warm spare's wasm memory cannot be read from a run and is not included; " +
      "its JS heap is. Blink's DOM heap is not part of the figure; it is in `results.json`.",
    "- Recovery after a timeout: on a page with one earlier run, a busy loop (`while True: pass`) is run with a " +
      "timeout of 1 s (the app's timeout field) and `1 + 1` is queued behind it at once; each page traces its own clock. " +
      "The time runs **from the moment the timeout fires**, seen by wrapping what the page does then: Sandpit writing " +
      "the interrupt into the worker's interrupt buffer (`Atomics.store`, interrupt mode: the page served with " +
      "COOP/COEP, cross-origin isolated) or calling `terminate()` on the worker (terminate mode: the same bundle served " +
      "without them, so the warm spare takes over and the session's earlier runs are replayed into it), raw terminating " +
      "its worker from its own timer; **until the queued run could start**: Sandpit posting it to the worker (the page " +
      "posts only to a worker that is ready and idle, so after any replay), raw's new worker saying it is ready after " +
      "loading Pyodide again (the run was resent to it and waits inside). The queued run's own time comes after that and " +
      "is not counted; the time until its result is on the page is in `results.json`. Samples alternate between the " +
      "three pages, each waiting until its page has settled again (a new spare loaded). The ledger grows by the queued " +
      "run at every sample, so terminate mode replays one more run each time.",
    "- Sessions beyond the cores (`bench/pool.mjs`, figure 14, Sandpit's alone, agent path): each pass opens fresh " +
      "pages. One makes six sessions (a first call each), waits until the widget's background work is over, then fires " +
      "300 calls at once (`count += 1` and `sum(range(1000))`), round robin over two of the sessions, and again over all " +
      "six, the order alternating from pass to pass; every call must come back `ok`, unrestored, with no session " +
      "parked. Another makes one session, then five times waits until a warm spare is ready and times a call of the " +
      "resident session and, right after, the first call of a new one. The third drives a serving whose deployment " +
      "holds three workers: 200 runs in one session, a call in two more (the pool is full), then, once the pool has " +
      "parked the first, idle 10 s, to keep a warm spare and that spare is ready, the parked session's next call, " +
      "which the spare brings back by replaying its 200 runs.",
    "",
    "## The app's own files",
    "",
    "| File | Size | gzip -9 |",
    "| --- | --- | --- |",
    ...details.size.files.map((f) => `| ${f.path} | ${formatBytes(f.bytes)} | ${formatBytes(f.gzip)} |`),
    `| wasm and JS (figure 7's target) | ${formatBytes(details.size.code.bytes)} | ${formatBytes(details.size.code.gzip)} |`,
    `| total | ${formatBytes(details.size.total.bytes)} | ${formatBytes(details.size.total.gzip)} |`,
    "",
  );
  return lines.join("\n");
}
