// @ts-check
// The embeddable widget, driven from pages on other origins: the demo chat
// page, the JS client (www/sandpit-client.js), and the official MCP SDK
// client over @mcp-b/transports' iframe transport. A page whose origin the
// deployment does not list is refused.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { serveDemo } from "../../scripts/serve.mjs";
import { RED_SQUARE_CLASS, startApp } from "./harness.mjs";
import { connectClient, hostFiles } from "./sdk-host.mjs";

/** The figure stand-in (harness.mjs), shown as the run's value. */
const RED_SQUARE = `${RED_SQUARE_CLASS}\nRedSquare()`;

let host;
let isolatedHost;
let stranger;
let app;

before(async () => {
  const files = await hostFiles();
  host = await serveDemo({ files });
  isolatedHost = await serveDemo({ files, isolated: true });
  stranger = await serveDemo({ files });
  const origins = [host, isolatedHost].map((server) => new URL(server.url).origin);
  app = await startApp({ embedOrigins: [...origins, new URL(crossSite(host)).origin] });
  for (const server of [host, isolatedHost, stranger]) server.setApp(app.url);
});

after(async () => {
  await app?.close();
  await host?.close();
  await isolatedHost?.close();
  await stranger?.close();
});

/**
 * `server`'s address on another site than the app's: the same loopback
 * server under the name `localhost` (sites are told apart by host name).
 */
function crossSite(server) {
  return server.url.replace("//127.0.0.1:", "//localhost:");
}

/** A page of `server` (host.html unless `path` says otherwise), with console errors collected. */
async function openHost(server, path = "host.html") {
  const sandpit = await app.newPage();
  await sandpit.page.goto(new URL(path, server.url).href);
  return sandpit;
}

/** Imports the client from the app's origin, as an embedding page does, and creates a widget. */
function createWidget(page, options = {}) {
  return page.evaluate(
    async ({ appUrl, options }) => {
      const { Sandpit, VERSION } = await import(new URL("sandpit-client.js", appUrl).href);
      window.sandpit = await Sandpit.create({ ...options, timeoutMs: 60_000 });
      return { version: VERSION, server: window.sandpit.server };
    },
    { appUrl: app.url, options },
  );
}

/** The widget's frame. */
function widgetFrame(page) {
  return page.frames().find((frame) => frame.url().includes("/widget.html"));
}

