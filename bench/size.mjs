// @ts-check
// Figure 7b: the app's own share of the download, everything in dist/
// except the vendored Pyodide, gzipped at level 9 as a static host would;
// within it the app's own wasm and JS, which the budget names; and apart,
// the libraries in vendor/ that load only on first use (KaTeX, on the first
// math display), counted like Pyodide's packages rather than as the app's code.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { constants, gzipSync } from "node:zlib";

/** Directory of dist/ that is Pyodide's, not the app's. */
const VENDORED = "pyodide";

/** Libraries the page loads on first use, not on opening (scripts/vendor-katex.mjs). */
const ON_FIRST_USE = "vendor";

/** The app's code: its wasm, and JS whether classic scripts or modules. */
const CODE = /\.(wasm|js|mjs)$/;

/**
 * `{ total, code, onFirstUse, files: [{ path, bytes, gzip, code, onFirstUse }] }`,
 * files largest gzip first; `total` (all files), `code` (its own wasm and JS)
 * and `onFirstUse` (the wasm and JS of vendor/) as `{ bytes, gzip }`.
 */
export async function measureOwnSize(dist) {
  const files = [];
  for (const path of await listFiles(dist)) {
    const rel = relative(dist, path);
    if (rel.split("/")[0] === VENDORED) continue;
    const data = await readFile(path);
    const gzip = gzipSync(data, { level: constants.Z_BEST_COMPRESSION }).length;
    const onFirstUse = rel.split("/")[0] === ON_FIRST_USE;
    files.push({ path: rel, bytes: data.length, gzip, code: CODE.test(rel) && !onFirstUse, onFirstUse });
  }
  files.sort((a, b) => b.gzip - a.gzip);
  const sum = (some) => ({
    bytes: some.reduce((total, file) => total + file.bytes, 0),
    gzip: some.reduce((total, file) => total + file.gzip, 0),
  });
  return {
    total: sum(files),
    code: sum(files.filter((file) => file.code)),
    onFirstUse: sum(files.filter((file) => file.onFirstUse && CODE.test(file.path))),
    files,
  };
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
