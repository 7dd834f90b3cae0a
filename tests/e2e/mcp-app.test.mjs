// @ts-check
// Sandpit's local MCP server with a chat host that shows MCP App views: the
// host page is a test double of a chat UI, built from the real parts: ext-apps'
// AppBridge, the official MCP SDK client over Streamable HTTP to the real
// server, a sandbox proxy on another origin that frames the view under the
// CSP the resource declares, and the real built app's widget inside the view.
// Also: a client without views and no tab, a paired tab, refused tabs.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { build } from "esbuild";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { serveDemo } from "../../scripts/serve.mjs";
import { startCanary } from "./canary.mjs";
import { DIST, launchChromium, RED_SQUARE_CLASS, RUN_TIMEOUT_MS } from "./harness.mjs";
import { startHttpServer, TOKEN } from "./mcp-app-harness.mjs";

/** The host's side, bundled for the browser: AppBridge and the SDK client. */
async function hostBundle() {
  const { outputFiles } = await build({
    stdin: {
      contents: `
        import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";
        import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
        window.kit = { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, Client, StreamableHTTPClientTransport };
      `,
      resolveDir: process.cwd(),
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  return outputFiles[0].text;
}

/**
 * The sandbox proxy a host frames views through: it receives the view's HTML
 * from the host, frames it with the sandbox flags the host chose and a CSP
 * built from the resource's `_meta.ui.csp`, and relays messages between the
 * two, each only from the frame it belongs to.
 */
const PROXY_PAGE = `<!doctype html><meta charset="utf-8"><title>proxy</title><body><script>
  let inner = null;
  const list = (domains) => (domains ?? []).join(" ");
  const policy = (csp = {}) => [
    "default-src 'none'",
    "script-src 'unsafe-inline' " + list(csp.resourceDomains),
    "style-src 'unsafe-inline' " + list(csp.resourceDomains),
    "img-src data: " + list(csp.resourceDomains),
    "font-src " + (list(csp.resourceDomains) || "'none'"),
    "connect-src " + (list(csp.connectDomains) || "'none'"),
    "frame-src " + (list(csp.frameDomains) || "'none'"),
    "base-uri 'none'",
  ].join("; ");
  addEventListener("message", (event) => {
    if (event.source === parent) {
      const message = event.data;
      if (message?.method === "ui/notifications/sandbox-resource-ready") {
        const { html, sandbox, csp } = message.params;
        inner = document.createElement("iframe");
        inner.setAttribute("sandbox", sandbox);
        inner.style.cssText = "border: 0; width: 100%; height: 400px";
        const meta = '<meta http-equiv="Content-Security-Policy" content="' + policy(csp) + '">';
        inner.srcdoc = html.replace("<head>", "<head>" + meta);
        document.body.append(inner);
        return;
      }
      inner?.contentWindow?.postMessage(message, "*");
    } else if (inner && event.source === inner.contentWindow) {
      parent.postMessage(event.data, "*");
    }
  });
  parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, "*");
</script></body>`;

/** The chat host: calls a tool, shows its view, answers the view's calls, can cancel. */
const HOST_SCRIPT = `
  const { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, Client, StreamableHTTPClientTransport } = window.kit;
  window.host = {
    async connect(mcpUrl) {
      this.client = new Client(
        { name: "test-chat-host", version: "1.0.0" },
        { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } },
      );
      await this.client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    },
    call(name, args, { proxyUrl, sandbox }) {
      const client = this.client;
      const abort = new AbortController();
      const outcome = (async () => {
        const { tools } = await client.listTools();
        const tool = tools.find((t) => t.name === name);
        const { contents: [resource] } = await client.readResource({ uri: tool._meta.ui.resourceUri });
        const iframe = document.createElement("iframe");
        iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
        iframe.style.cssText = "border: 0; width: 100%; height: 420px";
        iframe.src = proxyUrl;
        const bridge = new AppBridge(client, { name: "test-chat-host", version: "1.0.0" }, { serverTools: {} }, {
          hostContext: { toolInfo: { tool } },
        });
        bridge.onsandboxready = () =>
          bridge.sendSandboxResourceReady({ html: resource.text, sandbox, csp: resource._meta?.ui?.csp });
        const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
        document.body.append(iframe);
        await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
        const progress = [];
        const calling = client.callTool(
          { name, arguments: args },
          { signal: abort.signal, timeout: 120000, onprogress: (update) => progress.push(update) },
        );
        this.cancel = () => {
          abort.abort("the person pressed stop");
          bridge.sendToolCancelled({ reason: "the person pressed stop" });
        };
        await initialized;
        await bridge.sendToolInput({ arguments: args });
        try {
          const result = await calling;
          await bridge.sendToolResult(result);
          return { result, progress, csp: resource._meta?.ui?.csp, mimeType: resource.mimeType };
        } catch (error) {
          return { error: String(error?.message ?? error) };
        }
      })();
      this.pending = outcome;
      return outcome;
    },
  };
`;

const HOST_PAGE = `<!doctype html><meta charset="utf-8"><title>chat host</title><body>
<script type="module" src="/kit.js"></script><script type="module" src="/host.js"></script></body>`;


/** @type {Awaited<ReturnType<typeof startHttpServer>>} */
let server;
/** @type {Awaited<ReturnType<typeof serveDemo>>} */
let hostSite;
/** @type {Awaited<ReturnType<typeof serveDemo>>} */
let proxySite;
/** @type {import("playwright-core").Browser} */
let browser;

before(async () => {
  server = await startHttpServer(["--dist", DIST]);
  const kit = await hostBundle();
  hostSite = await serveDemo({
    files: {
      "/host.html": { type: "text/html", body: HOST_PAGE },
      "/kit.js": { type: "text/javascript", body: kit },
      "/host.js": { type: "text/javascript", body: HOST_SCRIPT },
    },
  });
  proxySite = await serveDemo({ files: { "/proxy.html": { type: "text/html", body: PROXY_PAGE } } });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await hostSite?.close();
  await proxySite?.close();
  await server?.stop();
});

/**
 * A chat host page with its own browser context, connected to the server;
 * page errors are collected.
 */
async function openHost() {
  const context = await browser.newContext();
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(new URL("host.html", hostSite.url).href);
  await page.waitForFunction(() => "host" in window && "kit" in window);
  await page.evaluate((mcpUrl) => /** @type {any} */ (window).host.connect(mcpUrl), server.mcpUrl);
  return { page, errors, close: () => context.close() };
}

/**
 * Calls `name` through the host, its view framed with `sandbox`.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} name
 * @param {object} args
 * @param {string} sandbox
 * @returns {Promise<any>}
 */
function callThroughHost(page, name, args, sandbox) {
  const proxyUrl = new URL("proxy.html", proxySite.url).href;
  return page.evaluate(
    ({ name, args, proxyUrl, sandbox }) => /** @type {any} */ (window).host.call(name, args, { proxyUrl, sandbox }),
    { name, args, proxyUrl, sandbox },
  );
}

/** @param {import("playwright-core").Page} page */
const viewFrame = (page) => page.frames().find((frame) => frame.url() === "about:srcdoc");
/** @param {import("playwright-core").Page} page */
const widgetFrame = (page) => page.frames().find((frame) => frame.url().includes("/widget.html"));

describe("a chat host that shows MCP App views, framed allow-scripts allow-same-origin", () => {
  const SANDBOX = "allow-scripts allow-same-origin";

  test("runs the code in the view on another origin and hands the client the result", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const host = await openHost();
    try {
      const code = `${RED_SQUARE_CLASS}\nprint('hello from the view')\ndisplay(RedSquare())\n6 * 7`;
      const outcome = await callThroughHost(host.page, "run_python", { code, session: "s1" }, SANDBOX);
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
      assert.equal(origin, new URL(proxySite.url).origin, "the view has the sandbox origin");
      assert.notEqual(origin, new URL(hostSite.url).origin);
      await view.locator('[data-testid="view-output"]', { hasText: "hello from the view" }).waitFor();
      await view.locator('[data-testid="view-figures"] img').waitFor();
      assert.deepEqual(host.errors, []);
    } finally {
      await host.close();
    }
  });

  test("an error comes back with its line, and the session's state carries over to the next view", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const host = await openHost();
    try {
      const first = await callThroughHost(host.page, "run_python", { code: "kept = 5", session: "s2" }, SANDBOX);
      assert.equal(first.result?.structuredContent?.status, "ok", JSON.stringify(first));
      const outcome = await callThroughHost(host.page, "run_python", { code: "x = kept\nundefined_name + x", session: "s2" }, SANDBOX);
      const { result } = outcome;
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent.status, "error");
      assert.equal(result.structuredContent.error.type, "NameError");
      assert.equal(result.structuredContent.error.line, 2, "the error's line, after the replayed run set `kept`");
      assert.match(result.content[0].text, /NameError/);
      const views = host.page.frames().filter((frame) => frame.url() === "about:srcdoc");
      await views.at(-1)?.locator('[data-testid="view-error"]', { hasText: "NameError" }).waitFor();
    } finally {
      await host.close();
    }
  });

  test("cancel from the client stops the run in the view", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const host = await openHost();
    try {
      const code = "import time\nfor i in range(600):\n    print('tick', i, flush=True)\n    time.sleep(0.1)";
      const proxyUrl = new URL("proxy.html", proxySite.url).href;
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
    const host = await openHost();
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
      const { result } = await callThroughHost(host.page, "run_python", { code }, "allow-scripts allow-same-origin");
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
    const host = await openHost();
    try {
      const code = `${RED_SQUARE_CLASS}\nprint('on the view thread')\ndisplay(RedSquare())\nkept = 6 * 7\nkept`;
      const outcome = await callThroughHost(host.page, "run_python", { code, session: "t1" }, SANDBOX);
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
      const stuck = await callThroughHost(host.page, "run_python", { code: "while True:\n    pass", session: "t1", timeout_seconds: 2 }, SANDBOX);
      assert.equal(stuck.result?.structuredContent?.status, "timeout", JSON.stringify(stuck));
      const after = await callThroughHost(host.page, "run_python", { code: "kept + 1", session: "t1" }, SANDBOX);
      assert.equal(after.result?.structuredContent?.value?.repr, "43", JSON.stringify(after.result?.content));
      assert.deepEqual(host.errors, []);
    } finally {
      await host.close();
    }
  });

  test("Python on the view's thread reaches no network and no storage, and cannot navigate its frame away", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const canary = await startCanary();
    const host = await openHost();
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
      const { result } = await callThroughHost(host.page, "run_python", { code, session: "t2" }, SANDBOX);
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
      await callThroughHost(host.page, "run_python", { code: away, session: "t3", timeout_seconds: 3 }, SANDBOX);
      const next = await callThroughHost(host.page, "run_python", { code: "'still here'", session: "t4" }, SANDBOX);
      assert.equal(next.result?.structuredContent?.value?.repr, "'still here'", JSON.stringify(next));
      assert.deepEqual(canary.requests, [], "nothing reached the canary");
    } finally {
      await host.close();
      await canary.close();
    }
  });
});

