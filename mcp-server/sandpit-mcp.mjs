#!/usr/bin/env node
// @ts-check
// Sandpit's local MCP server. It serves run_python, check_python and
// reset_session (src/tools.json, generated from src/tools.rs) and runs no
// Python itself: each call shows an MCP App view that runs the code in the
// user's browser, or, for clients without views, goes to a paired Sandpit
// tab over a loopback WebSocket.
//
//   node mcp-server/sandpit-mcp.mjs                 stdio (desktop clients)
//   node mcp-server/sandpit-mcp.mjs --http          also Streamable HTTP at http://127.0.0.1:<port>/mcp
//
// Options: --port N (9334; the bundle, the tab's WebSocket and /mcp share it),
// --bundle-url URL or SANDPIT_BUNDLE_URL (a Sandpit deployment for views and
// tabs, instead of the bundle this server serves from dist/), --dist DIR,
// --allow-origin ORIGIN (more pages a tab may connect from; repeatable),
// SANDPIT_PAIRING_TOKEN (a fixed pairing token instead of a new one per start).
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { getUiCapability, registerAppResource, registerAppTool, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { PROGRESS_STREAM_META } from "../www/generated/names.js";
import { fromJsonSchema, McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

import { bundleHandler } from "./lib/bundle.mjs";
import { Calls } from "./lib/calls.mjs";
import { Tabs } from "./lib/tabs.mjs";
import { viewCsp, viewHtml } from "./lib/view.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");
const VERSION = JSON.parse(readFileSync(join(HERE, "package.json"), "utf8")).version;
/** The tools, as every surface offers them. */
const TOOLS = JSON.parse(readFileSync(join(ROOT, "src", "tools.json"), "utf8"));
/** The app-only tools a view hands its work back with. */
export const CLAIM_TOOL = "sandpit_view_claim";
export const RESULT_TOOL = "sandpit_view_result";
export const OUTPUT_TOOL = "sandpit_view_output";
const DEFAULT_PORT = 9334;

const { values: options } = parseArgs({
  options: {
    http: { type: "boolean", default: false },
    port: { type: "string" },
    "bundle-url": { type: "string" },
    dist: { type: "string" },
    "allow-origin": { type: "string", multiple: true, default: [] },
  },
});

const log = (/** @type {string} */ line) => process.stderr.write(`sandpit-mcp: ${line}\n`);
const token = process.env.SANDPIT_PAIRING_TOKEN || randomBytes(12).toString("base64url");
const serveBundle = await bundleHandler(resolve(options.dist ?? join(ROOT, "dist")));

/** @type {Map<string, WebStandardStreamableHTTPServerTransport>} */
const sessions = new Map();
const tabs = new Tabs({ origins: [], token, log });
const http = createServer((request, response) => {
  handle(request, response).catch((error) => {
    log(`request failed: ${error?.stack ?? error}`);
    if (!response.headersSent) response.writeHead(500);
    response.end();
  });
});
http.on("upgrade", (request, stream) => tabs.upgrade(request, stream));
const port = await listen(Number(options.port ?? DEFAULT_PORT));
const local = `http://127.0.0.1:${port}`;
const bundleUrl = withSlash(options["bundle-url"] ?? process.env.SANDPIT_BUNDLE_URL ?? `${local}/`);
if (!serveBundle && bundleUrl.startsWith(local)) {
  log(`no built bundle in dist/: run \`make build\`, or give --bundle-url`);
}
tabs.origins = [...new Set([local, new URL(bundleUrl).origin, ...options["allow-origin"]])];
const tabUrl = `${bundleUrl}?relay=${port}&pair=${token}`;
const calls = new Calls({ tabs, openUrl: () => tabUrl });
log(`views run code with ${bundleUrl}; for clients without views open ${tabUrl}`);
if (options.http) log(`Streamable HTTP at ${local}/mcp`);

if (!options.http) {
  await newServer().connect(new StdioServerTransport());
}

const stop = () => {
  tabs.close();
  http.close();
  http.closeAllConnections();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// A stdio server ends with its client.
if (!options.http) process.stdin.on("end", stop);

/** One MCP server per client session; all share the calls and the tabs. */
function newServer() {
  const server = new McpServer(
    { name: "sandpit", title: "Sandpit", version: VERSION },
    { capabilities: { tools: {}, resources: {}, logging: {} } },
  );
  const showsViews = () =>
    getUiCapability(server.server.getClientCapabilities())?.mimeTypes?.includes(RESOURCE_MIME_TYPE) ?? false;

  for (const tool of TOOLS) {
    const uri = `ui://sandpit/${tool.name}.html`;
    registerAppTool(
      server,
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: fromJsonSchema(tool.inputSchema),
        outputSchema: fromJsonSchema(tool.outputSchema),
        annotations: tool.annotations,
        _meta: { ui: { resourceUri: uri } },
      },
      /** @type {any} */ (
        async (/** @type {Record<string, any>} */ args, /** @type {import("@modelcontextprotocol/server").ServerContext} */ ctx) =>
          await calls.call(tool.name, args, { views: showsViews(), signal: ctx.mcpReq.signal, onOutput: streamTo(ctx) })
      ),
    );
    registerAppResource(
      server,
      `Sandpit: ${tool.title}`,
      uri,
      { description: `Runs ${tool.name} in Sandpit in the browser and shows it.` },
      async () => ({
        contents: [
          {
            uri,
            mimeType: RESOURCE_MIME_TYPE,
            text: await viewHtml(tool.name, bundleUrl),
            _meta: { ui: { csp: viewCsp(bundleUrl), prefersBorder: true } },
          },
        ],
      }),
    );
  }

  const appOnly = { resourceUri: `ui://sandpit/run_python.html`, visibility: /** @type {"app"[]} */ (["app"]) };
  registerAppTool(
    server,
    CLAIM_TOOL,
    {
      description: "Sandpit's view takes the tool call it was shown for.",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: { tool: { type: "string" }, arguments: { type: "object" } },
        required: ["tool", "arguments"],
      }),
      _meta: { ui: appOnly },
    },
    /** @type {any} */ (
      async (/** @type {{ tool: string, arguments: Record<string, any> }} */ { tool, arguments: args }) => {
        const claimed = calls.claim(tool, args);
        return {
          content: [{ type: "text", text: claimed ? "claimed" : "no such call is waiting" }],
          structuredContent: claimed ?? { call: null, replay: [] },
        };
      }
    ),
  );
  registerAppTool(
    server,
    OUTPUT_TOOL,
    {
      description: "Sandpit's view hands on output of the call it claimed, as the code writes it.",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: { call: { type: "string" }, stream: { enum: ["stdout", "stderr"] }, text: { type: "string" } },
        required: ["call", "stream", "text"],
      }),
      _meta: { ui: appOnly },
    },
    /** @type {any} */ (
      async (/** @type {{ call: string, stream: "stdout" | "stderr", text: string }} */ { call, stream, text }) => {
        const accepted = calls.output(call, stream, text);
        return { content: [{ type: "text", text: accepted ? "accepted" : "no such call is waiting" }] };
      }
    ),
  );
  registerAppTool(
    server,
    RESULT_TOOL,
    {
      description: "Sandpit's view hands back the result of the call it claimed.",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: {
          call: { type: "string" },
          result: {
            type: "object",
            properties: { content: { type: "array" }, structuredContent: { type: "object" }, isError: { type: "boolean" } },
            required: ["content"],
          },
        },
        required: ["call", "result"],
      }),
      _meta: { ui: appOnly },
    },
    /** @type {any} */ (
      async (/** @type {{ call: string, result: any }} */ { call, result }) => {
        const { content, structuredContent, isError } = result;
        const accepted = calls.complete(call, { content, structuredContent, isError: isError === true });
        return { content: [{ type: "text", text: accepted ? "accepted" : "no such call is waiting" }] };
      }
    ),
  );
  return server;
}

