// @ts-check
// The sandbox boundary under attack on the page and its resources: output
// that would run as markup or navigate the page, and code that would
// exhaust time, memory, output or the worker, run in the real app. Each
// case asserts the specific way it was stopped, and the page must keep
// answering after every case (attacks-app.mjs).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { failedWith, useAttackedApp } from "./attacks-app.mjs";

/** @type {import("./harness/page.mjs").SandpitPage} */
let sandpit;
const { leak, attempt } = useAttackedApp((ready) => {
  sandpit = ready.sandpit;
});

/** Waits (boundedly) for console messages that arrive after the action that caused them. */
async function eventually(condition, what) {
  for (let i = 0; i < 50 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(condition(), `never saw ${what}`);
}

describe("rendering", () => {
  test("printed markup is shown as text, never parsed", async () => {
    const scripts = await sandpit.page.locator("script").count();
    const result = await sandpit.run("print('<script>document.title = \"pwned\"</script><img src=x onerror=alert(1)>')");
    assert.equal(result.phase, "ok");
    assert.match(result.output[0].text, /<script>/);
    assert.equal(await sandpit.page.locator("script").count(), scripts);
    assert.equal(await sandpit.page.locator(".output img").count(), 0);
    assert.notEqual(await sandpit.page.title(), "pwned");
  });

  test("HTML output cannot navigate the page or load anything from the network", async () => {
    const pageUrl = sandpit.page.url();
    const result = await sandpit.run(
      [
        "class Evil:",
        "    def _repr_html_(self):",
        `        return '''<img src="${leak("html-img")}"><link rel=stylesheet href="${leak("html-css")}">`,
        `<script>fetch("${leak("html-fetch")}").catch(() => {}); top.location = "${leak("html-nav")}";</script>`,
        `<form action="${leak("html-form")}" target="_top" method="post"><input name=s value=x></form>`,
        "<script>document.forms[0].submit(); window.open('" + leak("html-popup") + "');</script>'''",
        "Evil()",
      ].join("\n"),
    );
    assert.equal(result.phase, "ok");
    assert.deepEqual(result.displays.find((d) => d.mime === "text/html")?.sandbox, "allow-scripts");
    const frame = sandpit.page.frames().find((f) => f.parentFrame() === sandpit.page.mainFrame());
    await frame.waitForLoadState();
    // Each attempt was refused by the browser, and said so.
    const refused = [/html-img.*img-src/, /html-css.*style-src/, /html-fetch.*default-src/, /html-nav/, /html-popup/];
    for (const pattern of refused) {
      await eventually(() => sandpit.errors.some((e) => pattern.test(e)), `a refusal matching ${pattern}`);
    }
    assert.equal(sandpit.page.url(), pageUrl, "the top page did not navigate");
    assert.equal(sandpit.page.context().pages().length, 1, "no popup opened");
  });

  test("markdown output is shown as text", async () => {
    const result = await sandpit.run(
      `class Md:\n    def _repr_markdown_(self): return '![x](${leak("md-img")}) <b>bold</b>'\nMd()`,
    );
    assert.deepEqual(result.displays.map((d) => [d.mime, d.tag]), [["text/markdown", "pre"]]);
  });
});

describe("exhaustion", () => {
  test("an infinite loop is stopped at the timeout", async () => {
    assert.equal((await attempt("while True:\n    pass")).status, "timeout");
  });

  test("a flood of output in one write is cut at the limit", async () => {
    const result = await attempt("print('x' * 50_000_000)");
    assert.equal(result.truncated.output, true);
    assert.equal(result.truncated.output_bytes_total, 50_000_001);
    assert.equal(result.stdout.length, 256 * 1024);
  });

  test("a huge return value is cut at the value limit", async () => {
    const result = await attempt("'x' * 50_000_000");
    assert.equal(result.value.truncated, true);
    assert.ok(result.value.repr.length <= 64 * 1024);
    assert.equal(result.value.json, null);
  });

  test("a huge rich output is dropped with a flag", async () => {
    const result = await attempt("class Big:\n    def _repr_html_(self): return 'x' * 20_000_000\nBig()");
    assert.equal(result.truncated.displays, true);
    assert.deepEqual(result.displays, []);
  });

  test("a memory bomb is an error, and the sandbox goes on", async () => {
    const result = await attempt("hoard = []\nwhile True:\n    hoard.append(bytearray(50_000_000))");
    assert.ok(["error", "crashed", "timeout"].includes(result.status), result.status);
    if (result.status === "error") assert.equal(result.error.type, "MemoryError");
    assert.equal((await attempt("del hoard\n'ok'")).status !== "crashed", true);
  });

  test("a worker bomb stops at the first worker", async () => {
    const result = await attempt(`import js\nfor i in range(1000):\n    js.Worker.new("${leak("bomb")}")`);
    failedWith(result, "AttributeError");
  });

  test("an asyncio task flood is stopped at the timeout", async () => {
    const result = await attempt(
      "import asyncio\nasync def spin():\n    while True:\n        await asyncio.sleep(0)\nawait asyncio.gather(*(spin() for _ in range(100)))",
    );
    assert.equal(result.status, "timeout");
  });

  test("an endless chain of JavaScript promise callbacks does not hang the sandbox", async () => {
    await sandpit.run("survivor = 'kept'");
    const result = await attempt(
      [
        "import js",
        "from pyodide.ffi import create_proxy",
        "def again(_=None):",
        "    js.Promise.resolve(0).then(proxy)",
        "proxy = create_proxy(again)",
        "again()",
      ].join("\n"),
    );
    assert.equal(result.status, "ok");
    // Pyodide runs each callback as a task, so the chain shares the worker
    // with later runs instead of starving them (SECURITY.md: CPU use).
    assert.equal((await sandpit.run("survivor")).value, "'kept'");
    assert.equal(await sandpit.page.evaluate(() => 1 + 1), 2);
  });
});
