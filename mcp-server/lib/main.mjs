// @ts-check
// The local MCP server's start: options, the loopback HTTP server (the
// bundle, the tabs' WebSocket, and /mcp with --http), and stdio. Both
// entries call it: sandpit-mcp.mjs from a checkout, and the package's.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { resolve } from "node:path";
import { parseArgs } from "node:util";

import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { CLIENT_CAPABILITIES_META_KEY } from "@modelcontextprotocol/server";

import { bundleHandler } from "./bundle.mjs";
import { Calls, DEFAULT_WAIT_SECONDS } from "./calls.mjs";
import { McpEndpoint } from "./mcp-http.mjs";
import { newServer, showsViews } from "./server.mjs";
import { Tabs } from "./tabs.mjs";

const DEFAULT_PORT = 9334;

/** What to start with, besides the command line and the environment. */
export const USAGE = `Options: --http (also Streamable HTTP at http://127.0.0.1:<port>/mcp), --port N (${DEFAULT_PORT};
the bundle, the tab's WebSocket and /mcp share it), --bundle-url URL or SANDPIT_BUNDLE_URL (a
Sandpit deployment for views and tabs, instead of the bundle this server serves), --dist DIR,
--allow-origin ORIGIN (more pages a tab may connect from; repeatable), --wait-seconds N or
SANDPIT_WAIT_SECONDS (how long a call without timeout_seconds waits for a view or a tab; ${DEFAULT_WAIT_SECONDS}),
SANDPIT_PAIRING_TOKEN (a fixed pairing token instead of a new one per start).`;

/**
 * Starts the server. `dist`: the built bundle it serves; `version`: its own;
 * `viewScript`: the view's bundled script.
 *
 * @param {{ dist: string, version: string, viewScript: () => Promise<string>, args?: string[] }} setup
 */
