// @ts-check
// The bundle's own gzipped files: the build step that gzips the app's wasm
// and points the page's loader at it (scripts/gzip-files.mjs), on a bundle
// made for the test as Trunk writes one, and what the page and the worker
// do with what the host sends (www/unpack.js), with Node's fetch types.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { gunzipSync } from "node:zlib";

import { gzip, gzipWasm, loadGzipped } from "../../scripts/gzip-files.mjs";
import { unpacked } from "../../www/unpack.js";

const WASM = "app-0123abcd_bg.wasm";

/** The page as Trunk 0.21 writes it: the wasm's preload and the loader's `init` call. */
const PAGE = `<!doctype html><html><head>
<link rel="preload" href="./${WASM}" crossorigin="anonymous" as="fetch" type="application/wasm">
<script type="module">
import init, * as bindings from './app-0123abcd.js';
const wasm = await init({ module_or_path: './${WASM}' });
</script></head><body></body></html>`;

/** Bytes that start as a wasm module does. */
const MODULE = Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), Buffer.alloc(4096, 7)]);

/** @type {string} */
let dir;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "sandpit-unit-gzip-"));
  await writeFile(join(dir, WASM), MODULE);
  await writeFile(join(dir, "index.html"), PAGE);
});

after(() => rm(dir, { recursive: true, force: true }));

test("the wasm ships gzipped in its place, and the page preloads and loads that file", async () => {
  const { before: whole, after: packed } = await gzipWasm(dir);
  assert.equal(whole, MODULE.length);
  assert.ok(packed < whole / 10, `${packed} bytes gzipped`);
  assert.deepEqual((await readdir(dir)).sort(), [`${WASM}.gz`, "index.html"]);
  assert.deepEqual(gunzipSync(await readFile(join(dir, `${WASM}.gz`))), MODULE);

  const page = await readFile(join(dir, "index.html"), "utf8");
  assert.match(page, new RegExp(`<link rel="preload" href="\\./${WASM}\\.gz" crossorigin="anonymous" as="fetch">`));
  assert.match(page, new RegExp(`module_or_path: fetch\\('\\./${WASM}\\.gz'\\)\\.then\\(\\(response\\) => unpacked\\(response, "application/wasm"\\)\\)`));
  assert.match(page, /<script type="module">\nasync function unpacked\(response, type\) \{/, "the loader has the function it calls");
  assert.doesNotMatch(page, new RegExp(`${WASM}['"]`), "nothing names the wasm as it was");
});

test("a page whose loader it does not know stops the build", () => {
  assert.throws(() => loadGzipped(PAGE.replace("module_or_path", "module"), WASM), /expected one init call of .* found 0/);
  assert.throws(() => loadGzipped(PAGE.replace(`href="./${WASM}"`, 'href="./other.wasm"'), WASM), /expected one preload/);
});

test("a gzipped file is decompressed as it arrives, with the type it is", async () => {
  const response = await unpacked(new Response(gzip(MODULE)), "application/wasm");
  assert.equal(response.headers.get("content-type"), "application/wasm");
  assert.deepEqual(Buffer.from(await response.arrayBuffer()), MODULE);
  const json = await unpacked(new Response(gzip(JSON.stringify({ "a.py": "x = 1\n" }))), "application/json");
  assert.deepEqual(await json.json(), { "a.py": "x = 1\n" });
});

test("a file the browser decompressed already (the host sent it with Content-Encoding) passes through", async () => {
  const response = await unpacked(new Response(MODULE), "application/wasm");
  assert.deepEqual(Buffer.from(await response.arrayBuffer()), MODULE);
});

test("a file that could not be fetched is an error that names it", async () => {
  const missing = new Response("not here", { status: 404 });
  Object.defineProperty(missing, "url", { value: "https://sandpit.test/python.json.gz" });
  await assert.rejects(unpacked(missing, "application/json"), /https:\/\/sandpit\.test\/python\.json\.gz could not be fetched \(HTTP 404\)/);
});
