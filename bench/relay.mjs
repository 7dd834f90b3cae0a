// @ts-check
// The relay path (figure 4's relay row): a desktop MCP client (the official
// SDK's client over stdio, as Claude Desktop starts a server) calls
// run_python on Sandpit's MCP server (mcp-server/), which hands the call to a
// paired Sandpit tab over its loopback WebSocket; the tab runs it and the
// answer goes back the same way. The server serves the bench's copy of the
// bundle, and the tab is the app's standalone page, opened at the URL the
// server names. Each round trip is timed in the client, from the call to its
// result; the tab notes when each call reached it and when its result left,
// which splits the round trip between the tab and the rest of the way, and
// DevTools gives the tab's main-thread time per call.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { RUN_TIMEOUT_MS } from "../tests/e2e/harness/timeouts.mjs";
import { CLOCK_PATH } from "../www/generated/names.js";
import { newContext } from "./browser.mjs";
import { mainThreadClock } from "./cdp.mjs";
import { watchSandpit } from "./page-sandpit.mjs";
import { TRIVIAL_RUN } from "./session.mjs";
import { appSettled, backgroundDone } from "./targets.mjs";

const SERVER = new URL("../mcp-server/sandpit-mcp.mjs", import.meta.url).pathname;
/** Calls before the timed ones, so first-call costs are not in the tail. */
const WARMUP_CALLS = 3;
/** Timed calls go in blocks of this many, each after a pause, as figure 4's round trips do. */
const BLOCK = 10;
const BLOCK_PAUSE_MS = 250;
const TOKEN = "bench-pairing-token";

/**
 * Records, in the tab, when each message reached its WebSocket and when each
 * message left it (on the page's clock), so a call's time in the tab is
 * known without adding a message.
 */
function spyOnSockets() {
  const log = /** @type {{ at: number, way: "in" | "out", type: string }[]} */ ([]);
  Object.assign(window, { __relayLog: log });
  const type = (/** @type {unknown} */ data) => {
    try {
      return String(JSON.parse(String(data))?.type);
    } catch {
      return "";
    }
  };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    log.push({ at: performance.now(), way: "out", type: type(data) });
    return send.call(this, data);
  };
  const onmessage = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage");
  Object.defineProperty(WebSocket.prototype, "onmessage", {
    ...onmessage,
    set(handler) {
      onmessage?.set?.call(this, (/** @type {MessageEvent} */ event) => {
        log.push({ at: performance.now(), way: "in", type: type(event.data) });
        return handler?.call(this, event);
      });
    },
  });
}

/**
 * `calls` trivial round trips on the relay path, after a first call (which
 * waits for Python to load) and a warm-up.
 *
 * @param {import("playwright-core").Browser} browser
 * @param {string} dist the bundle to serve
 * @param {number} calls
 * @param {(message: string) => void} log
 * @returns {Promise<{ firstCallMs: number, trivialMs: number[], inTabMs: number[], tabMainThreadPerCall: Record<string, number> }>}
 */
export async function measureRelay(browser, dist, calls, log) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--port", "0", "--dist", dist],
    env: { ...process.env, SANDPIT_PAIRING_TOKEN: TOKEN },
    stderr: "pipe",
  });
  /** @type {string[]} */
  const printed = [];
  transport.stderr?.on("data", (/** @type {Buffer} */ chunk) => printed.push(String(chunk)));
  const client = new Client({ name: "bench-desktop-client", version: "1.0.0" });
  await client.connect(transport);
  const context = await newContext(browser);
  try {
    const tabUrl = printed.join("").match(/open (http:\S+)/)?.[1];
    if (!tabUrl) throw new Error(`the MCP server named no URL to open: ${printed.join("")}`);
    const tab = await context.newPage();
    tab.setDefaultTimeout(RUN_TIMEOUT_MS);
    await tab.addInitScript(spyOnSockets);
    await tab.addInitScript(watchSandpit, CLOCK_PATH);
    await tab.goto(tabUrl);
    await tab.locator('[data-testid="relay-state"][data-state="connected"]').waitFor();
    const call = async () => {
      const started = performance.now();
      const result = /** @type {any} */ (
        await client.callTool({ name: "run_python", arguments: { code: TRIVIAL_RUN } }, undefined, { timeout: RUN_TIMEOUT_MS })
      );
      const ms = performance.now() - started;
      if (result.isError || result.structuredContent?.value?.repr !== "2") {
        throw new Error(`relay path: a trivial call failed: ${JSON.stringify(result.content)}`);
      }
      return ms;
    };
    const firstCallMs = await call();
    // Timed once the tab's start is over (its warm spare, start-up snapshot
    // and offline copy), as the agent path's widget is: a steady state.
    await appSettled(tab, { background: true });
    await backgroundDone(tab);
    for (let i = 0; i < WARMUP_CALLS; i++) await call();
    await tab.evaluate(() => /** @type {any} */ (window).__relayLog.splice(0));
    const clock = await mainThreadClock(tab);
    const trivialMs = [];
    let busy = { task: 0, script: 0, style: 0, layout: 0 };
    for (let done = 0; done < calls; done += BLOCK) {
      await new Promise((resolve) => setTimeout(resolve, BLOCK_PAUSE_MS));
      const before = await clock.read();
      for (let i = done; i < Math.min(calls, done + BLOCK); i++) trivialMs.push(await call());
      const after = await clock.read();
      busy = { task: busy.task + after.task - before.task, script: busy.script + after.script - before.script, style: busy.style + after.style - before.style, layout: busy.layout + after.layout - before.layout };
    }
    // The tab's main-thread time per call, by kind (the rest of a task's time is mostly painting).
    const tabMainThreadPerCall = Object.fromEntries(Object.entries(busy).map(([kind, ms]) => [kind, ms / calls]));
    /** @type {{ at: number, way: string, type: string }[]} */
    const seen = await tab.evaluate(() => /** @type {any} */ (window).__relayLog);
    const inTabMs = [];
    for (let i = 0; i < seen.length; i++) {
      if (seen[i].way !== "in" || seen[i].type !== "invoke") continue;
      const answered = seen.slice(i + 1).find((entry) => entry.way === "out" && entry.type === "result");
      if (answered) inTabMs.push(answered.at - seen[i].at);
    }
    log(`relay path: ${calls} trivial calls from a stdio client through the MCP server to a tab`);
    return { firstCallMs, trivialMs, inTabMs, tabMainThreadPerCall };
  } finally {
    await client.close();
    await context.close();
  }
}
