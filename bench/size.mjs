// Figure 7b: the app's own share of the download, everything in dist/
// except the vendored Pyodide, gzipped at level 9 as a static host would.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { constants, gzipSync } from "node:zlib";

/** Directory of dist/ that is Pyodide's, not the app's. */
const VENDORED = "pyodide";

/** `{ total: { bytes, gzip }, files: [{ path, bytes, gzip }] }`, largest gzip first. */
export async function measureOwnSize(dist) {
  const files = [];
  for (const path of await listFiles(dist)) {
    const rel = relative(dist, path);
    if (rel.split("/")[0] === VENDORED) continue;
    const data = await readFile(path);
    files.push({ path: rel, bytes: data.length, gzip: gzipSync(data, { level: constants.Z_BEST_COMPRESSION }).length });
  }
  files.sort((a, b) => b.gzip - a.gzip);
  const total = (key) => files.reduce((sum, file) => sum + file[key], 0);
  return { total: { bytes: total("bytes"), gzip: total("gzip") }, files };
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