export async function main({ dist, version, viewScript, args = process.argv.slice(2) }) {
  const { values: options } = parseArgs({
    args,
    options: {
      http: { type: "boolean", default: false },
      port: { type: "string" },
      "bundle-url": { type: "string" },
      dist: { type: "string" },
      "allow-origin": { type: "string", multiple: true, default: [] },
      "wait-seconds": { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (options.help) {
    process.stdout.write(`sandpit-mcp ${version}: Sandpit's MCP server; Python runs in the browser.\n${USAGE}\n`);
    return;
  }
  const log = (/** @type {string} */ line) => process.stderr.write(`sandpit-mcp: ${line}\n`);
  const waitSeconds = Number(options["wait-seconds"] ?? process.env.SANDPIT_WAIT_SECONDS ?? DEFAULT_WAIT_SECONDS);
  if (!(waitSeconds > 0)) throw new Error(`--wait-seconds must be a number of seconds above 0, not ${options["wait-seconds"]}`);
  const token = process.env.SANDPIT_PAIRING_TOKEN || randomBytes(12).toString("base64url");
  const serveBundle = await bundleHandler(resolve(options.dist ?? dist));

  const tabs = new Tabs({ origins: [], token, log });
  /** @type {McpEndpoint | null} */
  let mcp = null;
  const http = createServer((request, response) => {
    handle(request, response).catch((error) => {
      log(`request failed: ${error?.stack ?? error}`);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  http.on("upgrade", (request, stream, head) => tabs.upgrade(request, stream, head));
  const port = await listen(http, Number(options.port ?? DEFAULT_PORT));
  const local = `http://127.0.0.1:${port}`;
  const bundleUrl = withSlash(options["bundle-url"] ?? process.env.SANDPIT_BUNDLE_URL ?? `${local}/`);
  if (!serveBundle && bundleUrl.startsWith(local)) {
    log(`no built bundle in ${options.dist ?? dist}: run \`make build\`, or give --bundle-url`);
  }
  tabs.origins = [...new Set([local, new URL(bundleUrl).origin, ...options["allow-origin"]])];
  const tabUrl = `${bundleUrl}?relay=${port}&pair=${token}`;
  const calls = new Calls({ tabs, openUrl: () => tabUrl, waitSeconds });
  let script = /** @type {Promise<string> | null} */ (null);
  const shared = { calls, bundleUrl, version, viewScript: () => (script ??= viewScript()) };
  log(`views run code with ${bundleUrl}; for clients without views open ${tabUrl}`);
  if (options.http) {
    mcp = new McpEndpoint({ newServer: (client) => newServer(shared, client), allowOrigins: options["allow-origin"], log });
    log(`Streamable HTTP at ${local}/mcp`);
  }

  /** @type {{ close: () => Promise<void> } | null} */
  let stdio = null;
  if (!options.http) stdio = serveOverStdio((client) => newServer(shared, client));

  const stop = async () => {
    tabs.close();
    http.close();
    http.closeAllConnections();
    await Promise.allSettled([mcp?.close(), stdio?.close()]);
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // A stdio server ends with its client.
  if (!options.http) process.stdin.on("end", stop);

  /**
   * Serves /mcp (with --http) and the bundle, to loopback names only.
   *
   * @param {import("node:http").IncomingMessage} request
   * @param {import("node:http").ServerResponse} response
   */
  async function handle(request, response) {
    const url = new URL(request.url ?? "/", local);
    if (!loopbackHost(request.headers.host)) {
      // A page on another site whose name points at 127.0.0.1 (DNS rebinding) gets nothing.
      response.writeHead(421).end("misdirected request");
      return;
    }
    if (url.pathname === "/mcp" && mcp) {
      await mcp.handle(request, response, url);
      return;
    }
    if (serveBundle && (request.method === "GET" || request.method === "HEAD")) {
      await serveBundle(request, response);
      return;
    }
    response.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
  }
}

/**
 * Serves stdio, either generation: serveStdio makes the connection's server
 * when its first message comes, which declares the client's capabilities
 * (`initialize`'s, or a 2026-07-28 request's envelope); they are noted as
 * each message arrives, so the server knows whether the client shows views.
 *
 * @param {(client: { era: "legacy" | "modern", views: boolean }) => import("@modelcontextprotocol/server").McpServer} make
 */
function serveOverStdio(make) {
  /** @type {unknown} */
  let capabilities;
  const wire = new StdioServerTransport();
  const handle = serveStdio(({ era }) => make({ era, views: showsViews(capabilities) }), { transport: wire });
  const deliver = wire.onmessage;
  wire.onmessage = (message) => {
    const params = /** @type {{ params?: { capabilities?: unknown, _meta?: Record<string, unknown> } }} */ (message).params;
    capabilities = params?._meta?.[CLIENT_CAPABILITIES_META_KEY] ?? params?.capabilities ?? capabilities;
    deliver?.(message);
  };
  return handle;
}

/** @param {string | undefined} host */
function loopbackHost(host) {
  return host !== undefined && /^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(host);
}

/** @param {string} url */
function withSlash(url) {
  return url.endsWith("/") ? url : `${url}/`;
}

/**
 * Listens on 127.0.0.1:`wanted`, or on a free port when that one is taken
 * (another client started its own server): the URLs it prints say which.
 *
 * @param {import("node:http").Server} http
 * @param {number} wanted
 * @returns {Promise<number>}
 */
function listen(http, wanted) {
  return new Promise((resolvePort, reject) => {
    const onError = (/** @type {NodeJS.ErrnoException} */ error) => {
      if (error.code !== "EADDRINUSE" || wanted === 0) return reject(error);
      http.off("error", onError);
      listen(http, 0).then(resolvePort, reject);
    };
    http.once("error", onError);
    http.listen(wanted, "127.0.0.1", () => {
      http.off("error", onError);
      const address = http.address();
      resolvePort(typeof address === "object" && address ? address.port : wanted);
    });
  });
}
