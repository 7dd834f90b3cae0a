// @ts-check
// Streamable HTTP at /mcp for clients of both protocol generations. A
// 2025-11-25 client opens a session with `initialize` and sends its session
// id with every request after; a 2026-07-28 client's requests each stand
// alone, carrying the client's capabilities in their `_meta` envelope
// (createMcpHandler). Browsers may call it only from loopback pages (and the
// --allow-origin ones), so a web page cannot.
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";

import {
  CLIENT_CAPABILITIES_META_KEY,
  createMcpHandler,
  isLegacyRequest,
  readRequestBody,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

import { showsViews } from "./server.mjs";

/**
 * The largest request body taken: a view's result with the most figures and
 * files the runner hands back, or a call with the most input files a run
 * takes, is well under it. A larger one is answered 413 unread.
 */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Makes the server for one client: its protocol generation, and whether it shows views.
 *
 * @typedef {(client: { era: "legacy" | "modern", views: boolean }) => import("@modelcontextprotocol/server").McpServer} NewServer
 */

export class McpEndpoint {
  /**
   * The 2025-11-25 sessions, by id.
   *
   * @type {Map<string, WebStandardStreamableHTTPServerTransport>}
   */
  #sessions = new Map();
  /** The 2026-07-28 handlers: for clients without views, and for clients with them. */
  #modern;

  /**
   * @param {{ newServer: NewServer, allowOrigins: string[], log: (line: string) => void }} options
   */
  constructor({ newServer, allowOrigins, log }) {
    this.newServer = newServer;
    this.allowOrigins = allowOrigins;
    const modern = (/** @type {boolean} */ views) =>
      createMcpHandler(() => newServer({ era: "modern", views }), {
        legacy: "reject",
        maxRequestBodySize: MAX_BODY_BYTES,
        onerror: (error) => log(`a request failed: ${error.message}`),
      });
    this.#modern = { plain: modern(false), views: modern(true) };
  }

  /**
   * Serves one request to /mcp.
   *
   * @param {import("node:http").IncomingMessage} request
   * @param {import("node:http").ServerResponse} response
   * @param {URL} url
   */
  async handle(request, response, url) {
    const origin = request.headers.origin;
    if (origin !== undefined && !loopbackOrigin(origin) && !this.allowOrigins.includes(origin)) {
      response.writeHead(403).end("origin not allowed");
      return;
    }
    const cors = origin ? corsHeaders(origin) : {};
    if (request.method === "OPTIONS") {
      response.writeHead(204, cors).end();
      return;
    }
    const abort = new AbortController();
    response.on("close", () => abort.abort());
    const post = request.method === "POST";
    const web = new Request(url, {
      method: request.method,
      headers: /** @type {Record<string, string>} */ (request.headers),
      body: post ? /** @type {ReadableStream} */ (Readable.toWeb(request)) : undefined,
      signal: abort.signal,
      // @ts-expect-error: Node's fetch needs it for a streamed body; DOM's RequestInit does not know it.
      duplex: "half",
    });
    let parsedBody;
    if (post) {
      const body = await readRequestBody(web, MAX_BODY_BYTES);
      if (body.tooLarge) {
        // Closed after the answer: the rest of the body is never read.
        const message = `Payload Too Large: a request to /mcp may be at most ${MAX_BODY_BYTES} bytes`;
        await send(response, jsonRpcError(413, -32000, message), { ...cors, Connection: "close" });
        return;
      }
      try {
        parsedBody = JSON.parse(body.text);
      } catch {
        await send(response, jsonRpcError(400, -32700, "Parse error: the body is not JSON"), cors);
        return;
      }
    }
    const answer = (await isLegacyRequest(web, parsedBody))
      ? await this.#legacy(web, parsedBody)
      : await this.#modernFor(parsedBody).fetch(web, { parsedBody });
    await send(response, answer, cors);
  }

  /**
   * A 2025-11-25 request: `initialize` opens a session, whose server knows
   * from it whether the client shows views; the rest go to their session.
   *
   * @param {Request} web
   * @param {unknown} parsedBody
   */
  async #legacy(web, parsedBody) {
    const id = web.headers.get("mcp-session-id");
    const known = id === null ? undefined : this.#sessions.get(id);
    if (known) return known.handleRequest(web, { parsedBody });
    const opening = /** @type {{ method?: string, params?: { capabilities?: unknown } } | undefined} */ (parsedBody);
    if (opening?.method !== "initialize") {
      return id === null
        ? jsonRpcError(400, -32000, "Bad Request: no Mcp-Session-Id header, and not an initialize request")
        : jsonRpcError(404, -32001, "Session not found");
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: (sessionId) => void this.#sessions.set(sessionId, transport),
      onsessionclosed: (sessionId) => void this.#sessions.delete(sessionId),
    });
    await this.newServer({ era: "legacy", views: showsViews(opening.params?.capabilities) }).connect(transport);
    return transport.handleRequest(web, { parsedBody });
  }

  /**
   * The 2026-07-28 handler for a request, by the capabilities its envelope declares.
   *
   * @param {unknown} parsedBody
   */
  #modernFor(parsedBody) {
    const meta = /** @type {{ params?: { _meta?: Record<string, unknown> } } | undefined} */ (parsedBody)?.params?._meta;
    return showsViews(meta?.[CLIENT_CAPABILITIES_META_KEY]) ? this.#modern.views : this.#modern.plain;
  }

  /** Ends every session and handler. */
  async close() {
    await Promise.allSettled([
      this.#modern.plain.close(),
      this.#modern.views.close(),
      ...[...this.#sessions.values()].map((transport) => transport.close()),
    ]);
  }
}

/**
 * Writes a web Response to Node's response, streaming its body.
 *
 * @param {import("node:http").ServerResponse} response
 * @param {Response} answer
 * @param {Record<string, string>} extraHeaders
 */
async function send(response, answer, extraHeaders) {
  response.writeHead(answer.status, { ...Object.fromEntries(answer.headers), ...extraHeaders });
  if (!answer.body) {
    response.end();
    return;
  }
  try {
    for await (const chunk of /** @type {AsyncIterable<Uint8Array>} */ (/** @type {unknown} */ (answer.body))) {
      response.write(chunk);
    }
  } catch {
    // The client went away mid-stream.
  }
  response.end();
}

/**
 * A JSON-RPC error as the answer to a request that never reached a server.
 *
 * @param {number} status
 * @param {number} code
 * @param {string} message
 */
function jsonRpcError(status, code, message) {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/** @param {string} origin */
function corsHeaders(origin) {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": "GET, POST, DELETE",
    "Access-Control-Allow-Headers":
      "content-type, accept, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id",
    "Access-Control-Expose-Headers": "mcp-session-id, mcp-protocol-version",
    Vary: "Origin",
  };
}

/** @param {string} origin */
function loopbackOrigin(origin) {
  return /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(origin);
}
