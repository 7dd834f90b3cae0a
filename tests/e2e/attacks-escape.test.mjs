// @ts-check
// The sandbox boundary under attack from inside the worker: Python a
// prompt-injected model might write reaches for the app's storage, forges
// messages to the page, and evaluates code around the CSP, run in the real
// app; each case asserts the specific way it was stopped, and the page must
// keep answering after every case (attacks-app.mjs).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { failedWith, useAttackedApp } from "./attacks-app.mjs";
import { reachableNamesCode } from "./harness/python.mjs";

/** @type {import("./harness/page.mjs").SandpitPage} */
let sandpit;
const { leak, attempt } = useAttackedApp((ready) => {
  sandpit = ready.sandpit;
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
