// @ts-check
// `make bench`: Sandpit against raw Pyodide in the same Chromium run.
//
// Sandpit is the built bundle in dist/ (a snapshot of it), served by
// scripts/serve.mjs and driven through its UI the way the browser tests do;
// the raw baseline (bench/raw/) is a minimal page whose worker loads the same
// Pyodide files and answers runPython over plain postMessage, served the same
// way. Each figure is measured on both, in one headless Chromium; figure 5
// also serves Sandpit without COOP/COEP, where timeouts terminate the worker.
// Sessions (figures 4, 6, 8) also measure the agent path: bench/client/, a
// page on another origin driving Sandpit's headless widget through
// sandpit-client.js, from a serving of the bundle whose config lets it.
// Figure 10 measures the path chat UIs use: the MCP SDK's Client over
// IframeParentTransport, calling as soon as the widget answers `initialize`
// (bench/chat-ui.mjs). Figure 4's relay row measures desktop MCP clients'
// path: a stdio client, Sandpit's MCP server, a paired tab (bench/relay.mjs).
// Figure 14 measures sessions beyond the cores on the agent path
// (bench/pool.mjs), also on a serving whose deployment holds three workers.
// Figure 15 opens each of the page, the agent path and the chat-UI path for
// the first time, on loopback and on an emulated link (bench/first-visit.mjs).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { serve } from "../scripts/serve.mjs";
import { WIDGET_PAGE } from "../www/generated/names.js";
import { launchChromium } from "./browser.mjs";
import { loadHumanEval, measureBatch } from "./batch.mjs";
import { measureAskOverhead } from "./ask.mjs";
import { snapshotBundle } from "./bundle.mjs";
import { firstVisitRows, visitsBySurface } from "./figure-first-visit.mjs";
import { poolRows } from "./figure-pool.mjs";
import { buildFigures } from "./figures.mjs";
import { measureChatUi, serveChatUi } from "./chat-ui.mjs";
import { firstVisitSurfaces, measureFirstVisits } from "./first-visit.mjs";
import { EMULATED_LINK } from "./link.mjs";
import { measureLoads } from "./loads.mjs";
import { describeMachine, gitDescribe, loadAverage } from "./machine.mjs";
import { measureFixes } from "./fixes.mjs";
import { POOL_PARKING, measurePool } from "./pool.mjs";
import { loadFailingPrograms, loadPrograms } from "./programs.mjs";
import { measureSessions } from "./session.mjs";
import { measureTyping } from "./typing.mjs";
import { measureRecovery } from "./recovery.mjs";
import { measureRelay } from "./relay.mjs";
import { measureOwnSize } from "./size.mjs";
import { chatUiTarget, clientTarget, rawTarget, sandpitTarget } from "./targets.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist");
const RAW = join(ROOT, "bench", "raw");
/** Served as it is: it uses nothing of dist/, so there is nothing to link in or snapshot. */
const CLIENT = join(ROOT, "bench", "client");

