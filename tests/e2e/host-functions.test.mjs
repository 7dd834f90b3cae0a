// @ts-check
// The embedding page's own functions called from Python (`sandpit.host`),
// through the JS client (on a plain page and on a cross-origin isolated one,
// where code that does not await calls them too) and through the official
// MCP SDK client over postMessage: calls in a loop, schema and handler
// errors, Stop and timeouts reaching the handler's signal, the limits, the
// sessions a page allows, and what the model is told.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { serveDemo } from "../../scripts/serve.mjs";
import { startApp } from "./harness.mjs";
import { sdkBundle } from "./sdk-bundle.mjs";

const HOST_PAGE = `<!doctype html><meta charset="utf-8"><title>host</title><body><script type="module" src="/sdk.js"></script></body>`;

/**
 * Runs in the page: the functions it offers (a lookup over a table, one
 * that throws, one that never answers until its signal aborts, one that
 * answers too much), each call kept in `window.heard`.
 */
function installFunctions() {
  const heard = (window.heard = { calls: [], aborted: [] });
  const table = { Paris: "France", Lyon: "France", Turin: "Italy" };
  window.functions = [
    {
      name: "lookup",
      description: "The country a city is in.",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
      handler: async ({ city }) => {
        heard.calls.push(["lookup", city]);
        return table[city] ?? null;
      },
    },
    { name: "broken", description: "Always fails.", handler: async () => Promise.reject(new Error("the records are closed today")) },
    {
      name: "forever",
      description: "Never answers.",
      handler: (_args, { signal }) =>
        new Promise((_, reject) =>
          signal.addEventListener("abort", () => {
            heard.aborted.push(String(signal.reason?.message ?? signal.reason));
            reject(signal.reason);
          }),
        ),
    },
    { name: "huge", description: "Answers 2 MB.", handler: async () => "x".repeat(2_000_000) },
  ];
}

let plain;
let isolated;
let demo;
let app;

before(async () => {
  const files = {
    "/host.html": { type: "text/html", body: HOST_PAGE },
    "/sdk.js": { type: "text/javascript", body: await sdkBundle() },
  };
  plain = await serveDemo({ files });
  isolated = await serveDemo({ files, isolated: true });
  demo = await serveDemo();
  app = await startApp({ embedOrigins: [plain, isolated, demo].map((server) => new URL(server.url).origin) });
  demo.setApp(app.url);
});

after(async () => {
  await app?.close();
  await plain?.close();
  await isolated?.close();
  await demo?.close();
});

/** A host page of `server` with the client's widget offering the functions (`options` to `Sandpit.create`). */
async function withClient(server, options = {}) {
  const sandpit = await app.newPage();
  await sandpit.page.goto(new URL("host.html", server.url).href);
  await sandpit.page.evaluate(installFunctions);
  await sandpit.page.evaluate(
    async ({ appUrl, options }) => {
      const { Sandpit } = await import(new URL("sandpit-client.js", appUrl).href);
      window.sandpit = await Sandpit.create({ headless: true, timeoutMs: 60_000, functions: window.functions, ...options });
    },
    { appUrl: app.url, options },
  );
  return sandpit;
}

/** Runs `code` through the client in the page; the result. */
function run(sandpit, code, options = {}) {
  return sandpit.page.evaluate(({ code, options }) => window.sandpit.run(code, options), { code, options });
}