/**
 * Sends a call's output to its client as the browser writes it, as the
 * widget does: notifications/message (logger "stdout" or "stderr", within the
 * client's logging level) and, when the call has a progress token, the
 * message of notifications/progress, whose `_meta` names the stream.
 *
 * @param {import("@modelcontextprotocol/server").ServerContext} ctx
 * @returns {import("./lib/calls.mjs").OnOutput}
 */
function streamTo(ctx) {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  let progress = 0;
  const sent = (/** @type {Promise<void>} */ sending) => sending.catch(() => {
    // The client went away: the call's result will find nobody either.
  });
  return (stream, text) => {
    sent(ctx.mcpReq.log("info", { requestId: ctx.mcpReq.id, stream, text }, stream));
    if (progressToken === undefined) return;
    progress += 1;
    const params = { progressToken, progress, message: text, _meta: { [PROGRESS_STREAM_META]: stream } };
    sent(ctx.mcpReq.notify({ method: "notifications/progress", params }));
  };
}

/**
 * Serves /mcp (Streamable HTTP, with --http) and the bundle.
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
  if (url.pathname === "/mcp" && options.http) {
    await handleMcp(request, response);
    return;
  }
  if (serveBundle && (request.method === "GET" || request.method === "HEAD")) {
    await serveBundle(request, response);
    return;
  }
  response.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
}

/**
 * Streamable HTTP: one transport per MCP session. Browsers may call it only
 * from loopback pages (and the --allow-origin ones), so a web page cannot.
 *
 * @param {import("node:http").IncomingMessage} request
 * @param {import("node:http").ServerResponse} response
 */
