// @ts-check
// Figure 7b: the app's own share of the download, everything in dist/
// except the vendored Pyodide, gzipped at level 9 as a static host would;
// and within it the app's own wasm and JS, which the target names.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { constants, gzipSync } from "node:zlib";

/** Directory of dist/ that is Pyodide's, not the app's. */
const VENDORED = "pyodide";

/** The app's code: its wasm, and JS whether classic scripts or modules. */
const CODE = /\.(wasm|js|mjs)$/;

/**
 * `{ total, code, files: [{ path, bytes, gzip, code }] }`, files largest gzip
 * first; `total` (all files) and `code` (its wasm and JS) as `{ bytes, gzip }`.
 */
export async function measureOwnSize(dist) {
  const files = [];
  for (const path of await listFiles(dist)) {
    const rel = relative(dist, path);
    if (rel.split("/")[0] === VENDORED) continue;
    const data = await readFile(path);
    const gzip = gzipSync(data, { level: constants.Z_BEST_COMPRESSION }).length;
    files.push({ path: rel, bytes: data.length, gzip, code: CODE.test(rel) });
  }
  files.sort((a, b) => b.gzip - a.gzip);
  const sum = (some) => ({
    bytes: some.reduce((total, file) => total + file.bytes, 0),
    gzip: some.reduce((total, file) => total + file.gzip, 0),
  });
  return { total: sum(files), code: sum(files.filter((file) => file.code)), files };
}

/**
 * Every file under `dir`, recursively, except hidden ones: Trunk stages the
 * next build in dist/.stage, which is not part of the app being served.
 */
export async function listFiles(dir) {
  const entries = (await readdir(dir, { withFileTypes: true })).filter((entry) => !entry.name.startsWith("."));
  const nested = await Promise.all(
    entries.map((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)])),
  );
  return nested.flat();
}