describe("through the JS client", () => {
  let sandpit;
  before(async () => {
    sandpit = await withClient(plain, { functionSessions: ["main", "chat"] });
  });
  after(async () => {
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });

  test("calls in a loop come back in order, and the result lists them", async () => {
    const code = "from sandpit import host\n[await host.lookup(city=c) for c in ['Paris', 'Turin', 'Oslo'] * 10]";
    const result = await run(sandpit, code);
    assert.equal(result.status, "ok", JSON.stringify(result.error));
    assert.deepEqual(result.value.json, Array(10).fill(["France", "Italy", null]).flat());
    assert.equal(result.host_calls.length, 30);
    assert.deepEqual(result.host_calls[1], { ...result.host_calls[1], name: "lookup", arguments: '{"city": "Turin"}', ok: true, error: null, form: "await" });
    const heard = await sandpit.page.evaluate(() => window.heard.calls.length);
    assert.equal(heard, 30);
  });

  test("arguments the schema refuses never reach the handler; a handler's error is raised with its message", async () => {
    const before = await sandpit.page.evaluate(() => window.heard.calls.length);
    const code = [
      "import sandpit\nfrom sandpit import host",
      "caught = []",
      "for call in (lambda: host.lookup(city=3), lambda: host.lookup(town='Paris'), lambda: host.broken()):",
      "    try:\n        await call()\n    except sandpit.HostFunctionError as e:\n        caught.append((e.kind, str(e)))",
      "caught",
    ].join("\n");
    const result = await run(sandpit, code);
    const caught = result.value.json;
    assert.deepEqual(caught.map(([kind]) => kind), ["invalid_arguments", "invalid_arguments", "handler"]);
    assert.match(caught[0][1], /host\.lookup: the arguments do not match its schema: .*city/);
    assert.equal(caught[2][1], "the records are closed today");
    assert.equal(await sandpit.page.evaluate(() => window.heard.calls.length), before, "the handler never saw them");
  });

  test("Stop cancels a pending call: the handler's signal aborts and the session goes on", async () => {
    const stopped = await sandpit.page.evaluate(async () => {
      const controller = new AbortController();
      const running = window.sandpit.run("from sandpit import host\nx = 1\nawait host.forever()", { signal: controller.signal });
      while (window.heard.aborted.length === 0 && !(await window.sandpit.sessions()).some((s) => s.phase === "running")) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      controller.abort();
      return running;
    });
    assert.equal(stopped.status, "cancelled");
    assert.deepEqual(await sandpit.page.evaluate(() => window.heard.aborted), ["the run was stopped"]);
    assert.equal((await run(sandpit, "'still here'")).value.repr, "'still here'");
  });

  test("a timeout ends a call that never answers", async () => {
    const result = await run(sandpit, "from sandpit import host\nawait host.forever()", { timeoutSeconds: 2 });
    assert.equal(result.status, "timeout");
    assert.equal(await sandpit.page.evaluate(() => window.heard.aborted.length), 2);
  });

  test("the limits: calls per run, arguments and values in size, each with a clear error", async () => {
    const flood = await run(
      sandpit,
      "import sandpit\nfrom sandpit import host\nn = 0\ntry:\n    while True:\n        await host.lookup(city='Paris')\n        n += 1\nexcept sandpit.HostFunctionError as e:\n    stop = (n, e.kind, str(e))\nstop",
      { timeoutSeconds: 60 },
    );
    assert.deepEqual(flood.value.json, [1000, "limit", "this run has made 1000 host calls, the most one run may make"]);
    const sizes = await run(
      sandpit,
      "import sandpit\nfrom sandpit import host\nout = []\nfor call in (lambda: host.lookup(city='x' * 1_100_000), lambda: host.huge()):\n    try:\n        await call()\n    except sandpit.HostFunctionError as e:\n        out.append((e.kind, str(e)))\nout",
    );
    const [args, value] = sizes.value.json;
    assert.equal(args[0], "limit");
    assert.match(args[1], /^the arguments: 11000\d\d characters as JSON, over the limit of 1048576 per host call$/);
    assert.equal(value[0], "limit");
    assert.match(value[1], /^the value: 2000002 characters as JSON/);
  });

  test("a session the page did not allow cannot call", async () => {
    const result = await run(sandpit, "from sandpit import host\nawait host.lookup(city='Paris')", { session: "elsewhere" });
    assert.equal(result.status, "error");
    assert.equal(result.error.type, "HostFunctionError");
    assert.match(result.error.message, /no host functions are offered to this run/);
  });
});

