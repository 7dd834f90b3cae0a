// @ts-check
// Sandpit's local MCP server (mcp-server/, or the package `make package`
// builds) started as a process on loopback, and a chat host that shows MCP
// App views: a test double of a chat UI built from the real parts, ext-apps'
// AppBridge and the official MCP SDK client over Streamable HTTP to the real
// server, with a sandbox proxy on another origin that frames each view under
// the CSP its resource declares. Each test file stops what it started.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

import { serveDemo } from "../../scripts/serve.mjs";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SERVER = join(ROOT, "mcp-server", "sandpit-mcp.mjs");
/** The pairing token the tests start the server with. */
export const TOKEN = "test-pairing-token";
/** The tools src/tools.json defines, by name: what a client without views sees. */
export const TOOL_NAMES = JSON.parse(readFileSync(join(ROOT, "src", "tools.json"), "utf8"))
  .map((/** @type {{ name: string }} */ tool) => tool.name)
  .sort();
/** The URL the server's error tells the person to open. */
export const OPEN_URL = /open http:\/\/127\.0\.0\.1:\d+\/\?relay=\d+&pair=\S+ in a browser/;
/** The protocol revisions of the two generations the server speaks. */
export const LEGACY_REVISION = "2025-11-25";
export const MODERN_REVISION = "2026-07-28";

/**
 * Starts the server with Streamable HTTP (`command`: how to run it, the
 * checkout's by default); resolves once it listens.
 *
 * @param {{ args?: string[], command?: string[], env?: Record<string, string>, cwd?: string }} [options]
 * @returns {Promise<{ url: string, mcpUrl: string, tabUrl: string, log: string[], stop: () => Promise<void> }>}
 */
export function startHttpServer({ args = [], command = [process.execPath, SERVER], env = {}, cwd } = {}) {
  const [program, ...before] = command;
  const child = spawn(program, [...before, "--http", "--port", "0", ...args], {
    env: { ...process.env, SANDPIT_PAIRING_TOKEN: TOKEN, ...env },
    stdio: ["ignore", "ignore", "pipe"],
    cwd,
  });
  /** @type {string[]} */
  const log = [];
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let buffered = "";
    /** @type {string | null} */
    let tabUrl = null;
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        log.push(line);
        tabUrl ??= tabUrlIn(line);
        const mcpUrl = line.match(/Streamable HTTP at (http:\S+)/)?.[1];
        if (mcpUrl && tabUrl) resolve({ url: new URL("/", mcpUrl).href, mcpUrl, tabUrl, log, stop });
      }
    });
    child.once("exit", (code) => reject(new Error(`the MCP server exited (${code}): ${log.join("\n")}`)));
  });
}

/**
 * The URL a line of the server's log tells the person to open, if it does.
 *
 * @param {string} line
 */
export function tabUrlIn(line) {
  return line.match(/open (http:\S+)/)?.[1] ?? null;
}

/**
 * Calls a tool with request options (timeout, progress, signal) on either
 * official SDK's client: v1's callTool takes a result schema before them.
 *
 * @param {any} client
 * @param {{ name: string, arguments?: Record<string, unknown> }} params
 * @param {Record<string, unknown>} [options]
 * @returns {Promise<any>}
 */
export function callTool(client, params, options = {}) {
  return typeof client.getProtocolEra === "function" ? client.callTool(params, options) : client.callTool(params, undefined, options);
}

/**
 * What a client without views meets when no tab is open: the three tools
 * only, and a call as a stranger's client makes it (no timeout_seconds)
 * that ends at the server's wait, `waitSeconds`, with the URL to open.
 * Resolves to that error's text.
 *
 * @param {any} client an official SDK client, either generation
 * @param {number} waitSeconds
 * @returns {Promise<string>}
 */
export async function assertToldWhatToOpen(client, waitSeconds) {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((/** @type {{ name: string }} */ tool) => tool.name).sort(),
    TOOL_NAMES,
    "no app-only tools for a client that shows no views",
  );
  const result = await callTool(client, { name: "run_python", arguments: { code: "print(1)" } }, { timeout: 60_000 });
  assert.equal(result.isError, true);
  const text = result.content[0].text;
  assert.match(text, new RegExp(`nothing took this call within ${waitSeconds} s: .*no Sandpit tab is connected`));
  assert.match(text, OPEN_URL);
  return text;
}

