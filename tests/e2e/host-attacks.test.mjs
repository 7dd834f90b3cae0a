// @ts-check
// The attack suite's cases for the embedding page's functions (the rest of
// the suite is attacks-*.test.mjs): Python a prompt-injected model might write
// to reach more of the page than it offered. Each case asserts how it was
// stopped and that no handler heard more than it should.
import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";

import { serveDemo } from "../../scripts/serve.mjs";
import { startApp } from "./harness.mjs";

const HOST_PAGE = `<!doctype html><meta charset="utf-8"><title>host</title><body></body>`;

let host;
let app;
let sandpit;

before(async () => {
  host = await serveDemo({ files: { "/host.html": { type: "text/html", body: HOST_PAGE } } });
  app = await startApp({ embedOrigins: [new URL(host.url).origin] });
  sandpit = await app.newPage();
  await sandpit.page.goto(new URL("host.html", host.url).href);
  await sandpit.page.evaluate(async (appUrl) => {
    const heard = (window.heard = { echo: 0, secret: 0, aborted: 0 });
    // A function of the page that is not offered: nothing may reach it.
    window.secret = () => heard.secret++;
    const { Sandpit } = await import(new URL("sandpit-client.js", appUrl).href);
    window.sandpit = await Sandpit.create({
      headless: true,
      timeoutMs: 60_000,
      functions: [
        {
          name: "echo",
          parameters: { type: "object", properties: { text: { type: "string" } } },
          handler: async ({ text }) => (heard.echo++, text),
        },
        {
          name: "forever",
          handler: (_args, { signal }) => new Promise((_, reject) => signal.addEventListener("abort", () => (heard.aborted++, reject(signal.reason)))),
        },
      ],
    });
  }, app.url);
});

afterEach(async () => {
  // The session still answers, and no handler heard what it should not have.
  assert.equal((await run("1 + 1")).value.repr, "2");
  assert.equal(await sandpit.page.evaluate(() => window.heard.secret), 0);
});

after(async () => {
  assert.deepEqual(sandpit?.errors ?? [], []);
  await sandpit?.close();
  await app?.close();
  await host?.close();
});

/** Runs `code` through the page's client; the result. */
function run(code, options = {}) {
  return sandpit.page.evaluate(({ code, options }) => window.sandpit.run(code, options), { code, options });
}

/** What the page's handlers heard so far. */
const heard = () => sandpit.page.evaluate(() => ({ ...window.heard }));

test("an unregistered name, through the module or the worker's bridge itself, reaches no handler", async () => {
  const result = await run(
    [
      "import sys, sandpit\nfrom sandpit import host",
      "out = []",
      "try:\n    await host.secret()\nexcept sandpit.HostFunctionError as e:\n    out.append((e.kind, str(e)))",
      "bridge = sys.modules['sandpit_runner']._runner.host_bridge",
      "reply = await bridge('secret', '{}', 'await')",
      "out.append((reply.error.kind, reply.error.message))",
      "out",
    ].join("\n"),
  );
  assert.equal(result.status, "ok", JSON.stringify(result.error));
  for (const [kind, message] of result.value.json) {
    assert.equal(kind, "refused");
    assert.equal(message, 'no host function is called "secret": the page offers "echo", "forever"');
  }
  assert.equal((await heard()).echo, 0);
});

test("a forged message from Python (postMessage, the worker's globals, a channel of its own) reaches nothing of the page", async () => {
  const result = await run(
    [
      "import js",
      "from pyodide.ffi import to_js",
      "forged = to_js({'host_call': {'id': 1, 'call': 1, 'name': 'secret', 'arguments': '{}', 'form': 'await'}}, dict_converter=js.Object.fromEntries)",
      "tried = []",
      "for target in ('self', 'globalThis'):",
      "    try:\n        getattr(js, target).postMessage(forged)\n        tried.append(target + ' posted')\n    except Exception as e:\n        tried.append(target + ': ' + type(e).__name__)",
      "channel = js.MessageChannel.new()\nchannel.port1.postMessage(forged)",
      "ports = [name for name in js.Object.getOwnPropertyNames(js.self) if 'MessagePort' in str(js.Object.prototype.toString.call(getattr(js.self, name, None)))]",
      "(tried, ports)",
    ].join("\n"),
  );
  assert.equal(result.status, "ok", JSON.stringify(result.error));
  const [tried, ports] = result.value.json;
  assert.ok(tried.every((attempt) => !attempt.endsWith("posted")), JSON.stringify(tried));
  assert.deepEqual(ports, [], "no port to the host among the worker's globals");
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(await heard(), { echo: 0, secret: 0, aborted: 0 });
});

test("flooding past the call limit: at most 1,000 calls of a run reach the page", async () => {
  const before = (await heard()).echo;
  const result = await run(
    [
      "import asyncio, sandpit\nfrom sandpit import host",
      "results = await asyncio.gather(*(host.echo(text=str(i)) for i in range(1500)), return_exceptions=True)",
      "[sum(1 for r in results if isinstance(r, str)), sorted({r.kind for r in results if isinstance(r, sandpit.HostFunctionError)})]",
    ].join("\n"),
    { timeoutSeconds: 60 },
  );
  assert.deepEqual(result.value.json, [1000, ["limit"]]);
  assert.equal((await heard()).echo - before, 1000);
});

test("an oversized payload is refused before it reaches the page", async () => {
  const before = (await heard()).echo;
  const result = await run("from sandpit import host\nawait host.echo(text='x' * 5_000_000)");
  assert.equal(result.status, "error");
  assert.equal(result.error.type, "HostFunctionError");
  assert.match(result.error.message, /over the limit of 1048576 per host call/);
  assert.equal((await heard()).echo, before);
});

test("a handler that never answers holds the run only until its timeout, and is told to give up", async () => {
  const result = await run("from sandpit import host\nawait host.forever()", { timeoutSeconds: 2 });
  assert.equal(result.status, "timeout");
  assert.equal((await heard()).aborted, 1);
});