describe("through the JS client on a cross-origin isolated page", () => {
  test("code that does not await calls the page too, and the result says so", async () => {
    const sandpit = await withClient(isolated);
    const result = await run(sandpit, "from sandpit import host\n[host.lookup(city=c) for c in ('Paris', 'Lyon')]");
    assert.equal(result.status, "ok", JSON.stringify(result.error));
    assert.deepEqual(result.value.json, ["France", "France"]);
    assert.deepEqual(result.host_calls.map((call) => call.form), ["sync", "sync"]);
    // Stop reaches a call suspended in code that does not await, too.
    const stopped = await sandpit.page.evaluate(async () => {
      const controller = new AbortController();
      const running = window.sandpit.run("from sandpit import host\nhost.forever()", { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      controller.abort();
      return running;
    });
    assert.equal(stopped.status, "cancelled");
    assert.equal((await run(sandpit, "1 + 1")).value.repr, "2");
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});

describe("through the official MCP SDK client", () => {
  test("offers functions at initialize, sees them in run_python's description, and answers calls; a cancelled tool call aborts the handler", async () => {
    const sandpit = await app.newPage();
    await sandpit.page.goto(new URL("host.html", plain.url).href);
    await sandpit.page.waitForFunction(() => window.mcp);
    const out = await sandpit.page.evaluate(async (widgetUrl) => {
      const { Client, IframeParentTransport, z } = window.mcp;
      const iframe = document.createElement("iframe");
      iframe.src = widgetUrl;
      document.body.append(iframe);
      await new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));
      const transport = new IframeParentTransport({ iframe, targetOrigin: new URL(widgetUrl).origin });
      const offer = {
        functions: [
          { name: "double", description: "Twice n.", inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } },
          { name: "wait", description: "Answers when cancelled.", inputSchema: { type: "object" } },
        ],
      };
      const client = new Client({ name: "sdk-host", version: "1.0.0" }, { capabilities: { experimental: { "sandpit/functions": offer } } });
      const aborted = [];
      const CallSchema = z.object({ method: z.literal("sandpit/functions/call"), params: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) }) });
      client.setRequestHandler(CallSchema, async ({ params }, extra) => {
        if (params.name === "double") {
          if (params.arguments.n < 0) throw new Error("no negative numbers");
          return { value: params.arguments.n * 2 };
        }
        return new Promise((_, reject) => extra.signal.addEventListener("abort", () => (aborted.push(params.name), reject(new Error("aborted")))));
      });
      await client.connect(transport);
      const { tools } = await client.listTools();
      const loop = await client.callTool({
        name: "run_python",
        arguments: { code: "from sandpit import host\ntotal = 0\nfor n in range(50):\n    total += await host.double(n=n)\ntotal" },
      });
      const errors = await client.callTool({
        name: "run_python",
        arguments: {
          code: "import sandpit\nfrom sandpit import host\nout = []\nfor n in ('x', -1):\n    try:\n        await host.double(n=n)\n    except sandpit.HostFunctionError as e:\n        out.append(e.kind)\nout",
        },
      });
      const controller = new AbortController();
      const waiting = client
        .callTool({ name: "run_python", arguments: { code: "from sandpit import host\nawait host.wait()" } }, undefined, { signal: controller.signal })
        .catch((error) => error.message);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      controller.abort("enough");
      await waiting;
      for (let i = 0; i < 40 && aborted.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      await client.close();
      return { description: tools[0].description, loop, errors, aborted };
    }, new URL("widget.html", app.url).href);
    assert.match(out.description, /- `host\.double\(n: int\)`: Twice n\./);
    assert.match(out.description, /from sandpit import host/);
    assert.equal(out.loop.structuredContent.value?.repr, String(2 * ((49 * 50) / 2)), JSON.stringify(out.loop.content));
    assert.equal(out.loop.structuredContent.host_calls.length, 50);
    assert.equal(out.errors.structuredContent.value.repr, "['invalid_arguments', 'handler']");
    assert.deepEqual(out.aborted, ["wait"]);
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});

describe("the demo chat page", () => {
  test("offers two functions over its table, and a reply's Python calls them in a loop", async () => {
    const sandpit = await app.newPage();
    await sandpit.page.goto(demo.url);
    await sandpit.page.getByTestId("demo-state").filter({ hasText: "Connected to sandpit" }).waitFor({ timeout: 60_000 });
    await sandpit.page.getByTestId("example-host").click();
    await sandpit.page.getByTestId("send").click();
    const output = sandpit.page.locator('[data-testid="tool-output"][data-state="ok"]');
    await output.waitFor({ timeout: 60_000 });
    assert.equal(
      await output.textContent(),
      "Paris: France, 2,102,650 people\nLyon: France, 520,774 people\nTurin: Italy, 841,600 people\n" +
        "Geneva: Switzerland, 203,856 people\n→ 'nearest to Paris: Lyon, 392 km'",
    );
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});