/** How much to measure: a few minutes on 2 cores, most of it Sandpit's 1,000-run session. */
export const DEFAULT_SETTINGS = {
  /**
   * Cold + warm page loads per target (figures 1, 2, 3, 7). A cold load's
   * time swings by a second or more on two cores (V8 compiling Pyodide's wasm
   * in the background competes with the start): with 5, one run's median put
   * Sandpit at 1.01x raw and the next, on code that starts up the same, at 1.12x.
   */
  loads: 9,
  /**
   * First visits per surface and link but the page's and raw's on loopback,
   * which are the loads above (figure 15). Each is a fresh browser too.
   */
  firstVisits: 5,
  /** Timed round trips per kind of run and target (figure 4). */
  roundTrips: 100,
  /** Passes over the program set per target, each on a fresh page (figure 6). */
  passes: 3,
  /** How many programs of each set (figure 6's, figure 9's HumanEval) to use (all when null). */
  programs: null,
  /** Runs before the second memory snapshot (figure 8). */
  memoryRuns: 1000,
  /** Timeouts recovered from per mode and target (figure 5). */
  recoveries: 5,
  /**
   * Timed HumanEval batches per target, each on a fresh page (figure 9). On
   * two cores a batch's time swings by a quarter or more from one fresh page
   * to the next, for raw and Sandpit alike, so the median needs more than a few.
   */
  batches: 9,
  /** Questions to the Ask panel's stub model, five steps each (figure 11). */
  asks: 10,
  /** Keys typed into a 2,000-line file in Sandpit's editor (figure 4). */
  keystrokes: 100,
  /** Passes over the failing programs, each on a fresh page (figure 12). */
  fixPasses: 3,
  /** Passes over figure 14 (sessions beyond the cores), each on fresh pages. */
  poolPasses: 3,
  /** The emulated link of figure 15's rows on it. */
  link: EMULATED_LINK,
};

/**
 * Measures everything; `log` hears progress. Resolves to the results object.
 *
 * @param {Partial<typeof DEFAULT_SETTINGS>} [overrides]
 * @param {(message: string) => void} [log]
 */
