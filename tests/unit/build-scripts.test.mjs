// @ts-check
// The build's own steps on a bundle made for the test: the precache list
// written into the service worker (scripts/precache.mjs), and the
// embedding client built as one module with the names and its own modules
// written into it (scripts/minify.mjs's plugin, as scripts/client-package.mjs uses it).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

import { CONFIG_FILE } from "../../www/generated/names.js";
import { clientWrittenIn, namesWrittenIn, workerWrittenIn } from "../../scripts/minify.mjs";
import { readPrecache, SW_FILE, writePrecache } from "../../scripts/precache.mjs";

/** @type {string} */
let dir;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "sandpit-unit-bundle-"));
  await mkdir(join(dir, "pyodide"));
  await mkdir(join(dir, ".stage"));
  await writeFile(join(dir, "index.html"), "<!doctype html>");
  await writeFile(join(dir, "pyodide", "pyodide.mjs"), "export {};");
  await writeFile(join(dir, ".stage", "next.js"), "staged");
  await writeFile(join(dir, CONFIG_FILE), "{}");
  await writeFile(join(dir, SW_FILE), 'const PRECACHE = { version: "unbuilt", files: {} };\nself.addEventListener("fetch", () => {});\n');
});

after(() => rm(dir, { recursive: true, force: true }));

test("the precache lists every file but the service worker, the config and hidden ones, and its version follows them", async () => {
  const written = await writePrecache(dir);
  assert.deepEqual(Object.keys(written.files), ["index.html", "pyodide/pyodide.mjs"]);
  assert.deepEqual(written.files["index.html"], { sha256: createHash("sha256").update("<!doctype html>").digest("hex"), size: 15 });
  assert.deepEqual(await readPrecache(dir), written, "what was written is read back");
  const again = await writePrecache(dir);
  assert.equal(again.version, written.version, "the same files, the same version");
  await writeFile(join(dir, "index.html"), "<!doctype html><title>new</title>");
  assert.notEqual((await writePrecache(dir)).version, written.version, "a changed file is a new version");
  const sw = await readFile(join(dir, SW_FILE), "utf8");
  assert.match(sw, /^const PRECACHE = \{"version":"[0-9a-f]{16}","files":\{/);
  assert.match(sw, /self\.addEventListener\("fetch"/, "the rest of the service worker stays");
});

/**
 * `file` of the repository bundled as the build bundles it, with `plugin` resolving its imports.
 *
 * @param {string} file
 * @param {import("esbuild").Plugin} plugin
 */
async function bundled(file, plugin) {
  const { outputFiles } = await build({
    stdin: { contents: await readFile(fileURLToPath(new URL(`../../${file}`, import.meta.url)), "utf8"), loader: "js" },
    bundle: true,
    format: "esm",
    write: false,
    plugins: [plugin],
  });
  return outputFiles[0].text;
}

test("the embedding client is one module: its own modules and the names written in, no import left", async () => {
  const one = await bundled("www/sandpit-client.js", clientWrittenIn);
  assert.doesNotMatch(one, /^\s*import\b/m);
  assert.match(one, /\bWidgetChannel = class\b/, "the transport is in it");
  assert.match(one, /sandpit-run/, "the renderer is in it");
  assert.match(one, /\bHostFunctions = class\b/, "the page's functions are in it");
  assert.match(one, /\bfunction runBatch\(/, "runMany's batches are in it");
  assert.match(one, /mcp-iframe/, "the names are written in");
  // The plugin every other file gets leaves the client's own modules to the browser.
  assert.match(await bundled("www/sandpit-client.js", namesWrittenIn), /from "\.\/sandpit-transport\.js"/);
});

test("the Python worker is one module too; Pyodide's own files are still imported where it runs", async () => {
  const one = await bundled("pyodide-loader/worker.mjs", workerWrittenIn);
  assert.doesNotMatch(one, /^\s*import\b[^(]/m);
  assert.match(one, /\bMessageLoop = class\b/);
  assert.match(one, /\bSnapshotRejected = class\b/, "snapshot.mjs is in it");
  assert.match(one, /import\(new URL\("pyodide\.mjs", PYODIDE_URL\)\.href\)/);
  assert.match(one, /new URL\(RUNNER_PACK, import\.meta\.url\)/, "the runner is fetched from beside the worker's script");
  assert.match(one, /\basync function unpacked\b/, "www/unpack.js is in it");
});
