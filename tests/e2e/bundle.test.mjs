// The built bundle (dist/) ships the app's own JS snippets and no others:
// every page load preloads them and the service worker caches them, so a
// stray one costs every visit. wasm-bindgen never deletes a snippet an
// earlier build of other code wrote, and Trunk ships whatever it finds
// (scripts/build.sh starts from a clean slate for that reason).
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { test } from "node:test";

import { DIST } from "./harness.mjs";

/** Every file below `dir`, as a path relative to dist/ with forward slashes. */
async function filesBelow(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(DIST, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

test("every JS snippet in the bundle is one the app's glue imports", async () => {
  const names = await readdir(DIST);
  const glueName = names.find((name) => /^sandpit-[0-9a-f]+\.js$/.test(name));
  assert.ok(glueName, `no wasm-bindgen glue in ${DIST}: run \`make build\` first`);
  const glue = await readFile(join(DIST, glueName), "utf8");
  const imported = new Set(glue.match(/snippets\/[^"'`]+\.js/g));
  assert.ok(imported.size > 0, "the glue imports no snippet: the check below would prove nothing");

  const shipped = await filesBelow(join(DIST, "snippets"));
  assert.deepEqual(shipped.sort(), [...imported].sort());
});
