// Trunk post-build hook: copies the Pyodide core from node_modules into the
// bundle (so nothing is fetched from a CDN) and writes a manifest with each
// size of each file Pyodide fetches (the two .mjs files are imported, not
// fetched), which lets the worker show download progress in bytes before the
// first response arrives.
import { copyFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

const IMPORTED = ["pyodide.mjs", "pyodide.asm.mjs"];
const FETCHED = ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) {
  console.error("vendor-pyodide: TRUNK_STAGING_DIR is not set; run through `trunk build`.");
  process.exit(1);
}

const source = join("node_modules", "pyodide");
const target = join(staging, "pyodide");
await mkdir(target, { recursive: true });

const pkg = JSON.parse(await readFile(join(source, "package.json"), "utf8"));
const fetched = {};
for (const name of [...IMPORTED, ...FETCHED]) {
  await copyFile(join(source, name), join(target, name));
}
for (const name of FETCHED) {
  fetched[name] = (await stat(join(target, name))).size;
}
await writeFile(
  join(target, "manifest.json"),
  JSON.stringify({ version: pkg.version, fetched }, null, 2),
);
console.log(`vendor-pyodide: Pyodide ${pkg.version} copied to ${target}`);
