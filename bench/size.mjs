// @ts-check
// Figure 7b: the app's own share of the download, everything in dist/
// except the vendored Pyodide, gzipped at level 9 as a static host would;
// within it the app's own wasm and JS that the first paint needs, which the
// budget names; apart, the code editor (CodeMirror, vendor/codemirror/),
// which the page loads once the app is on screen, so every visit downloads
// it but the first paint does not wait for it; and the libraries in vendor/
// that load only on first use (KaTeX, on the first math display), counted
// like Pyodide's packages rather than as the app's code.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { constants, gzipSync } from "node:zlib";

/** Directory of dist/ that is Pyodide's, not the app's. */
const VENDORED = "pyodide";

/** The libraries of the bundle that are not the app's own code (scripts/vendor-*.mjs). */
const LIBRARIES = "vendor";

/** Of those, the one the page loads on opening, once the app is on screen (scripts/vendor-codemirror.mjs). */
const AFTER_FIRST_PAINT = "vendor/codemirror/";

/** The app's code: its wasm (which the bundle ships gzipped), and JS whether classic scripts or modules. */
const CODE = /\.(wasm|js|mjs)(\.gz)?$/;

/**
 * `{ total, code, afterFirstPaint, onFirstUse, files: [{ path, bytes, gzip, code, afterFirstPaint, onFirstUse }] }`,
 * files largest gzip first; `total` (all files), `code` (its own wasm and
 * JS), `afterFirstPaint` (the editor's) and `onFirstUse` (the rest of
 * vendor/'s wasm and JS) as `{ bytes, gzip }`.
 */
export async function measureOwnSize(dist) {
  const files = [];
  for (const path of await listFiles(dist)) {
    const rel = relative(dist, path);
    if (rel.split("/")[0] === VENDORED) continue;
    const data = await readFile(path);
    // A file the bundle ships gzipped already (scripts/gzip-files.mjs) counts as it is.
    const gzip = rel.endsWith(".gz") ? data.length : gzipSync(data, { level: constants.Z_BEST_COMPRESSION }).length;
    const library = rel.split("/")[0] === LIBRARIES;
    const afterFirstPaint = rel.startsWith(AFTER_FIRST_PAINT);
    const onFirstUse = library && !afterFirstPaint;
    files.push({ path: rel, bytes: data.length, gzip, code: CODE.test(rel) && !library, afterFirstPaint, onFirstUse });
  }
  files.sort((a, b) => b.gzip - a.gzip);
  const sum = (some) => ({
    bytes: some.reduce((total, file) => total + file.bytes, 0),
    gzip: some.reduce((total, file) => total + file.gzip, 0),
  });
  return {
    total: sum(files),
    code: sum(files.filter((file) => file.code)),
    afterFirstPaint: sum(files.filter((file) => file.afterFirstPaint && CODE.test(file.path))),
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