/** The host's side, bundled for the browser: AppBridge and the SDK client. */
async function hostBundle() {
  const { outputFiles } = await build({
    stdin: {
      contents: `
        import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";
        import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
        window.kit = { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, Client, StreamableHTTPClientTransport };
      `,
      resolveDir: ROOT,
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  return outputFiles[0].text;
}

/**
 * The sandbox proxy a host frames views through: it receives the view's HTML
 * from the host, frames it with the sandbox flags the host chose and a CSP
 * built from the resource's `_meta.ui.csp`, and relays messages between the
 * two, each only from the frame it belongs to.
 */
const PROXY_PAGE = `<!doctype html><meta charset="utf-8"><title>proxy</title><body><script>
  let inner = null;
  const list = (domains) => (domains ?? []).join(" ");
  const policy = (csp = {}) => [
    "default-src 'none'",
    "script-src 'unsafe-inline' " + list(csp.resourceDomains),
    "style-src 'unsafe-inline' " + list(csp.resourceDomains),
    "img-src data: " + list(csp.resourceDomains),
    "font-src " + (list(csp.resourceDomains) || "'none'"),
    "connect-src " + (list(csp.connectDomains) || "'none'"),
    "frame-src " + (list(csp.frameDomains) || "'none'"),
    "base-uri 'none'",
  ].join("; ");
  addEventListener("message", (event) => {
    if (event.source === parent) {
      const message = event.data;
      if (message?.method === "ui/notifications/sandbox-resource-ready") {
        const { html, sandbox, csp } = message.params;
        inner = document.createElement("iframe");
        inner.setAttribute("sandbox", sandbox);
        inner.style.cssText = "border: 0; width: 100%; height: 400px";
        const meta = '<meta http-equiv="Content-Security-Policy" content="' + policy(csp) + '">';
        inner.srcdoc = html.replace("<head>", "<head>" + meta);
        document.body.append(inner);
        return;
      }
      inner?.contentWindow?.postMessage(message, "*");
    } else if (inner && event.source === inner.contentWindow) {
      parent.postMessage(event.data, "*");
    }
  });
  parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, "*");
</script></body>`;

/**
 * The chat host: connects (in the 2025-11-25 generation, or pinned to
 * 2026-07-28), calls a tool, shows its view, answers the view's calls, can cancel.
 */
const HOST_SCRIPT = `
  const { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, Client, StreamableHTTPClientTransport } = window.kit;
  window.host = {
    async connect(mcpUrl, revision) {
      const versionNegotiation = revision === "${MODERN_REVISION}" ? { mode: { pin: revision } } : undefined;
      this.client = new Client(
        { name: "test-chat-host", version: "1.0.0" },
        { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } }, versionNegotiation },
      );
      await this.client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
      return this.client.getNegotiatedProtocolVersion?.() ?? null;
    },
    async toolNames() {
      const { tools } = await this.client.listTools();
      return tools.map((tool) => tool.name);
    },
    call(name, args, { proxyUrl, sandbox }) {
      const client = this.client;
      const abort = new AbortController();
      const outcome = (async () => {
        const { tools } = await client.listTools();
        const tool = tools.find((t) => t.name === name);
        const { contents: [resource] } = await client.readResource({ uri: tool._meta.ui.resourceUri });
        const iframe = document.createElement("iframe");
        iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
        iframe.style.cssText = "border: 0; width: 100%; height: 420px";
        iframe.src = proxyUrl;
        const bridge = new AppBridge(client, { name: "test-chat-host", version: "1.0.0" }, { serverTools: {} }, {
          hostContext: { toolInfo: { tool } },
        });
        bridge.onsandboxready = () =>
          bridge.sendSandboxResourceReady({ html: resource.text, sandbox, csp: resource._meta?.ui?.csp });
        const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
        document.body.append(iframe);
        await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
        const progress = [];
        const calling = client.callTool(
          { name, arguments: args },
          { signal: abort.signal, timeout: 120000, onprogress: (update) => progress.push(update) },
        );
        this.cancel = () => {
          abort.abort("the person pressed stop");
          bridge.sendToolCancelled({ reason: "the person pressed stop" });
        };
        await initialized;
        await bridge.sendToolInput({ arguments: args });
        try {
          const result = await calling;
          await bridge.sendToolResult(result);
          return { result, progress, csp: resource._meta?.ui?.csp, mimeType: resource.mimeType };
        } catch (error) {
          return { error: String(error?.message ?? error) };
        }
      })();
      this.pending = outcome;
      return outcome;
    },
  };
`;

const HOST_PAGE = `<!doctype html><meta charset="utf-8"><title>chat host</title><body>
<script type="module" src="/kit.js"></script><script type="module" src="/host.js"></script></body>`;

/**
 * Serves the chat host's page and the sandbox proxy, each on an origin of its own.
 *
 * @returns {Promise<{ hostUrl: string, proxyUrl: string, close: () => Promise<void> }>}
 */
export async function serveChatHost() {
  const hostSite = await serveDemo({
    files: {
      "/host.html": { type: "text/html", body: HOST_PAGE },
      "/kit.js": { type: "text/javascript", body: await hostBundle() },
      "/host.js": { type: "text/javascript", body: HOST_SCRIPT },
    },
  });
  const proxySite = await serveDemo({ files: { "/proxy.html": { type: "text/html", body: PROXY_PAGE } } });
  return {
    hostUrl: new URL("host.html", hostSite.url).href,
    proxyUrl: new URL("proxy.html", proxySite.url).href,
    close: async () => {
      await hostSite.close();
      await proxySite.close();
    },
  };
}

/**
 * A chat host page in a browser context of its own, connected to the server
 * at `mcpUrl` in the generation of `revision`; page errors are collected.
 *
 * @param {import("playwright-core").Browser} browser
 * @param {{ hostUrl: string, proxyUrl: string }} site
 * @param {string} mcpUrl
 * @param {string} [revision]
 */
export async function openHost(browser, site, mcpUrl, revision = LEGACY_REVISION) {
  const context = await browser.newContext();
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(site.hostUrl);
  await page.waitForFunction(() => "host" in window && "kit" in window);
  const negotiated = await page.evaluate(
    ({ mcpUrl, revision }) => /** @type {any} */ (window).host.connect(mcpUrl, revision),
    { mcpUrl, revision },
  );
  return {
    page,
    errors,
    negotiated,
    close: () => context.close(),
    /**
     * Calls `name` through the host, its view framed with `sandbox`.
     *
     * @param {string} name
     * @param {object} args
     * @param {string} sandbox
     * @returns {Promise<any>}
     */
    call: (name, args, sandbox) =>
      page.evaluate(
        ({ name, args, proxyUrl, sandbox }) => /** @type {any} */ (window).host.call(name, args, { proxyUrl, sandbox }),
        { name, args, proxyUrl: site.proxyUrl, sandbox },
      ),
    /** @returns {Promise<string[]>} */
    toolNames: () => page.evaluate(() => /** @type {any} */ (window).host.toolNames()),
  };
}
