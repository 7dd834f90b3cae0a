// @ts-check
// The embeddable widget driven by the JS client (www/sandpit-client.js)
// from a page on another origin: on a cross-origin isolated page, with
// streamed output, files, checks, resets, every rejection's code and Stop,
// and headless. The pages and the app are those of widget-hosts.mjs.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { useWidgetHosts, widgetFrame } from "./widget-hosts.mjs";

let host;
let isolatedHost;
const { openHost, createWidget } = useWidgetHosts((ready) => {
  ({ host, isolatedHost } = ready);
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
