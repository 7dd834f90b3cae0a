// @ts-check
// Figure 10: the path chat UIs really use. A page on its own origin
// (bench/chat-ui/main.mjs, bundled here with esbuild) frames Sandpit's widget
// and drives it with the official MCP SDK's Client over IframeParentTransport,
// calling run_python as soon as the widget answers `initialize`; the raw
// baseline's page (bench/raw/) runs the same calls as soon as it opens. Each
// sample is a fresh context: a first call (which waits for Python to load),
// then at once either the trivial round trips or the program set. The warm
// spare and the snapshot maker Sandpit starts in the background after its
// first run compete with those calls, as they do for a chat UI.
import { build } from "esbuild";

import { serveDemo } from "../scripts/serve.mjs";
import { RUN_TIMEOUT_MS } from "../tests/e2e/harness/timeouts.mjs";
import { newContext } from "./browser.mjs";
import { TRIVIAL_RUN } from "./session.mjs";

const HERE = new URL(".", import.meta.url);
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A chat UI on the MCP SDK</title>
<link rel="icon" href="data:,"><script type="module" src="./chat-ui.js"></script></head><body></body></html>`;

/** Serves the chat-UI page, its script bundled with the SDK; `{ url, close }`. */
export async function serveChatUi() {
  const { outputFiles } = await build({
    entryPoints: [new URL("chat-ui/main.mjs", HERE).pathname],
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  return serveDemo({
    files: {
      "/index.html": { type: "text/html", body: PAGE },
      "/chat-ui.js": { type: "text/javascript", body: outputFiles[0].text },
    },
  });
}

/**
 * `passes` samples of each kind on both paths, alternating: `trivial`
 * round trips (`roundTrips` calls) and the `programs` set, each right after
 * the first call of a fresh page.
 *
 * @param {import("playwright-core").Browser} browser
 * @param {{ pageUrl: string, widgetUrl: string, rawUrl: string }} where
 * @param {{ name: string, code: string }[]} programs
 * @param {{ passes: number, roundTrips: number }} settings
 * @param {(message: string) => void} log
 */
export async function measureChatUi(browser, { pageUrl, widgetUrl, rawUrl }, programs, settings, log) {
  const kinds = {
    trivial: Array(settings.roundTrips).fill(TRIVIAL_RUN),
    programs: programs.map((p) => p.code),
  };
  /** @type {Record<"sandpit" | "raw", { firstCallMs: number[], initializeMs: number[], trivialMs: number[][], runsPerSecond: number[] }>} */
  const out = {
    sandpit: { firstCallMs: [], initializeMs: [], trivialMs: [], runsPerSecond: [] },
    raw: { firstCallMs: [], initializeMs: [], trivialMs: [], runsPerSecond: [] },
  };
  for (let pass = 1; pass <= settings.passes; pass++) {
    for (const [kind, codes] of Object.entries(kinds)) {
      for (const path of /** @type {const} */ (["sandpit", "raw"])) {
        const sample = path === "sandpit" ? await sdkSample(browser, pageUrl, widgetUrl, codes) : await rawSample(browser, rawUrl, codes);
        const failed = [sample.firstCall, ...sample.calls].find((call) => !call.ok);
        if (failed) throw new Error(`chat-UI path, ${path}: a run failed: ${failed.error}`);
        out[path].firstCallMs.push(sample.firstCall.ms);
        if (sample.initializeMs !== null) out[path].initializeMs.push(sample.initializeMs);
        // Per sample, in order: the note on a missed target compares its first calls with its last.
        if (kind === "trivial") out[path].trivialMs.push(sample.calls.map((/** @type {{ ms: number }} */ call) => call.ms));
        else out[path].runsPerSecond.push(codes.length / (sample.seriesMs / 1000));
        log(`chat-UI path pass ${pass}/${settings.passes} ${path} ${kind}: ${codes.length} calls in ${Math.round(sample.seriesMs)} ms`);
      }
    }
  }
  return out;
}

/**
 * @param {import("playwright-core").Browser} browser
 * @param {string} pageUrl
 * @param {string} widgetUrl
 * @param {string[]} codes
 */
async function sdkSample(browser, pageUrl, widgetUrl, codes) {
  const context = await newContext(browser);
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(RUN_TIMEOUT_MS);
    await page.goto(pageUrl);
    await page.waitForFunction(() => "chatUi" in window);
    return await page.evaluate(
      ({ widgetUrl, first, codes }) => /** @type {any} */ (window).chatUi.session(widgetUrl, first, codes),
      { widgetUrl, first: TRIVIAL_RUN, codes },
    );
  } finally {
    await context.close();
  }
}

/**
 * The raw page, opened and called at once: its first call waits in the worker while Pyodide loads.
 *
 * @param {import("playwright-core").Browser} browser
 * @param {string} rawUrl
 * @param {string[]} codes
 */
async function rawSample(browser, rawUrl, codes) {
  const context = await newContext(browser);
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(RUN_TIMEOUT_MS);
    await page.goto(rawUrl);
    await page.waitForFunction(() => "raw" in window);
    return await page.evaluate(
      async ({ first, codes }) => {
        const raw = /** @type {any} */ (window).raw;
        /** @param {string} code */
        const call = async (code) => {
          const { ms, answer } = await raw.run(code);
          return { ms, ok: answer.ok, error: answer.ok ? null : String(answer.error) };
        };
        const firstCall = await call(first);
        const seriesStarted = performance.now();
        const calls = [];
        for (const code of codes) calls.push(await call(code));
        return { initializeMs: null, firstCall, calls, seriesMs: performance.now() - seriesStarted };
      },
      { first: TRIVIAL_RUN, codes },
    );
  } finally {
    await context.close();
  }
}
