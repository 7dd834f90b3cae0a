// @ts-check
// Trunk post-build hook (run before minify.mjs, see Trunk.toml): gives the
// functions the app's wasm imports from its wasm-bindgen loader short names.
//
// wasm-bindgen names each import after what it binds plus a 16-digit hash,
// e.g. `__wbg_addEventListener_a1b2c3d4e5f60718`, and every name is written
// twice: in the wasm's import section and as a key of the loader's import
// object. The hashes do not compress. Here each becomes `_0`, `_1`, ... in
// both files, which load and link exactly as before. Binaryen (its JS API)
// rewrites the wasm: wasm-opt's `--minify-imports` renames only imports from
// `env` and `wasi_*`, and its variants that rename every module's imports
// also rename the exports, which the loader and Trunk's start event name.
//
// The rewritten wasm then goes through wasm-opt's -Oz once more: Trunk's
// pass ran before the rewrite, and a pass after it finds more to shrink.
//
// Checked as it goes, so a change in wasm-bindgen's output fails the build
// instead of shipping a loader that cannot link (or quietly renaming
// nothing): some imports must have hashed names, each renamed import must be
// a key of the loader exactly once, and the rewritten wasm must validate,
// compile and import the same things, renamed, in the same order.
//
//   node scripts/short-imports.mjs DIR    (on an already built bundle; once;
//                                          wasm-opt on PATH, as scripts/build.sh puts it)
import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import binaryen from "binaryen";
import { bundleDir } from "./hook.mjs";

/** An import name as wasm-bindgen writes it: a binding's name and its hash. */
const HASHED = /^__wbg_\w+_[0-9a-f]{16}$/;

/**
 * wasm-opt as index.html's `data-wasm-opt` and `data-wasm-opt-params` run it,
 * but for their `-g`: the names served order-functions.mjs, which ran before,
 * and these passes keep the order it left.
 */
const WASM_OPT = ["-Oz", "--low-memory-unused"];

/**
 * Renames the hashed imports of the bundle's wasm (`*_bg.wasm` in `dir`) and
 * the matching keys of its loader (the `.js` of the same stem), then runs
 * wasm-opt over the wasm again. Returns how many imports it renamed.
 *
 * @param {string} dir
 */
export async function shortenImports(dir) {
  const wasms = (await readdir(dir)).filter((name) => name.endsWith("_bg.wasm"));
  if (wasms.length !== 1) throw new Error(`short-imports: expected one *_bg.wasm in ${dir}, found ${wasms.length}`);
  const wasmPath = join(dir, wasms[0]);
  const loaderPath = join(dir, wasms[0].replace(/_bg\.wasm$/, ".js"));
  const wasm = await readFile(wasmPath);
  let loader = await readFile(loaderPath, "utf8");

  /** @type {Map<string, string>} */
  const renames = new Map();
  const renamed = renameImports(wasm, (name) => {
    if (!HASHED.test(name)) return name;
    if (!renames.has(name)) renames.set(name, `_${renames.size.toString(36)}`);
    return /** @type {string} */ (renames.get(name));
  });
  if (renames.size === 0) {
    throw new Error(`short-imports: no import of ${wasmPath} is named as wasm-bindgen names them; did its naming change?`);
  }
  for (const [name, short] of renames) {
    // Named once in the whole loader, and there as a key.
    if (loader.split(name).length !== 2 || !loader.includes(`${name}:`)) {
      throw new Error(`short-imports: ${name} is not a key of ${loaderPath} exactly once`);
    }
    loader = loader.replace(`${name}:`, `${short}:`);
  }
  checkSameImports(wasm, renamed, renames);
  await writeFile(wasmPath, renamed);
  await promisify(execFile)("wasm-opt", [...WASM_OPT, wasmPath, "-o", wasmPath]);
  checkSameImports(wasm, await readFile(wasmPath), renames);
  await writeFile(loaderPath, loader);
  return renames.size;
}

/**
 * A copy of the wasm module `bytes` whose imported functions are named
 * `rename(name)`. Binaryen can only add an import, not rename one, so every
 * imported function is removed and added again in its order: calls refer
 * to it by its internal name, which stays, and its index stays too.
 *
 * @param {Uint8Array} bytes
 * @param {(name: string) => string} rename
 */
function renameImports(bytes, rename) {
  const module = binaryen.readBinary(bytes);
  try {
    const imported = [];
    for (let i = 0; i < module.getNumFunctions(); i++) {
      const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
      if (info.module) imported.push(info);
    }
    for (const { name } of imported) module.removeFunction(name);
    for (const { name, module: from, base, params, results } of imported) {
      const renamed = rename(/** @type {string} */ (base));
      module.addFunctionImport(name, /** @type {string} */ (from), renamed, params, results);
    }
    if (!module.validate()) throw new Error("short-imports: binaryen finds the rewritten wasm invalid");
    return module.emitBinary();
  } finally {
    module.dispose();
  }
}

/**
 * The imports of `after` are those of `before`, renamed by `renames`.
 *
 * @param {Uint8Array<ArrayBuffer>} before
 * @param {Uint8Array} after
 * @param {Map<string, string>} renames
 */
function checkSameImports(before, after, renames) {
  const listed = (/** @type {Uint8Array} */ bytes) =>
    WebAssembly.Module.imports(new WebAssembly.Module(/** @type {Uint8Array<ArrayBuffer>} */ (bytes)));
  const expected = listed(before).map((entry) => ({ ...entry, name: renames.get(entry.name) ?? entry.name }));
  if (JSON.stringify(listed(after)) !== JSON.stringify(expected)) {
    throw new Error("short-imports: the rewritten wasm does not import what the original did");
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const count = await shortenImports(bundleDir("short-imports"));
  console.log(`short-imports: ${count} imports of the app's wasm renamed`);
}
