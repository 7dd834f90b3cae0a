// @ts-check
// The standalone page's tools for agents: WebMCP (with @mcp-b/webmcp-polyfill
// standing in for a browser's built-in model context) and a desktop MCP
// client reaching the open page through @mcp-b/webmcp-local-relay, with the
// official SDK's stdio client starting the relay as a desktop client does.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, afterEach, before, describe, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { startApp } from "./harness.mjs";

/** An installed npm package's directory (these two export no package.json to resolve). */
const packageDir = (name) => join(dirname(fileURLToPath(import.meta.url)), "../../node_modules", name);

let app;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app?.close();
});

describe("WebMCP", () => {
  let sandpit;
  afterEach(async () => {
    await sandpit?.assertHealthy();
    await sandpit?.close();
  });

  test("the page registers the tools on the model context, and a call runs Python", async () => {
    const polyfill = await readFile(join(packageDir("@mcp-b/webmcp-polyfill"), "dist/index.iife.js"), "utf8");
    sandpit = await app.newPage();
    await sandpit.page.addInitScript({
      content: `window.__webMCPPolyfillOptions = { installTestingShim: true };\n${polyfill}`,
    });
    await (await sandpit.open()).waitReady();
    await sandpit.page.waitForFunction(() => navigator.modelContextTesting.listTools().length === 3);
    const listed = await sandpit.page.evaluate(() => navigator.modelContextTesting.listTools());
    assert.deepEqual(
      listed.map((tool) => tool.name),
      ["run_python", "check_python", "reset_session"],
    );
    const runSchema = JSON.parse(listed.find((tool) => tool.name === "run_python").inputSchema);
    assert.deepEqual(runSchema.required, ["code"]);
    assert.equal(runSchema.properties.tests.type.includes("string"), true, "run_python takes tests");

    const call = (name, args) =>
      sandpit.page.evaluate(
        async ({ name, args }) => JSON.parse(await navigator.modelContextTesting.executeTool(name, JSON.stringify(args))),
        { name, args },
      );
    const ran = await call("run_python", { code: "print('from an agent')\n6 * 7", session: "agent" });
    assert.equal(ran.isError, false);
    assert.match(ran.content[0].text, /from an agent/);
    assert.equal(ran.structuredContent.value.repr, "42");
    // The person watching sees what the agent ran.
    const entry = sandpit.page.locator('[data-testid="run-entry"][data-phase="ok"]').filter({ hasText: "from an agent" });
    await entry.waitFor();

    const failing = await call("run_python", { code: "x = 1", tests: "assert x == 2", session: "agent" });
    assert.equal(failing.isError, true, "a failed test makes the call an error");
    assert.match(failing.content[0].text, /--- tests ---\n1 test\(s\) failed, 0 passed\.\nFAILED assert x == 2 \(line 1 of the tests\)\nassert 1 == 2/);
    assert.equal(failing.structuredContent.verification.passed, false);

    const checked = await call("check_python", { code: "import json" });
    assert.equal(checked.structuredContent.imports[0].availability, "offline");
    const wrong = await call("run_python", { code: 42 });
    assert.equal(wrong.isError, true);
    assert.match(wrong.content[0].text, /invalid arguments for run_python: invalid type: integer `42`, expected a string/);
    // The other refusals a model may read, in the same words as the native tests check (tests/json_data.rs).
    const refusal = async (name, args) => (await call(name, args)).content[0].text;
    assert.match(await refusal("run_python", { code: "1", colour: "red" }), /unknown field `colour`, expected one of `code`/);
    assert.match(await refusal("check_python", { code: 2.5 }), /invalid type: floating point `2.5`, expected a string/);
    assert.match(await refusal("run_python", { code: null }), /invalid type: null, expected a string/);
    assert.match(await refusal("reset_session", { session: -1 }), /invalid type: integer `-1`, expected a string/);
    assert.match(await refusal("run_python", {}), /missing field `code`/);
    // Names and strings the model gave come back quoted (the release build's
    // `{:?}` prints nothing, so these are quoted by the app itself).
    assert.match(await refusal("run_python", { code: "1", timeout_seconds: "30" }), /invalid type: string "30", expected/);
    assert.match(
      await refusal("run_python", { code: "1", files: [{ path: 'say "hi".txt' }] }),
      /file "say \\"hi\\".txt": give exactly one of `text` and `content_base64`/,
    );
    const reset = await call("reset_session", { session: "agent" });
    assert.match(reset.content[0].text, /^Session "agent" was reset/);
  });
});

/** A loopback port nobody is using now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

describe("a desktop MCP client through the local relay", () => {
  let client;
  let home;
  let sandpit;
  afterEach(async () => {
    await client?.close();
    await sandpit?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  test("calls run_python in the open page", async () => {
    const port = await freePort();
    // The relay keeps its port in ~/.webmcp: a home of its own keeps the user's untouched.
    home = await mkdtemp(join(tmpdir(), "sandpit-relay-home-"));
    const relay = join(packageDir("@mcp-b/webmcp-local-relay"), "dist/cli.js");
    client = new Client({ name: "desktop-client", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [relay, "--host", "127.0.0.1", "--port", String(port)],
        env: { HOME: home, PATH: process.env.PATH },
        stderr: "ignore",
      }),
    );

    sandpit = await app.newPage();
    sandpit.url = `${app.url}?relay=${port}`;
    await (await sandpit.open()).waitReady();
    await sandpit.page.locator('[data-testid="relay-state"][data-state="connected"]').waitFor();

    let names = [];
    for (let i = 0; i < 50 && !names.includes("run_python"); i++) {
      names = (await client.listTools()).tools.map((tool) => tool.name);
      if (!names.includes("run_python")) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(names.includes("run_python"), `the relay offers the page's tools: ${names}`);
    const result = await client.callTool({
      name: "run_python",
      arguments: { code: "import sys\nprint('via the relay')\nsys.version_info[0]" },
    });
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.match(result.content[0].text, /via the relay/);
    assert.equal(result.structuredContent.value.repr, "3");
    await sandpit.assertHealthy();
  });
});