export async function runBench(overrides = {}, log = () => {}) {
  const settings = { ...DEFAULT_SETTINGS, ...overrides };
  const programs = (await loadPrograms()).slice(0, settings.programs ?? undefined);
  const humanEval = (await loadHumanEval()).slice(0, settings.programs ?? undefined);
  const failing = await loadFailingPrograms();
  const loadBefore = loadAverage();
  const commit = gitDescribe(ROOT);
  const bundle = await snapshotBundle({ dist: DIST, raw: RAW });
  let appServer = null;
  let plainServer = null;
  let rawServer = null;
  let clientServer = null;
  let widgetServer = null;
  let chatUiServer = null;
  let parkingServer = null;
  let browser = null;
  try {
    appServer = await serve({ root: bundle.dist });
    // The same bundle without COOP/COEP: not cross-origin isolated, so timeouts terminate the worker.
    plainServer = await serve({ root: bundle.dist, isolated: false });
    rawServer = await serve({ root: bundle.raw });
    // The agent path's page first: the widget's server must list its origin.
    // A server of its own, so the app page's figures see the config as shipped.
    clientServer = await serve({ root: CLIENT });
    chatUiServer = await serveChatUi();
    const embedders = [clientServer.url, chatUiServer.url].map((url) => new URL(url).origin);
    widgetServer = await serve({ root: bundle.dist, embedOrigins: embedders });
    parkingServer = await serve({ root: bundle.dist, embedOrigins: embedders, sessions: POOL_PARKING });
    browser = await launchChromium();
    const sandpit = sandpitTarget(appServer.url);
    const raw = rawTarget(rawServer.url);
    const agent = clientTarget(clientServer.url, widgetServer.url);
    const widgetUrl = new URL(WIDGET_PAGE, widgetServer.url).href;
    const server = await cacheHeaders(appServer.url);
    const loads = await measureLoads([sandpit, raw], settings.loads, log);
    const surfaces = firstVisitSurfaces({
      app: sandpit,
      client: agent,
      chatUi: chatUiTarget(new URL("index.html", chatUiServer.url).href, widgetUrl),
      raw,
    });
    const firstVisits = await measureFirstVisits(
      {
        loopback: [surfaces.widget, surfaces["chat-ui"]],
        emulated: [surfaces.page, surfaces.widget, surfaces["chat-ui"], surfaces.raw],
      },
      settings.firstVisits,
      log,
      settings.link,
    );
    const sessions = await measureSessions(browser, [sandpit, agent, raw], programs, settings, log);
    const relay = await measureRelay(browser, bundle.dist, settings.roundTrips, log);
    const chatUi = await measureChatUi(
      browser,
      { pageUrl: new URL("index.html", chatUiServer.url).href, widgetUrl, rawUrl: raw.url() },
      programs,
      settings,
      log,
    );
    const typing = await measureTyping(browser, sandpit, settings.keystrokes);
    log(`typing: ${settings.keystrokes} keys in a 2,000-line file`);
    const recovery = await measureRecovery(
      browser,
      [
        { mode: "interrupt", target: sandpit, stop: "interrupt" },
        { mode: "terminate", target: sandpitTarget(plainServer.url, "sandpit-plain"), stop: "terminate" },
        { mode: "raw", target: raw, stop: "terminate" },
      ],
      settings.recoveries,
      log,
    );
    const batch = await measureBatch(browser, { agent, raw }, humanEval, settings.batches, log);
    const ask = await measureAskOverhead(browser, appServer.url, settings.asks, log);
    const fixes = await measureFixes(browser, agent, failing, settings.fixPasses, log);
    const parking = clientTarget(clientServer.url, parkingServer.url);
    const pool = await measurePool(browser, { agent, parking }, settings.poolPasses, log);
    const size = await measureOwnSize(bundle.dist);
    return {
      date: new Date().toISOString(),
      machine: describeMachine({ dist: bundle.dist, browser, loadBefore, commit }),
      settings: { ...settings, programs: programs.length },
      figures: buildFigures({ loads, firstVisits, sessions, relay, typing, recovery, chatUi, programCount: programs.length, size, server, ask, batch, fixes, pool }),
      details: {
        server,
        // Figure 14, per pass: the 300 calls' wall time over 2 and 6 sessions, new and resident calls, restores.
        pool,
        // Figure 9, per timed batch: wall time, and each program's status and time (Python's, or raw's round trip).
        batch,
        size,
        bytes: Object.fromEntries(
          Object.entries(loads).map(([name, l]) => [name, { firstLoad: l[0].cold.transferred, returnVisit: l[0].warm.transferred }]),
        ),
        // Figure 15, per link and surface: each first visit's times and bytes, by path too, and what crossed the emulated link.
        firstVisits,
        // How each Sandpit visit started Python: `absent` on a first visit, `used` when a return visit restored the snapshot.
        snapshot: loads.sandpit.map((l) => ({ cold: l.cold.snapshot, warm: l.warm.snapshot })),
        memory: perTarget(sessions, (s) => s.memory),
        recovery,
        // Figure 4's relay row: the stdio client's round trips, and each call's time in the tab.
        relay,
        // Figure 12, per pass and program: its status, its fix's summary, whether it was proved, its trials' time.
        fixes,
        mainThreadPerRun: perTarget(sessions, (s) => ({
          trivial: perRun(s.trivial),
          print100kb: perRun(s.print100kb),
          throughput: perRun(s.throughput),
        })),
      },
    };
  } finally {
    await browser?.close();
    await parkingServer?.close();
    await widgetServer?.close();
    await chatUiServer?.close();
    await clientServer?.close();
    await rawServer?.close();
    await plainServer?.close();
    await appServer?.close();
    await bundle.remove();
  }
}

/**
 * One figure measured alone, to put in place of its rows of the last full
 * run: `measure({ bundle, started, launch })` serves what it needs (each
 * server through `started`, which closes it afterwards), gets the browser
 * from `launch` if it needs one, and resolves to its rows and details; the
 * result also says when and on what it was measured.
 *
 * @template {object} T
 * @param {(context: { bundle: Awaited<ReturnType<typeof snapshotBundle>>, started: (server: any) => any, launch: () => Promise<any> }) => Promise<T>} measure
 */
