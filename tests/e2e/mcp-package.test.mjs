// @ts-check
// The MCP server as a desktop user gets it: the tarball `make package` packs,
// installed by npm into an empty directory outside the repository (nothing
// fetched: it has no dependencies), and run from there with only Node. Both
// flows: a chat host that shows views (the AppBridge double of
// mcp-app-harness.mjs) over `--http`, and, as the README configures it,
// `npx -y file:<tarball>` over stdio for a client without views, plus a tab.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { launchChromium } from "./harness/browser.mjs";
import { RUN_TIMEOUT_MS } from "./harness/timeouts.mjs";
import { openHost, ROOT, serveChatHost, startHttpServer, tabUrlIn, TOKEN } from "./mcp-app-harness.mjs";

const { name, version } = JSON.parse(await readFile(join(ROOT, "mcp-server", "package.json"), "utf8"));
const TARBALL = join(ROOT, "target", `${name}-${version}.tgz`);
/** npm as a user runs it, told to fetch nothing: the package needs nothing it does not hold. */
const OFFLINE = { ...process.env, npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false" };

/** @type {string} */
let home;
/** @type {import("playwright-core").Browser} */
let browser;
/** @type {Awaited<ReturnType<typeof serveChatHost>>} */
let site;

before(async () => {
  assert.ok(existsSync(TARBALL), `${TARBALL} is missing: run \`make package\` first`);
  home = await mkdtemp(join(tmpdir(), "sandpit-mcp-package-"));
  execFileSync("npm", ["install", "--no-save", TARBALL], { cwd: home, env: OFFLINE, stdio: "ignore" });
  browser = await launchChromium();
  site = await serveChatHost();
});

after(async () => {
  await browser?.close();
  await site?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe("the npm package", () => {
  test("installs nothing but itself, and --http serves a host that shows views from its own bundle", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const installed = (await readdir(join(home, "node_modules"))).filter((entry) => !entry.startsWith("."));
    assert.deepEqual(installed, [name], "no dependencies came with it");
    const server = await startHttpServer({ command: [join(home, "node_modules", ".bin", name)], cwd: home });
    const host = await openHost(browser, site, server.mcpUrl);
    try {
      const outcome = await host.call("run_python", { code: "print('from the package')\n6 * 7" }, "allow-scripts allow-same-origin");
      assert.equal(outcome.error, undefined, outcome.error);
      assert.equal(outcome.result.isError, false, JSON.stringify(outcome.result.content));
      assert.equal(outcome.result.structuredContent.stdout, "from the package\n");
      assert.equal(outcome.result.structuredContent.value.repr, "42");
      const widget = host.page.frames().find((frame) => frame.url().includes("/widget.html"));
      assert.ok(widget?.url().startsWith(server.url), `the widget comes from the package's server: ${widget?.url()}`);
      assert.deepEqual(host.errors, []);
    } finally {
      await host.close();
      await server.stop();
    }
  });

  test("`npx -y file:<tarball>` over stdio: a client without views is told the URL, and the tab opened there runs its calls", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const transport = new StdioClientTransport({
      command: "npx",
      // As the README has it: a path npx takes for a package, not a command.
      args: ["-y", `file:${TARBALL}`],
      cwd: home,
      env: { ...OFFLINE, SANDPIT_PAIRING_TOKEN: TOKEN, SANDPIT_WAIT_SECONDS: "2" },
      stderr: "pipe",
    });
    /** @type {string[]} */
    const log = [];
    transport.stderr?.on("data", (/** @type {Buffer} */ chunk) => log.push(...String(chunk).split("\n")));
    const client = new Client({ name: "desktop-client", version: "1.0.0" });
    await client.connect(transport);
    const context = await browser.newContext();
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ["check_python", "reset_session", "run_python"]);
      const nobody = /** @type {any} */ (await client.callTool({ name: "run_python", arguments: { code: "1" } }));
      assert.equal(nobody.isError, true);
      const tabUrl = log.map(tabUrlIn).find((url) => url !== null);
      assert.ok(tabUrl, log.join("\n"));
      assert.ok(nobody.content[0].text.includes(tabUrl), nobody.content[0].text);

      const tab = await context.newPage();
      await tab.goto(tabUrl);
      await tab.locator('[data-testid="relay-state"][data-state="connected"]').waitFor({ timeout: RUN_TIMEOUT_MS });
      /** @type {any[]} */
      const progress = [];
      const result = /** @type {any} */ (
        await client.callTool({ name: "run_python", arguments: { code: "print('in the tab')\n2 ** 10" } }, undefined, {
          timeout: RUN_TIMEOUT_MS,
          onprogress: (update) => progress.push(update),
        })
      );
      assert.equal(result.isError, false, JSON.stringify(result.content));
      assert.equal(result.structuredContent.value.repr, "1024");
      assert.deepEqual(
        progress.map((update) => update.message),
        ["in the tab\n"],
      );
    } finally {
      await client.close();
      await context.close();
    }
  });
});
