// @ts-check
// Sandpit's local MCP server with clients that show no views, over
// Streamable HTTP, in both protocol generations: the official SDK's v1
// client (2025-11-25) and its v2 client pinned to 2026-07-28. What they see
// is the three tools; their calls go to a paired Sandpit tab (the real built
// app, in headless Chromium) over the server's WebSocket, or end at their
// wait with the URL to open. Also: refused tabs, and what is too large.
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, test } from "node:test";

import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import WebSocket from "ws";

import { DIST } from "./harness.mjs";
import { launchChromium } from "./harness/browser.mjs";
import { RUN_TIMEOUT_MS } from "./harness/timeouts.mjs";
import { assertToldWhatToOpen, callTool, LEGACY_REVISION, MODERN_REVISION, serveChatHost, startHttpServer, TOKEN, TOOL_NAMES } from "./mcp-app-harness.mjs";

/** The server's wait for a tab when a call does not say, set short for these tests. */
const WAIT_SECONDS = 2;

/** @type {Awaited<ReturnType<typeof startHttpServer>>} */
let server;
/** @type {import("playwright-core").Browser} */
let browser;

before(async () => {
  server = await startHttpServer({ args: ["--dist", DIST], env: { SANDPIT_WAIT_SECONDS: String(WAIT_SECONDS) } });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * A client of each generation that declares no MCP Apps support, and the
 * revision it negotiated.
 */
const GENERATIONS = {
  [LEGACY_REVISION]: async () => {
    const client = new Client({ name: "plain-client", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl));
    await client.connect(transport);
    return { client: /** @type {any} */ (client), revision: transport.protocolVersion };
  },
  [MODERN_REVISION]: async () => {
    const client = new ModernClient(
      { name: "plain-client", version: "2.0.0" },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    await client.connect(new ModernTransport(new URL(server.mcpUrl)));
    return { client: /** @type {any} */ (client), revision: client.getNegotiatedProtocolVersion() };
  },
};

for (const [generation, connect] of Object.entries(GENERATIONS)) {
  describe(`a client without views, protocol ${generation}`, () => {
    test("sees the three tools, and with no tab a call ends at its wait naming the URL to open", async () => {
      const { client, revision } = await connect();
      try {
        assert.equal(revision, generation);
        const told = await assertToldWhatToOpen(client, WAIT_SECONDS);
        assert.ok(told.includes(server.tabUrl), told);
        assert.ok(server.tabUrl.includes(`pair=${TOKEN}`));
        const stated = await client.callTool({ name: "run_python", arguments: { code: "1", timeout_seconds: 1 } });
        assert.match(stated.content[0].text, /nothing took this call within 1 s/);
        const app = await client.callTool({ name: "sandpit_view_claim", arguments: { tool: "run_python", arguments: {} } }).catch(
          (/** @type {Error} */ error) => ({ isError: true, content: [{ text: error.message }] }),
        );
        assert.equal(app.isError, true, "the app-only tools are not there to call either");
        assert.match(app.content[0].text, /not found/i);
      } finally {
        await client.close();
      }
    });

    test("with a paired tab, the tab runs the call, its output streams as progress, and a cancel reaches it", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
      const context = await browser.newContext();
      const { client } = await connect();
      try {
        const tab = await context.newPage();
        await tab.goto(server.tabUrl);
        await tab.locator('[data-testid="relay-state"][data-state="connected"]').waitFor({ timeout: RUN_TIMEOUT_MS });
        assert.match(
          (await tab.locator('[data-testid="relay-state"]').getAttribute("title")) ?? "",
          new RegExp(`pairing token ${TOKEN}`),
          "the tab shows the pairing token",
        );
        /** @type {any[]} */
        const progress = [];
        const result = await callTool(client, { name: "run_python", arguments: { code: "print('in the tab')\n2 ** 10" } }, {
          timeout: RUN_TIMEOUT_MS,
          onprogress: (/** @type {any} */ update) => progress.push(update),
        });
        assert.equal(result.isError, false, JSON.stringify(result.content));
        assert.equal(result.structuredContent.stdout, "in the tab\n");
        assert.equal(result.structuredContent.value.repr, "1024");
        assert.deepEqual(
          progress.map((update) => [update._meta?.["sandpit/stream"], update.message]),
          [["stdout", "in the tab\n"]],
          "the tab's output reached the client as progress",
        );

        const stop = new AbortController();
        const slow = callTool(
          client,
          { name: "run_python", arguments: { code: "import time\nfor i in range(600):\n    time.sleep(0.1)" } },
          { signal: stop.signal, timeout: RUN_TIMEOUT_MS },
        ).catch((/** @type {Error} */ error) => error.message);
        await tab.locator('[data-testid="run-entry"][data-phase="running"]').waitFor({ timeout: RUN_TIMEOUT_MS });
        stop.abort("enough");
        await slow;
        await tab.locator('[data-testid="run-entry"][data-phase="cancelled"]').waitFor({ timeout: RUN_TIMEOUT_MS });
      } finally {
        await client.close();
        await context.close();
      }
    });
  });
}

describe("the server's guards", () => {
  test("a tab with the wrong token, or from an origin not allowed, is refused", { timeout: RUN_TIMEOUT_MS }, async () => {
    const site = await serveChatHost();
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      await tab.goto(server.tabUrl.replace(`pair=${TOKEN}`, "pair=guessed"));
      await tab.locator('[data-testid="relay-state"]').waitFor();
      const refused = () => server.log.some((line) => line.includes("wrong or missing pairing token"));
      while (!refused()) await tab.waitForTimeout(100);

      // A page elsewhere (the chat host's origin) opens the same socket with the right token.
      const port = new URL(server.url).port;
      const page = await context.newPage();
      await page.goto(site.hostUrl);
      const closed = await page.evaluate(
        ({ port, token }) =>
          new Promise((resolve) => {
            const socket = new WebSocket(`ws://127.0.0.1:${port}`, ["webmcp.v1"]);
            socket.onmessage = () => socket.send(JSON.stringify({ type: "hello", token }));
            socket.onclose = (event) => resolve({ code: event.code });
          }),
        { port, token: TOKEN },
      );
      assert.equal(/** @type {any} */ (closed).code, 1006, "the handshake itself is refused");
      assert.ok(server.log.some((line) => line.includes(`refused a tab from ${new URL(site.hostUrl).origin}`)));
    } finally {
      await context.close();
      await site.close();
    }
  });

  test("a request body or a tab's message over the limit is refused, and the server stays up", async () => {
    // 200 MB declared: answered 413 before any of it is sent.
    const declared = await post(server.mcpUrl, { "Content-Length": String(200 * 1024 * 1024) }, 0);
    assert.equal(declared, 413);
    // A body of no declared length, sent until the server answers.
    const streamed = await post(server.mcpUrl, { "Transfer-Encoding": "chunked" }, 200 * 1024 * 1024);
    assert.equal(streamed, 413);

    // A paired tab's message over the limit closes its socket with 1009.
    const socket = new WebSocket(`ws://127.0.0.1:${new URL(server.url).port}`, ["webmcp.v1"], { origin: new URL(server.url).origin });
    const code = await new Promise((resolve, reject) => {
      socket.once("message", () => {
        socket.send(JSON.stringify({ type: "hello", token: TOKEN }));
        socket.send(Buffer.alloc(65 * 1024 * 1024, 0x20), { binary: false });
      });
      socket.once("close", resolve);
      socket.once("error", () => {});
      setTimeout(() => reject(new Error("the socket stayed open")), 30_000).unref();
    });
    assert.equal(code, 1009);

    const { client } = await GENERATIONS[LEGACY_REVISION]();
    try {
      assert.equal((await client.listTools()).tools.length, TOOL_NAMES.length, "the server still answers");
    } finally {
      await client.close();
    }
  });
});

/**
 * POSTs to `url` with `headers`, writing up to `bytes` of JSON-looking
 * filler until the server answers; resolves to the answer's status.
 *
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {number} bytes
 * @returns {Promise<number>}
 */
function post(url, headers, bytes) {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    });
    let answered = false;
    request.on("response", (response) => {
      answered = true;
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    // Writing on after the server closed the connection fails: the answer came first.
    request.on("error", (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const write = () => {
      while (!answered && sent < bytes) {
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once("drain", write);
      }
      if (bytes === 0) request.flushHeaders();
    };
    write();
  });
}