async function measureAlone(measure) {
  const loadBefore = loadAverage();
  const commit = gitDescribe(ROOT);
  const bundle = await snapshotBundle({ dist: DIST, raw: RAW });
  const servers = [];
  let browser = null;
  const launch = async () => (browser ??= await launchChromium());
  try {
    const started = (server) => (servers.push(server), server);
    const part = await measure({ bundle, started, launch });
    return {
      date: new Date().toISOString(),
      machine: describeMachine({ dist: bundle.dist, browser: await launch(), loadBefore, commit }),
      ...part,
    };
  } finally {
    await browser?.close();
    for (const server of servers) await server.close();
    await bundle.remove();
  }
}

/**
 * Figure 14 alone (`BENCH_ONLY=pool`): its rows, its details and what it was
 * measured on, to put in place of the figure's rows of the last full run.
 *
 * @param {typeof DEFAULT_SETTINGS} settings
 * @param {(message: string) => void} log
 */
export function runPoolBench(settings, log) {
  return measureAlone(async ({ bundle, started, launch }) => {
    const clientServer = started(await serve({ root: CLIENT }));
    const embedOrigins = [new URL(clientServer.url).origin];
    const widgetServer = started(await serve({ root: bundle.dist, embedOrigins }));
    const parkingServer = started(await serve({ root: bundle.dist, embedOrigins, sessions: POOL_PARKING }));
    const agent = clientTarget(clientServer.url, widgetServer.url);
    const parking = clientTarget(clientServer.url, parkingServer.url);
    const pool = await measurePool(await launch(), { agent, parking }, settings.poolPasses, log);
    return { figures: poolRows(pool), pool };
  });
}

/**
 * Figure 15 alone (`BENCH_ONLY=first-visit`): its rows, its details and what
 * it was measured on, to put in place of the figure's rows of the last full
 * run. Every surface is visited on both links here, the page and raw on
 * loopback too (a full run takes those from figures 1 to 3's cold loads).
 * Each visit is a browser of its own; the one that names the machine's
 * Chromium starts after them.
 *
 * @param {typeof DEFAULT_SETTINGS} settings
 * @param {(message: string) => void} log
 */
export function runFirstVisitBench(settings, log) {
  return measureAlone(async ({ bundle, started }) => {
    const appServer = started(await serve({ root: bundle.dist }));
    const rawServer = started(await serve({ root: bundle.raw }));
    const clientServer = started(await serve({ root: CLIENT }));
    const chatUiServer = started(await serveChatUi());
    const embedOrigins = [clientServer.url, chatUiServer.url].map((url) => new URL(url).origin);
    const widgetServer = started(await serve({ root: bundle.dist, embedOrigins }));
    const surfaces = firstVisitSurfaces({
      app: sandpitTarget(appServer.url),
      client: clientTarget(clientServer.url, widgetServer.url),
      chatUi: chatUiTarget(new URL("index.html", chatUiServer.url).href, new URL(WIDGET_PAGE, widgetServer.url).href),
      raw: rawTarget(rawServer.url),
    });
    const every = [surfaces.page, surfaces.widget, surfaces["chat-ui"], surfaces.raw];
    const firstVisits = await measureFirstVisits({ loopback: every, emulated: every }, settings.firstVisits, log, settings.link);
    return { figures: firstVisitRows(visitsBySurface(null, firstVisits)), firstVisits };
  });
}

/** How the server lets browsers cache Pyodide's wasm: it decides what a return visit costs. */
async function cacheHeaders(url) {
  const response = await fetch(new URL("pyodide/pyodide.asm.wasm", url), { method: "HEAD" });
  return {
    cacheControl: response.headers.get("cache-control"),
    etag: response.headers.get("etag"),
    lastModified: response.headers.get("last-modified"),
    wasmBytes: Number(response.headers.get("content-length")),
  };
}

const perTarget = (sessions, pick) => Object.fromEntries(Object.entries(sessions).map(([name, s]) => [name, pick(s)]));

/** Main-thread milliseconds per run, by kind of work. */
const perRun = (measured) =>
  Object.fromEntries(Object.entries(measured.mainThread).map(([key, ms]) => [key, ms / measured.runs]));
