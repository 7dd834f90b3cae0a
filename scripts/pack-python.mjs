// @ts-check
// Trunk post-build hook (after minify.mjs, before precache.mjs, see
// Trunk.toml): packs the Python packages the worker installs (the runner,
// `sandpit_runner/`, and the module the code imports, `sandpit/`) into one
// file of the bundle, pyodide-loader/python.json.gz (each file's path under
// site-packages and its source, as JSON, gzipped as gzip-files.mjs gzips the
// wasm), and removes their folders: a worker fetches one file instead of one
// per module.
//
//   node scripts/pack-python.mjs DIR    (packs an already built bundle)
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { RUNNER_PACK } from "../www/generated/names.js";
import { gzip } from "./gzip-files.mjs";
import { bundleDir } from "./hook.mjs";
import { walk } from "./precache.mjs";

/** The packages, as folders of pyodide-loader/. */
export const PYTHON_PACKAGES = ["sandpit_runner", "sandpit"];

/**
 * Packs the packages found under `dir`/pyodide-loader; returns how many files.
 *
 * @param {string} dir
 */
export async function packPython(dir) {
  const loader = join(dir, "pyodide-loader");
  /** @type {Record<string, string>} */
  const files = {};
  for (const name of PYTHON_PACKAGES) {
    const root = join(loader, name);
    if (!existsSync(root)) continue;
    for await (const path of walk(root)) {
      if (!path.endsWith(".py")) continue;
      files[relative(loader, path).split(sep).join("/")] = await readFile(path, "utf8");
    }
    await rm(root, { recursive: true });
  }
  if (!files["sandpit_runner/__init__.py"]) throw new Error("pack-python: no sandpit_runner package in the bundle");
  await writeFile(join(loader, RUNNER_PACK), gzip(JSON.stringify(files)));
  return Object.keys(files).length;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const count = await packPython(bundleDir("pack-python"));
  console.log(`pack-python: ${count} Python files packed into pyodide-loader/${RUNNER_PACK}`);
}
