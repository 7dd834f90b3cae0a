// @ts-check
// Sandpit's local MCP server as desktop clients start it, over stdio: the
// official MCP SDK's v1 client (protocol 2025-11-25), its v2 client pinned to
// 2026-07-28, with and without MCP Apps support, and Python's MCP SDK
// (installed by `make setup-test` into .cache/mcp-python). No browser: what
// they see is the tools, their views, and the error when nothing can run the code.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { promisify } from "node:util";

import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { assertToldWhatToOpen, LEGACY_REVISION, MODERN_REVISION, OPEN_URL, ROOT, SERVER } from "./mcp-app-harness.mjs";

const TOOLS = JSON.parse(readFileSync(join(ROOT, "src", "tools.json"), "utf8"));
const PYTHON_MCP = join(ROOT, ".cache", "mcp-python");
/** The server's wait for a view or a tab when a call does not say, set short for these tests. */
const WAIT_SECONDS = 2;
/** How a desktop client starts it. */
const STDIO = { command: process.execPath, args: [SERVER, "--port", "0"], env: { ...process.env, SANDPIT_WAIT_SECONDS: String(WAIT_SECONDS) } };
/** What a client that shows MCP App views declares. */
const SHOWS_VIEWS = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };
const APP_ONLY = ["sandpit_view_claim", "sandpit_view_output", "sandpit_view_result"];

describe("the local MCP server over stdio", () => {
  test("offers a client with views the tools as src/tools.json defines them, each with its view, and the app-only tools", async () => {
    const client = new ModernClient({ name: "stdio-views", version: "1.0.0" }, { capabilities: SHOWS_VIEWS });
    // Closing the client ends the server: stdin closes and it exits.
    await client.connect(new ModernStdioTransport({ ...STDIO, stderr: "ignore" }));
    try {
      const { tools } = await client.listTools();
      for (const defined of TOOLS) {
        const offered = tools.find((tool) => tool.name === defined.name);
        assert.ok(offered, `${defined.name} is offered`);
        assert.equal(offered.description, defined.description);
        // MCP's hints; the SDK's server keeps no other (WebMCP's untrustedContentHint is the page's).
        const { untrustedContentHint: _, ...mcpHints } = defined.annotations;
        assert.deepEqual(offered.annotations, mcpHints);
        assert.deepEqual(offered.inputSchema.properties, defined.inputSchema.properties);
        const uri = /** @type {any} */ (offered._meta).ui.resourceUri;
        assert.equal(uri, `ui://sandpit/${defined.name}.html`);
        const { contents } = await client.readResource({ uri });
        assert.equal(contents[0].mimeType, "text/html;profile=mcp-app");
        const csp = /** @type {any} */ (contents[0]._meta).ui.csp;
        assert.deepEqual(Object.keys(csp).sort(), ["connectDomains", "frameDomains", "resourceDomains"]);
        assert.deepEqual(csp.connectDomains, []);
        assert.equal(csp.frameDomains.length, 1, "only the Sandpit bundle's origin");
      }
      assert.ok(tools.find((tool) => tool.name === "run_python")?.inputSchema.properties?.tests, "run_python takes tests");
      const appOnly = tools.filter((tool) => /** @type {any} */ (tool._meta)?.ui?.visibility?.includes("app"));
      assert.deepEqual(appOnly.map((tool) => tool.name).sort(), APP_ONLY);
      assert.ok(appOnly.every((tool) => !/** @type {any} */ (tool._meta).ui.visibility.includes("model")));

      // No view comes (this client shows none, though it said it would): the call ends at its wait.
      const result = /** @type {any} */ (await client.callTool({ name: "run_python", arguments: { code: "import json", timeout_seconds: 1 } }));
      assert.equal(result.isError, true);
      assert.match(result.content[0].text, /nothing took this call: no Sandpit view started for this call/);
      assert.match(result.content[0].text, OPEN_URL);
    } finally {
      await client.close();
    }
  });

  for (const [generation, connect] of Object.entries({
    [LEGACY_REVISION]: async () => {
      const client = new Client({ name: "stdio-plain", version: "1.0.0" });
      const transport = new StdioClientTransport({ ...STDIO, stderr: "ignore" });
      // The v1 client hands the negotiated revision to a transport that takes it.
      let revision = "";
      Object.assign(transport, { setProtocolVersion: (/** @type {string} */ version) => (revision = version) });
      await client.connect(transport);
      return { client: /** @type {any} */ (client), revision };
    },
    [MODERN_REVISION]: async () => {
      const client = new ModernClient({ name: "stdio-plain", version: "2.0.0" }, { versionNegotiation: { mode: { pin: MODERN_REVISION } } });
      await client.connect(new ModernStdioTransport({ ...STDIO, stderr: "ignore" }));
      return { client: /** @type {any} */ (client), revision: client.getNegotiatedProtocolVersion() };
    },
  })) {
    test(`a client without views, protocol ${generation}, sees the three tools, and a call without timeout_seconds ends at the server's wait naming the URL`, async () => {
      const { client, revision } = await connect();
      try {
        assert.equal(revision, generation);
        await assertToldWhatToOpen(client, WAIT_SECONDS);
      } finally {
        await client.close();
      }
    });
  }

  test("Python's MCP SDK lists and calls the tools", { skip: !existsSync(PYTHON_MCP) && "run `make setup-test` first" }, async () => {
    const { stdout } = await promisify(execFile)("python3", [join(ROOT, "tests/python-mcp/client.py"), SERVER, "print('hi')"], {
      env: { ...process.env, PYTHONPATH: PYTHON_MCP, PYTHONDONTWRITEBYTECODE: "1" },
    });
    const seen = JSON.parse(stdout);
    const names = seen.tools.map((/** @type {{ name: string }} */ tool) => tool.name);
    for (const defined of TOOLS) assert.ok(names.includes(defined.name), `${defined.name} in ${names}`);
    const run = seen.tools.find((/** @type {{ name: string }} */ tool) => tool.name === "run_python");
    assert.deepEqual(run.schema.required, ["code"]);
    assert.equal(run.meta.ui.resourceUri, "ui://sandpit/run_python.html");
    assert.equal(seen.isError, true);
    assert.match(seen.text[0], /no Sandpit tab is connected/);
  });
});