async function handleMcp(request, response) {
  const origin = request.headers.origin;
  if (origin !== undefined && !loopbackOrigin(origin) && !options["allow-origin"].includes(origin)) {
    response.writeHead(403).end("origin not allowed");
    return;
  }
  /** @type {Record<string, string>} */
  const cors = origin
    ? {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": "GET, POST, DELETE",
        "Access-Control-Allow-Headers": "content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id",
        "Access-Control-Expose-Headers": "mcp-session-id, mcp-protocol-version",
        Vary: "Origin",
      }
    : {};
  if (request.method === "OPTIONS") {
    response.writeHead(204, cors).end();
    return;
  }
  const id = request.headers["mcp-session-id"];
  let transport = typeof id === "string" ? sessions.get(id) : undefined;
  if (!transport) {
    const fresh = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, fresh),
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    await newServer().connect(fresh);
    transport = fresh;
  }
  const body = request.method === "POST" ? await readBody(request) : undefined;
  const abort = new AbortController();
  response.on("close", () => abort.abort());
  const webResponse = await transport.handleRequest(
    new Request(new URL(request.url ?? "/", local), {
      method: request.method,
      headers: /** @type {Record<string, string>} */ (request.headers),
      body,
      signal: abort.signal,
    }),
  );
  response.writeHead(webResponse.status, { ...Object.fromEntries(webResponse.headers), ...cors });
  if (!webResponse.body) {
    response.end();
    return;
  }
  try {
    for await (const chunk of /** @type {AsyncIterable<Uint8Array>} */ (/** @type {unknown} */ (webResponse.body))) {
      response.write(chunk);
    }
  } catch {
    // The client went away mid-stream.
  }
  response.end();
}

/** @param {import("node:http").IncomingMessage} request */
async function readBody(request) {
  /** @type {Buffer[]} */
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** @param {string | undefined} host */
function loopbackHost(host) {
  return host !== undefined && /^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(host);
}

/** @param {string} origin */
function loopbackOrigin(origin) {
  return /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(origin);
}

/** @param {string} url */
function withSlash(url) {
  return url.endsWith("/") ? url : `${url}/`;
}

/**
 * Listens on 127.0.0.1:`wanted`, or on a free port when that one is taken
 * (another client started its own server): the URLs it prints say which.
 *
 * @param {number} wanted
 * @returns {Promise<number>}
 */
function listen(wanted) {
  return new Promise((resolvePort, reject) => {
    const onError = (/** @type {NodeJS.ErrnoException} */ error) => {
      if (error.code !== "EADDRINUSE" || wanted === 0) return reject(error);
      http.off("error", onError);
      listen(0).then(resolvePort, reject);
    };
    http.once("error", onError);
    http.listen(wanted, "127.0.0.1", () => {
      http.off("error", onError);
      const address = http.address();
      resolvePort(typeof address === "object" && address ? address.port : wanted);
    });
  });
}
