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
import { pollUntil } from "./harness/poll.mjs";

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

    // On the document's model context, with WebMCP's hints: run_python's
    // result may carry what the code read from files or the network.
    const hints = await sandpit.page.evaluate(async () =>
      Object.fromEntries(
        (await document.modelContext.getTools()).map((tool) => [tool.name, tool.annotations]),
      ),
    );
    assert.deepEqual(hints, {
      check_python: { readOnlyHint: true, untrustedContentHint: false },
      reset_session: { readOnlyHint: false, untrustedContentHint: false },
      run_python: { readOnlyHint: false, untrustedContentHint: true },
    });

    // Switched off in Settings, the tools are unregistered (through the
    // registration's AbortSignal) and an agent's run in progress stops.
    const slow = sandpit.page.evaluate(() =>
      navigator.modelContextTesting
        .executeTool("run_python", JSON.stringify({ code: "import time\nfor i in range(600):\n    time.sleep(0.1)", session: "slow" }))
        .then(
          () => "finished",
          (error) => error.message,
        ),
    );
    await sandpit.page.locator('[data-testid="run-entry"][data-phase="running"]').waitFor();
    await sandpit.page.getByTestId("settings").locator("summary").click();
    const access = sandpit.page.getByTestId("web-mcp-switch").getByRole("checkbox");
    assert.equal(await access.isChecked(), true);
    await access.uncheck();
    assert.equal(await slow, "Tool unregistered");
    await sandpit.page.waitForFunction(() => navigator.modelContextTesting.listTools().length === 0);
    await sandpit.page.locator('[data-testid="run-entry"][data-phase="cancelled"]').waitFor();

    // The choice holds after a reload; switched on again, they are back.
    await sandpit.page.reload();
    await sandpit.waitReady();
    await sandpit.page.getByTestId("settings").locator("summary").click();
    assert.equal(await access.isChecked(), false);
    assert.equal(await sandpit.page.evaluate(() => navigator.modelContextTesting.listTools().length), 0);
    await access.check();
    await sandpit.page.waitForFunction(() => navigator.modelContextTesting.listTools().length === 3);
  });

  test("falls back to navigator.modelContext only where the document has none", async () => {
    const polyfill = await readFile(join(packageDir("@mcp-b/webmcp-polyfill"), "dist/index.iife.js"), "utf8");
    sandpit = await app.newPage();
    // A browser of the earlier draft: the polyfill's context, on the navigator only.
    await sandpit.page.addInitScript({
      content: `${polyfill}\ndelete Document.prototype.modelContext;`,
    });
    await (await sandpit.open()).waitReady();
    const names = await pollUntil(
      sandpit.page,
      async () => {
        if ("modelContext" in document) return null;
        const tools = await navigator.modelContext.getTools();
        return tools.length === 3 ? tools.map((tool) => tool.name) : null;
      },
      null,
      { what: "the three tools on navigator.modelContext", timeout: 10_000 },
    );
    assert.deepEqual(names, ["check_python", "reset_session", "run_python"]);
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

    let tools = [];
    for (let i = 0; i < 50 && !tools.some((tool) => tool.name === "run_python"); i++) {
      tools = (await client.listTools()).tools;
      if (!tools.some((tool) => tool.name === "run_python")) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const runPython = tools.find((tool) => tool.name === "run_python");
    assert.ok(runPython, `the relay offers the page's tools: ${tools.map((tool) => tool.name)}`);
    // The model reads the relay's limit where it decides how to call.
    assert.match(runPython.description, /Through the local relay each call has at most 25 s in all: code is stopped after 20 s/);
    const result = await client.callTool({
      name: "run_python",
      arguments: { code: "import sys\nprint('via the relay')\nsys.version_info[0]" },
    });
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.match(result.content[0].text, /via the relay/);
    assert.equal(result.structuredContent.value.repr, "3");
    // Asked for the default 30 s, it ran with 20 s, and the result says so.
    assert.equal(
      result.content.at(-1).text,
      "Note: the local relay gives each call 25 s, so this run's timeout was lowered from 30 s to 20 s.",
    );
    const short = await client.callTool({ name: "run_python", arguments: { code: "1", timeout_seconds: 5 } });
    assert.equal(short.content.length, 1, "a run that fits gets no note");
    await sandpit.assertHealthy();
  });
});