describe("a client that shows no views", () => {
  /** An official SDK client over Streamable HTTP that declares no MCP Apps support. */
  async function plainClient() {
    const client = new Client({ name: "plain-client", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
    return client;
  }

  test("with no tab, the call ends within its timeout and says what to open", async () => {
    const client = await plainClient();
    try {
      const result = /** @type {any} */ (await client.callTool({ name: "run_python", arguments: { code: "1", timeout_seconds: 1 } }));
      assert.equal(result.isError, true);
      assert.match(result.content[0].text, /no Sandpit tab is connected/);
      assert.ok(result.content[0].text.includes(server.tabUrl), result.content[0].text);
      assert.ok(server.tabUrl.includes(`pair=${TOKEN}`));
    } finally {
      await client.close();
    }
  });

  test("with a paired tab, the tab runs it", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const context = await browser.newContext();
    const client = await plainClient();
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
      const result = /** @type {any} */ (
        await client.callTool({ name: "run_python", arguments: { code: "print('in the tab')\n2 ** 10" } }, undefined, {
          timeout: RUN_TIMEOUT_MS,
          onprogress: (update) => progress.push(update),
        })
      );
      assert.equal(result.isError, false, JSON.stringify(result.content));
      assert.equal(result.structuredContent.stdout, "in the tab\n");
      assert.equal(result.structuredContent.value.repr, "1024");
      assert.deepEqual(
        progress.map((update) => [update._meta?.["sandpit/stream"], update.message]),
        [["stdout", "in the tab\n"]],
        "the tab's output reached the client as progress",
      );

      // The client's cancel reaches the tab's run.
      const stop = new AbortController();
      const slow = client
        .callTool({ name: "run_python", arguments: { code: "import time\nfor i in range(600):\n    time.sleep(0.1)" } }, undefined, {
          signal: stop.signal,
          timeout: RUN_TIMEOUT_MS,
        })
        .catch((/** @type {Error} */ error) => error.message);
      await tab.locator('[data-testid="run-entry"][data-phase="running"]').waitFor({ timeout: RUN_TIMEOUT_MS });
      stop.abort("enough");
      await slow;
      await tab.locator('[data-testid="run-entry"][data-phase="cancelled"]').waitFor({ timeout: RUN_TIMEOUT_MS });
    } finally {
      await client.close();
      await context.close();
    }
  });

  test("a tab with the wrong token, or from an origin not allowed, is refused", { timeout: RUN_TIMEOUT_MS }, async () => {
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      const wrong = server.tabUrl.replace(`pair=${TOKEN}`, "pair=guessed");
      await tab.goto(wrong);
      await tab.locator('[data-testid="relay-state"]').waitFor();
      const refused = () => server.log.some((line) => line.includes("wrong or missing pairing token"));
      while (!refused()) await tab.waitForTimeout(100);

      // A page elsewhere (the host's origin) opens the same socket with the right token.
      const port = new URL(server.url).port;
      const page = await context.newPage();
      await page.goto(new URL("host.html", hostSite.url).href);
      const closed = await page.evaluate(
        ({ port, token }) =>
          new Promise((resolve) => {
            const socket = new WebSocket(`ws://127.0.0.1:${port}`, ["webmcp.v1"]);
            socket.onmessage = () => socket.send(JSON.stringify({ type: "hello", token }));
            socket.onclose = (event) => resolve({ code: event.code, opened: event.wasClean });
          }),
        { port, token: TOKEN },
      );
      assert.equal(/** @type {any} */ (closed).code, 1006, "the handshake itself is refused");
      assert.ok(server.log.some((line) => line.includes(`refused a tab from ${new URL(hostSite.url).origin}`)));
    } finally {
      await context.close();
    }
  });
});