describe("the demo chat page", () => {
  test("runs a pasted model reply in the widget and streams its output into the chat", async () => {
    const sandpit = await openHost(host, "");
    await sandpit.page.getByTestId("demo-state").filter({ hasText: "Connected to sandpit" }).waitFor({ timeout: 60_000 });
    await sandpit.page.getByTestId("send").click();
    const output = sandpit.page.locator('[data-testid="tool-output"][data-state="ok"]');
    await output.waitFor({ timeout: 60_000 });
    assert.equal(await output.textContent(), "pi is about 3.1416\n→ 285");
    // The widget shows the run too.
    const frame = widgetFrame(sandpit.page);
    await frame.locator('[data-testid="run-entry"][data-phase="ok"]').first().waitFor();
    assert.match(await frame.getByTestId("runs").textContent(), /pi is about 3\.1416/);

    // Stop ends a reply's run that would go on, and the session stays usable.
    const stop = sandpit.page.getByTestId("stop");
    assert.equal(await stop.isDisabled(), true, "nothing to stop");
    await sandpit.page.getByTestId("message").fill("```python\nimport time\nfor i in range(600):\n    print(i, flush=True)\n    time.sleep(0.1)\n```");
    await sandpit.page.getByTestId("send").click();
    const running = sandpit.page.locator('[data-testid="tool-output"][data-state="running"]');
    await running.filter({ hasText: "3" }).waitFor({ timeout: 60_000 });
    assert.equal(await sandpit.page.getByTestId("send").isDisabled(), true, "one reply at a time");
    await stop.click();
    await sandpit.page.locator('[data-testid="tool-output"][data-state="cancelled"]').waitFor({ timeout: 30_000 });
    assert.equal(await stop.isDisabled(), true);
    assert.equal(await sandpit.page.getByTestId("send").isDisabled(), false);
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});

describe("the demo chat page on another site", () => {
  test("runs code in a widget that gets no service worker there, as a chat UI embeds it", async () => {
    const sandpit = await app.newPage();
    await sandpit.page.goto(crossSite(host));
    await sandpit.page.getByTestId("demo-state").filter({ hasText: "Connected to sandpit" }).waitFor({ timeout: 60_000 });
    const frame = widgetFrame(sandpit.page);
    assert.notEqual(new URL(frame.url()).hostname, new URL(sandpit.page.url()).hostname);
    // A third-party frame here may not use a service worker, and the widget
    // must need none; were it allowed, this test would not show that.
    const registration = await frame.evaluate(() => navigator.serviceWorker.getRegistration().then(() => "allowed", () => "refused"));
    assert.equal(registration, "refused");
    await sandpit.page.getByTestId("send").click();
    const output = sandpit.page.locator('[data-testid="tool-output"][data-state="ok"]');
    await output.waitFor({ timeout: 60_000 });
    assert.equal(await output.textContent(), "pi is about 3.1416\n→ 285");
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});

describe("the JS client on a cross-origin isolated page", () => {
  test("gets an isolated widget, which stops a run that times out by interrupt and keeps the session", async () => {
    const sandpit = await openHost(isolatedHost);
    assert.equal(await sandpit.page.evaluate(() => crossOriginIsolated), true);
    await createWidget(sandpit.page);
    const frame = widgetFrame(sandpit.page);
    assert.equal(await frame.evaluate(() => crossOriginIsolated), true);
    await frame.locator('[data-testid="runtime-state"][data-state="ready"]').waitFor({ timeout: 60_000 });
    assert.equal(await frame.getByTestId("runtime-state").getAttribute("data-interrupts"), "true");
    const [stopped, next] = await sandpit.page.evaluate(async () => {
      await window.sandpit.run("kept = 41");
      return [await window.sandpit.run("while True:\n    pass", { timeoutSeconds: 1 }), await window.sandpit.run("kept + 1")];
    });
    assert.equal(stopped.status, "timeout");
    // Interrupted, not restarted: nothing had to be replayed into a new worker.
    assert.equal(stopped.restored, null);
    assert.equal(next.restored, null);
    assert.equal(next.value.repr, "42");
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});

describe("the JS client", () => {
  let sandpit;
  before(async () => {
    sandpit = await openHost(host);
  });
  after(async () => {
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });

  test("connects to the widget from another origin, themed, and sized to its content", async () => {
    const { version, server } = await createWidget(sandpit.page, { theme: "dark" });
    assert.match(version, /^\d+\.\d+\.\d+$/);
    assert.equal(server.serverInfo.name, "sandpit");
    assert.equal(await widgetFrame(sandpit.page).getByTestId("widget").getAttribute("data-theme"), "dark");
    await sandpit.page.evaluate(() => window.sandpit.run("print('grow')"));
    await sandpit.page.waitForFunction(() => parseInt(window.sandpit.iframe.style.height, 10) > 50);
  });

  test("streams stdout and status while the code runs, then returns the full result", async () => {
    const seen = await sandpit.page.evaluate(async () => {
      const chunks = [];
      const statuses = [];
      const result = await window.sandpit.run(
        "import time, sys\nfor i in range(3):\n    print('tick', i, flush=True)\n    time.sleep(0.3)\nprint('oops', file=sys.stderr)\n6 * 7",
        {
          session: "stream",
          onStdout: (text) => chunks.push(["out", text]),
          onStderr: (text) => chunks.push(["err", text]),
          onStatus: (status) => statuses.push(status),
        },
      );
      return { chunks, statuses, result };
    });
    assert.equal(seen.result.status, "ok");
    assert.equal(seen.result.value.repr, "42");
    assert.equal(seen.result.stdout, "tick 0\ntick 1\ntick 2\n");
    const streamed = seen.chunks.filter(([stream]) => stream === "out").map(([, text]) => text).join("");
    assert.equal(streamed, seen.result.stdout);
    assert.ok(seen.chunks.filter(([stream]) => stream === "out").length >= 2, "output arrived in pieces, as it was written");
    assert.deepEqual(seen.chunks.filter(([stream]) => stream === "err"), [["err", "oops\n"]]);
    assert.ok(seen.statuses.includes("running"), JSON.stringify(seen.statuses));
  });

  test("is sent no notifications that the caller has no listener for", async () => {
    const seen = await sandpit.page.evaluate(async () => {
      const notes = [];
      const listen = (event) => {
        const method = event.data?.payload?.method;
        if (method?.startsWith("notifications/")) notes.push(method);
      };
      window.addEventListener("message", listen);
      try {
        const quiet = await window.sandpit.run("import time\nprint('a', flush=True)\ntime.sleep(0.2)\nprint('b')", {
          session: "quiet",
        });
        const quietNotes = notes.splice(0);
        const heard = [];
        const listened = await window.sandpit.run("print('c')", { session: "quiet", onStdout: (text) => heard.push(text) });
        return { quiet, quietNotes, listened, listenedNotes: notes.splice(0), heard };
      } finally {
        window.removeEventListener("message", listen);
      }
    });
    assert.equal(seen.quiet.stdout, "a\nb\n", "the result still holds all the output");
    assert.deepEqual(seen.quietNotes, []);
    // Output, which has a listener, in progress notifications (with the
    // status); not again as a log message (the client set its logging level above output's).
    assert.deepEqual([...new Set(seen.listenedNotes)], ["notifications/progress"]);
    assert.deepEqual(seen.heard, ["c\n"]);
    assert.equal(seen.listened.stdout, "c\n");
  });

  test("passes files in, reads files out, checks code and resets sessions", async () => {
    const out = await sandpit.page.evaluate(async () => {
      const s = window.sandpit;
      const ran = await s.run("data = open('in.txt').read()\nopen('out.csv', 'w').write(data.upper())\nx = 1", {
        session: "files",
        files: [{ path: "in.txt", text: "a,b\n" }],
      });
      const file = await s.readFile("out.csv", { session: "files" });
      const missing = await s.readFile("nope.txt", { session: "files" }).catch((e) => e.message);
      const broken = await s.check("print(1\n");
      // numpy is a Pyodide package fetched on first use; only pure-Python packages ship with Sandpit.
    const plan = await s.check("import json, numpy\nfrom requests import get\nimport no_such_module_here");
      await s.reset("files");
      const after = await s.run("x", { session: "files" });
      const filesAfter = await s.run("import os\nsorted(os.listdir())", { session: "files" });
      const rejected = (promise) => promise.then(() => null, (e) => ({ name: e.name, code: e.code, message: e.message }));
      const bad = await rejected(s.run("1", { timeoutSeconds: -1 }));
      const notCode = await rejected(s.run(42));
      const missingCode = await rejected(s.readFile("nope.txt", { session: "files" }));
      const badCheck = await rejected(s.check(7));
      const badTarget = await rejected(s.run("1", { target: "#out" }));
      const tested = await s.run("def add(a, b):\n    return a - b", { session: "files", tests: "assert add(2, 2) == 4" });
      return { ran, file, missing, broken, plan, after, filesAfter, bad, notCode, missingCode, badCheck, badTarget, tested };
    });
    assert.equal(out.ran.status, "ok");
    assert.deepEqual(out.file, { mimeType: "text/csv", text: "A,B\n" });
    assert.match(out.missing, /FileNotFoundError: no such file in session 'files': nope\.txt/);
    assert.doesNotMatch(out.missing, /Traceback|\/home\/|runner/, "no traceback or internal paths");
    assert.equal(out.broken.syntax_error.type, "SyntaxError");
    assert.equal(out.broken.syntax_error.line, 1);
    const availability = Object.fromEntries(out.plan.imports.map((i) => [i.module, i.availability]));
    assert.deepEqual(availability, {
      json: "offline",
      numpy: "network",
      requests: "network",
      no_such_module_here: "unavailable",
    });
    assert.equal(out.after.status, "error");
    // Reset deletes the session's files, as the tool's description says.
    assert.deepEqual(out.filesAfter.value.json, []);
    assert.equal(out.after.error.type, "NameError", "the reset session forgot x");
    // Every rejection carries a code: bad arguments are JSON-RPC's invalid params.
    assert.match(out.bad.message, /timeout_seconds must be 0/);
    assert.equal(out.bad.code, -32602);
    assert.deepEqual(out.notCode, {
      name: "SandpitError",
      code: -32602,
      message: "invalid arguments for run_python: invalid type: integer `42`, expected a string",
    });
    assert.equal(out.missingCode.code, -32002, "MCP's code for a resource that is not there");
    assert.equal(out.badCheck.code, -32602);
    assert.equal(out.badTarget.code, -32602);
    assert.match(out.badTarget.message, /`target` must be an element/);
    // Tests sent with the code come back verified, a failed assert with the values it compared.
    assert.equal(out.tested.status, "ok");
    assert.equal(out.tested.verification.passed, false);
    assert.deepEqual(out.tested.verification.tests[0].compared, { left: "0", op: "==", right: "4" });
    assert.equal(out.tested.verification.tests[0].explanation, "assert 0 == 4\n +  where 0 = add(2, 2)");
  });

  test("stops a run when its signal aborts, and the run resolves as cancelled", async () => {
    const out = await sandpit.page.evaluate(async () => {
      await window.sandpit.run("kept = 'yes'", { session: "stop" });
      const stop = new AbortController();
      const running = window.sandpit.run("import time\nfor i in range(600):\n    time.sleep(0.1)", {
        session: "stop",
        signal: stop.signal,
        onStatus: (status) => status === "running" && setTimeout(() => stop.abort("enough"), 500),
      });
      const stopped = await running;
      const after = await window.sandpit.run("kept", { session: "stop" });
      return { status: stopped.status, after: after.value?.repr ?? after.error?.type };
    });
    assert.equal(out.status, "cancelled");
    assert.equal(out.after, "'yes'", "the session goes on, as it was before the stopped run");
  });
});

describe("a headless widget", () => {
  test("shows nothing, still runs, and destroy() removes it and rejects what was pending", async () => {
    const sandpit = await openHost(host);
    await createWidget(sandpit.page, { headless: true });
    assert.equal(await sandpit.page.evaluate(async () => (await window.sandpit.run("'first'")).status), "ok");
    const frame = widgetFrame(sandpit.page);
    assert.equal(await frame.getByTestId("runtime-state").getAttribute("data-state"), "ready");
    assert.equal(await frame.getByTestId("run-entry").count(), 0, "a headless widget draws no runs");
    // Headless, output is not buffered for drawing, but a listener still hears it as it is written.
    const streamed = await sandpit.page.evaluate(async () => {
      const heard = [];
      const code = "import time\nfor i in range(3):\n    print('tick', i, flush=True)\n    time.sleep(0.2)";
      const result = await window.sandpit.run(code, { onStdout: (text) => heard.push(text) });
      return { heard, stdout: result.stdout };
    });
    assert.equal(streamed.stdout, "tick 0\ntick 1\ntick 2\n");
    assert.equal(streamed.heard.join(""), streamed.stdout);
    assert.ok(streamed.heard.length >= 2, `output arrived in pieces: ${JSON.stringify(streamed.heard)}`);
    const out = await sandpit.page.evaluate(async () => {
      const s = window.sandpit;
      const hidden = getComputedStyle(s.iframe).display === "none";
      const ran = await s.run("1 + 1");
      const pending = s.run("import time\ntime.sleep(30)").catch((error) => `${error.code} ${error.message}`);
      s.destroy();
      const afterwards = await s.run("1").catch((error) => `${error.code} ${error.message}`);
      return { hidden, ran: ran.value.repr, pending: await pending, afterwards, attached: s.iframe.isConnected };
    });
    assert.deepEqual(out, {
      hidden: true,
      ran: "2",
      pending: "-32000 the Sandpit widget was destroyed",
      afterwards: "-32000 the Sandpit widget was destroyed",
      attached: false,
    });
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});

describe("the official MCP SDK client over postMessage", () => {
  let sandpit;
  before(async () => {
    sandpit = await openHost(host);
    await sandpit.page.waitForFunction(() => window.mcp);
  });
  after(async () => {
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });

  test("lists tools and files, gets the right content blocks for text, errors, images and files, and cancels a call it gives up on", async () => {
    const out = await sandpit.page.evaluate(async ({ widgetUrl, RED_SQUARE }) => {
      const { Client, IframeParentTransport, LoggingMessageNotificationSchema } = window.mcp;
      const iframe = document.createElement("iframe");
      iframe.src = widgetUrl;
      document.body.append(iframe);
      await new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));
      const transport = new IframeParentTransport({ iframe, targetOrigin: new URL(widgetUrl).origin });
      const client = new Client({ name: "sdk-test", version: "1.0.0" });
      const logs = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => logs.push(params));
      await client.connect(transport);
      const { tools } = await client.listTools();
      const progress = [];
      const text = await client.callTool({ name: "run_python", arguments: { code: "print('hello')\n2 + 3" } }, undefined, {
        onprogress: (update) => progress.push(update),
      });
      const error = await client.callTool({ name: "run_python", arguments: { code: "1 / 0" } });
      const image = await client.callTool({ name: "run_python", arguments: { code: RED_SQUARE } });
      const file = await client.callTool({
        name: "run_python",
        arguments: { code: "open('table.csv', 'w').write('a,b\\n1,2\\n')\nopen('blob.bin', 'wb').write(bytes(range(4)))" },
      });
      const check = await client.callTool({ name: "check_python", arguments: { code: "import sympy" } });
      const unknown = await client.callTool({ name: "nope", arguments: {} }).catch((e) => e.message);
      const listed = await client.listResources();
      const templates = await client.listResourceTemplates();
      const blob = await client.readResource({ uri: "sandpit://sessions/main/files/blob.bin" });
      const pong = await client.ping();
      // A call the client gives up on: the run is cancelled, and the session goes on.
      const controller = new AbortController();
      const slow = { name: "run_python", arguments: { code: "import time\ntime.sleep(30)", session: "slow" } };
      const abandoned = client.callTool(slow, undefined, { signal: controller.signal }).catch((e) => e.message);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      controller.abort("enough");
      await abandoned;
      const next = await client.callTool({ name: "run_python", arguments: { code: "'next'", session: "slow" } });
      await client.close();
      return {
        server: client.getServerVersion(),
        ...{ tools, text, error, image, file, check, unknown, logs, progress },
        ...{ listed, templates, blob, pong, next },
      };
    }, { widgetUrl: new URL("widget.html", app.url).href, RED_SQUARE });

    assert.equal(out.server.name, "sandpit");
    assert.deepEqual(
      out.tools.map((t) => t.name),
      ["run_python", "check_python", "reset_session"],
    );
    assert.deepEqual(out.tools[0].inputSchema.required, ["code"]);

    assert.equal(out.text.isError, false);
    assert.match(out.text.content[0].text, /--- stdout ---\nhello\n--- value ---\n5/);
    assert.equal(out.text.structuredContent.value.repr, "5");
    assert.ok(
      out.logs.some((log) => log.logger === "stdout" && log.data.text === "hello\n"),
      `stdout was streamed as a log notification: ${JSON.stringify(out.logs)}`,
    );
    // And, as logging is on its way out of MCP, in progress notifications' messages:
    // status without a stream, output with its stream in _meta, counting up.
    const streamed = out.progress.filter((update) => update._meta?.["sandpit/stream"]);
    assert.deepEqual(
      streamed.map((update) => [update._meta["sandpit/stream"], update.message]),
      [["stdout", "hello\n"]],
      JSON.stringify(out.progress),
    );
    assert.ok(out.progress.some((update) => update.message === "running" && !update._meta));
    const counts = out.progress.map((update) => update.progress);
    assert.deepEqual(counts, [...counts].sort((a, b) => a - b));
    assert.equal(new Set(counts).size, counts.length, "progress increases with every notification");

    assert.equal(out.error.isError, true);
    assert.match(out.error.content[0].text, /ZeroDivisionError: division by zero/);
    assert.equal(out.error.structuredContent.error.line, 1);

    const picture = out.image.content.find((block) => block.type === "image");
    assert.equal(picture?.mimeType, "image/png");
    assert.ok(Buffer.from(picture.data, "base64").subarray(1, 4).toString() === "PNG", "a real PNG");

    const resources = out.file.content.filter((block) => block.type === "resource").map((block) => block.resource);
    const csv = resources.find((r) => r.uri.endsWith("/table.csv"));
    assert.equal(csv.text, "a,b\n1,2\n");
    assert.equal(csv.uri, "sandpit://sessions/main/files/table.csv");
    assert.equal(resources.find((r) => r.uri.endsWith("/blob.bin")).blob, "AAECAw==");

    assert.equal(out.check.isError, false);
    assert.equal(out.check.structuredContent.imports[0].module, "sympy");
    assert.match(out.unknown, /no tool "nope"/);

    const listed = Object.fromEntries(out.listed.resources.map((r) => [r.name, r]));
    assert.deepEqual(listed["table.csv"], {
      uri: "sandpit://sessions/main/files/table.csv",
      name: "table.csv",
      title: "table.csv (session main)",
      size: 8,
    });
    assert.equal(out.templates.resourceTemplates[0].uriTemplate, "sandpit://sessions/{session}/files/{path}");
    assert.deepEqual(out.blob.contents, [
      { uri: "sandpit://sessions/main/files/blob.bin", mimeType: "application/octet-stream", blob: "AAECAw==" },
    ]);
    assert.deepEqual(out.pong, {});
    assert.equal(out.next.structuredContent.value.repr, "'next'");
    const frame = widgetFrame(sandpit.page);
    await frame.locator('[data-testid="run-entry"][data-phase="cancelled"]').waitFor({ timeout: 5_000 });
  });
});

describe("a page the deployment does not list", () => {
  test("is refused with a clear error, by the JS client and the SDK alike", async () => {
    const sandpit = await openHost(stranger);
    await sandpit.page.waitForFunction(() => window.mcp);
    const refusal = await createWidget(sandpit.page).then(
      () => "connected",
      (error) => error.message,
    );
    const origin = new URL(stranger.url).origin;
    assert.match(refusal, new RegExp(`refuses requests from ${origin}.*embed\\.allow`));
    // It names the file and the exact entry that would let this page in.
    const listed = [host, isolatedHost].map((server) => `"${new URL(server.url).origin}"`);
    assert.ok(refusal.includes("sandpit.config.json"), refusal);
    assert.ok(
      refusal.includes(`"embed": { "allow": [${[...listed, `"${new URL(crossSite(host)).origin}"`, `"${origin}"`].join(", ")}] }`),
      refusal,
    );
    const code = await sandpit.page.evaluate(
      (appUrl) =>
        import(new URL("sandpit-client.js", appUrl).href).then(({ Sandpit }) =>
          Sandpit.create({ timeoutMs: 60_000 }).then(
            () => null,
            (error) => error.code,
          ),
        ),
      app.url,
    );
    assert.equal(code, -32001);
    const sdk = await connectClient(sandpit.page, new URL("widget.html", app.url).href, "stranger");
    assert.match(sdk, /refuses requests from/);
    const frame = widgetFrame(sandpit.page);
    assert.match(await frame.getByTestId("widget-refused").textContent(), new RegExp(origin));
    assert.equal(await frame.locator('[data-testid="run-entry"]').count(), 0, "nothing ran");
    await sandpit.close();
  });
});
