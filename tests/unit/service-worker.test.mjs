// @ts-check
// The service worker's pure parts (www/sw-files.js, sw-config.js,
// sw-packages.js): which file a request asks for, bytes checked against
// their hash (downloaded from a local server), the config's check, and the
// package hashes the lockfiles pin.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";

import { CONFIG_FILE } from "../../www/generated/names.js";
import { checkConfig } from "../../www/sw-config.js";
import { keptOnlyWhenAsked } from "../../www/sw-bundle.js";
import { download, failure, inParallel, precachedPath, reuseOrDownload, sha256, stored } from "../../www/sw-files.js";
import { baseName, isPackageFile, lockedHashes } from "../../www/sw-packages.js";

const BODY = Buffer.from("print('hello')\n");
const BODY_SHA256 = createHash("sha256").update(BODY).digest("hex");

/** @type {import("node:http").Server} */
let server;
let base = "";

before(async () => {
  server = createServer((request, response) => {
    if (request.url === "/missing") response.writeHead(404).end("not found");
    else response.writeHead(200, { "Content-Type": "text/x-python" }).end(BODY);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  base = `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}`;
});

after(() => new Promise((resolve) => server.close(() => resolve(undefined))));

describe("precachedPath", () => {
  const scope = new URL("https://host.example/app/");
  const files = { "index.html": {}, "pyodide/pyodide.mjs": {}, "a b.js": {} };

  test("a file of the bundle, by its path under the app's scope", () => {
    assert.equal(precachedPath(new URL("https://host.example/app/pyodide/pyodide.mjs?v=1"), scope, files), "pyodide/pyodide.mjs");
    assert.equal(precachedPath(new URL("https://host.example/app/"), scope, files), "index.html");
    assert.equal(precachedPath(new URL("https://host.example/app/a%20b.js"), scope, files), "a b.js");
    assert.equal(precachedPath(new URL(`https://host.example/app/${CONFIG_FILE}`), scope, files), CONFIG_FILE, "the config, which is not listed");
  });

  test("nothing outside the scope, the origin or the list", () => {
    assert.equal(precachedPath(new URL("https://host.example/other/index.html"), scope, files), null);
    assert.equal(precachedPath(new URL("https://else.example/app/index.html"), scope, files), null);
    assert.equal(precachedPath(new URL("https://host.example/app/unlisted.js"), scope, files), null);
  });
});

describe("bytes checked against their sha256", () => {
  test("a download that matches comes with its type", async () => {
    const found = await download(`${base}/runner.py`, BODY_SHA256);
    assert.equal(Buffer.from(found.bytes).toString(), BODY.toString());
    assert.equal(found.type, "text/x-python");
    assert.equal(await sha256(found.bytes), BODY_SHA256);
  });

  test("one that does not match, or fails, is an error that says so", async () => {
    await assert.rejects(download(`${base}/runner.py`, "0".repeat(64)), /does not match the expected 0000/);
    await assert.rejects(download(`${base}/missing`, null), /HTTP 404/);
  });

  test("a copy from the HTTP cache is used when it matches, else it is downloaded and checked the same way", async () => {
    const found = await reuseOrDownload(`${base}/runner.py`, BODY_SHA256);
    assert.equal(Buffer.from(found.bytes).toString(), BODY.toString());
    await assert.rejects(reuseOrDownload(`${base}/runner.py`, "0".repeat(64)), /does not match the expected 0000/);
    await assert.rejects(reuseOrDownload(`${base}/missing`, BODY_SHA256), /HTTP 404/);
  });

  test("kept bytes are served with their type and length and the given headers only", async () => {
    const response = stored({ bytes: new TextEncoder().encode("abc").buffer, type: "text/plain" }, { "X-Content-Type-Options": "nosniff" });
    assert.equal(response.headers.get("Content-Length"), "3");
    assert.equal(response.headers.get("Content-Type"), "text/plain");
    assert.equal(response.headers.get("X-Content-Type-Options"), "nosniff");
    assert.equal(await response.text(), "abc");
    const refused = failure(503, "Sandpit could not load x", { "Content-Type": "application/json" });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("Content-Type"), "text/plain; charset=utf-8");
  });
});

test("inParallel runs every item, never more than the limit at once, and fails on the first failure", async () => {
  let running = 0;
  let most = 0;
  /** @type {number[]} */
  const done = [];
  await inParallel([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    done.push(item);
    running -= 1;
  });
  assert.deepEqual(done.sort(), [1, 2, 3, 4, 5, 6, 7]);
  assert.equal(most, 3);
  await assert.rejects(
    inParallel([1, 2], 2, async (item) => {
      if (item === 2) throw new Error("item 2 failed");
    }),
    /item 2 failed/,
  );
});

test("of the bundle's files, only the wheels wait until a page asks for the whole offline copy", () => {
  assert.equal(keptOnlyWhenAsked("pyodide/sympy-1.14.0-py3-none-any.whl"), true);
  for (const path of ["index.html", "pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip", "pyodide-loader/python.json.gz", "sandpit-0123456789abcdef_bg.wasm.gz"]) {
    assert.equal(keptOnlyWhenAsked(path), false, path);
  }
});

test("the config is kept only when it is a JSON object", () => {
  const bytes = (/** @type {string} */ text) => new TextEncoder().encode(text).buffer;
  assert.deepEqual(checkConfig(bytes('{"network": {"allow": []}}')), { network: { allow: [] } });
  assert.throws(() => checkConfig(bytes("{")), new RegExp(`${CONFIG_FILE} is not valid JSON`));
  for (const text of ["[]", "null", "3"]) assert.throws(() => checkConfig(bytes(text)), /is not a JSON object/);
});

test("packages are matched to the lockfiles' hashes by file name", () => {
  const hashes = lockedHashes([
    {
      packages: {
        micropip: { file_name: "micropip-0.11.1-py3-none-any.whl", sha256: "aa" },
        numpy: { file_name: "https://cdn.example/v1/full/numpy-2.0-cp314-pyodide.whl", sha256: "bb" },
        unhashed: { file_name: "x.whl" },
      },
    },
    null,
  ]);
  assert.deepEqual(Object.fromEntries(hashes), { "micropip-0.11.1-py3-none-any.whl": "aa", "numpy-2.0-cp314-pyodide.whl": "bb" });
  assert.equal(baseName("https://cdn.example/a/b.whl"), "b.whl");
  assert.equal(isPackageFile(new URL("https://cdn.example/a/b.whl")), true);
  assert.equal(isPackageFile(new URL("https://cdn.example/a/libopenblas.zip")), true);
  assert.equal(isPackageFile(new URL("https://cdn.example/a/pyodide-lock.json")), false);
});
