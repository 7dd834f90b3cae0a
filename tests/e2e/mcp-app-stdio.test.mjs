// @ts-check
// Sandpit's local MCP server as desktop clients start it, over stdio: the
// official MCP SDK client, and Python's MCP SDK (installed by `make
// setup-test` into .cache/mcp-python). No browser: what they see is the
// tools, their views, and the error when nothing can run the code.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { promisify } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { ROOT, SERVER } from "./mcp-app-harness.mjs";

const TOOLS = JSON.parse(readFileSync(join(ROOT, "src", "tools.json"), "utf8"));
const PYTHON_MCP = join(ROOT, ".cache", "mcp-python");

describe("the local MCP server over stdio", () => {
  test("offers the tools as src/tools.json defines them, each with its view", async () => {
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    // Closing the client ends the server: stdin closes and it exits.
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER, "--port", "0"], stderr: "ignore" }));
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
      assert.deepEqual(appOnly.map((tool) => tool.name).sort(), ["sandpit_view_claim", "sandpit_view_output", "sandpit_view_result"]);
      assert.ok(appOnly.every((tool) => !/** @type {any} */ (tool._meta).ui.visibility.includes("model")));

      const result = /** @type {any} */ (await client.callTool({ name: "run_python", arguments: { code: "import json", timeout_seconds: 1 } }));
      assert.equal(result.isError, true);
      assert.match(result.content[0].text, /open http:\/\/127\.0\.0\.1:\d+\/\?relay=\d+&pair=\S+ in a browser/);
    } finally {
      await client.close();
    }
  });

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
