// @ts-check
// The built bundle (dist/) ships no JS snippet on its own: the build writes
// the app's snippets into wasm-bindgen's glue (scripts/minify.mjs), and a
// file left in snippets/ would still be precached by the service worker, so
// a stray one costs every visit. wasm-bindgen never deletes a snippet an
// earlier build of other code wrote, and Trunk ships whatever it finds
// (scripts/build.sh starts from a clean slate for that reason). And every
// module it ships finds what it imports there: the names generated for the
// JS are written into each file that uses them, not left to be fetched.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join, posix, relative, sep } from "node:path";
import { test } from "node:test";

import { DIST } from "./harness.mjs";

/** Every file below `dir`, as a path relative to dist/ with forward slashes. */
async function filesBelow(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(DIST, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

test("the bundle ships no JS snippet: the glue has them written in", async () => {
  const names = await readdir(DIST);
  const glueName = names.find((name) => /^sandpit-[0-9a-f]+\.js$/.test(name));
  assert.ok(glueName, `no wasm-bindgen glue in ${DIST}: run \`make build\` first`);
  const glue = await readFile(join(DIST, glueName), "utf8");
  // The wasm's imports still name the snippets (keys of the glue's import object), but none is fetched.
  assert.deepEqual(glue.match(/(?:\bfrom|\bimport\s*\(?)\s*["'][^"']*snippets\//g) ?? [], []);

  const shipped = names.includes("snippets") ? await filesBelow(join(DIST, "snippets")) : [];
  assert.deepEqual(shipped, []);
  const index = await readFile(join(DIST, "index.html"), "utf8");
  assert.doesNotMatch(index, /snippets\//);
});

test("every module the bundle ships imports only files it ships", async () => {
  const shipped = new Set(await filesBelow(DIST));
  // The pages too: their inline module script imports wasm-bindgen's glue.
  const modules = [...shipped].filter(
    (path) => (/\.m?js$/.test(path) || /^[a-z]+\.html$/.test(path)) && !path.startsWith("pyodide/"),
  );
  assert.ok(modules.includes("pyodide-loader/worker.mjs"), `no worker in ${DIST}: run \`make build\` first`);
  const missing = [];
  let imports = 0;
  for (const path of modules) {
    const code = await readFile(join(DIST, path), "utf8");
    // Static imports and exports, minified or not, and literal dynamic imports; in a page, those of its scripts.
    for (const [, specifier] of code.matchAll(/(?:\bfrom|\bimport\s*\(?)\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      imports += 1;
      const target = posix.normalize(posix.join(posix.dirname(path), specifier));
      if (!shipped.has(target)) missing.push(`${path} imports ${specifier}`);
    }
  }
  assert.ok(imports > 0, "no relative import found: the check below would prove nothing");
  assert.deepEqual(missing, []);
});
