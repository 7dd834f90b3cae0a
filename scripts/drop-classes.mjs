// @ts-check
// Trunk post-build hook (run before short-imports.mjs, see Trunk.toml):
// drops the classes wasm-bindgen exports from the loader, with the wasm
// exports behind them. The app exports none of its own; the ones there
// come from a dependency (wasm-streams, which Leptos requires through
// server_fn) and nothing constructs them: the page imports the loader for
// its `init` alone. Their code would be in every download. The wasm's
// functions behind the dropped exports go in short-imports.mjs's wasm-opt
// pass, which removes what nothing reaches any more.
//
// Checked as it goes, so a change in wasm-bindgen's output fails the build
// instead of shipping a loader that names what is gone: each class must be
// found whole, with its finalizer, and afterwards the loader must not name
// a class or a wasm export that was dropped, and the wasm must validate.
//
//   node scripts/drop-classes.mjs DIR    (on an already built bundle, before short-imports.mjs)
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import binaryen from "binaryen";
import { bundleDir } from "./hook.mjs";

/** A class as wasm-bindgen writes it, with the line that makes it disposable. */
const CLASS = /^export class (\w+) \{\n[\s\S]*?\n\}\n(?:if \(Symbol\.dispose\) \1\.prototype\[Symbol\.dispose\] = \1\.prototype\.free;\n)?/gm;

/**
 * The finalizer wasm-bindgen declares for class `name`.
 *
 * @param {string} name
 */
const finalizer = (name) =>
  new RegExp(`^const ${name}Finalization = \\(typeof FinalizationRegistry === 'undefined'\\)\\n.*\\n.*;\\n`, "m");

/**
 * The wasm exports of class `name`: its methods and its destructor.
 *
 * @param {string} name
 */
const exportsOf = (name) => new RegExp(`^(__wbg_)?${name.toLowerCase()}_`);

/**
 * Drops every class of the loader of the bundle's wasm (`*_bg.wasm` in
 * `dir`) and the wasm's exports behind them. Returns the classes' names.
 *
 * @param {string} dir
 */
export async function dropClasses(dir) {
  const wasms = (await readdir(dir)).filter((name) => name.endsWith("_bg.wasm"));
  if (wasms.length !== 1) throw new Error(`drop-classes: expected one *_bg.wasm in ${dir}, found ${wasms.length}`);
  const wasmPath = join(dir, wasms[0]);
  const loaderPath = join(dir, wasms[0].replace(/_bg\.wasm$/, ".js"));
  let loader = await readFile(loaderPath, "utf8");

  const classes = [...loader.matchAll(CLASS)].map((match) => match[1]);
  if (classes.length === 0) return classes;
  loader = loader.replace(CLASS, "");
  for (const name of classes) {
    if (!finalizer(name).test(loader)) throw new Error(`drop-classes: no finalizer of ${name} in ${loaderPath}`);
    loader = loader.replace(finalizer(name), "");
    if (new RegExp(`\\b${name}\\b`).test(loader)) throw new Error(`drop-classes: ${loaderPath} still uses ${name}`);
  }

  const module = binaryen.readBinary(await readFile(wasmPath));
  try {
    for (let i = module.getNumExports() - 1; i >= 0; i--) {
      const { name } = binaryen.getExportInfo(module.getExportByIndex(i));
      if (!classes.some((owner) => exportsOf(owner).test(name))) continue;
      if (new RegExp(`\\bwasm\\.${name}\\b`).test(loader)) throw new Error(`drop-classes: ${loaderPath} still calls ${name}`);
      module.removeExport(name);
    }
    if (!module.validate()) throw new Error("drop-classes: binaryen finds the rewritten wasm invalid");
    await writeFile(wasmPath, module.emitBinary());
  } finally {
    module.dispose();
  }
  await writeFile(loaderPath, loader);
  return classes;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const classes = await dropClasses(bundleDir("drop-classes"));
  console.log(`drop-classes: dropped ${classes.length} unused classes (${classes.join(", ")})`);
}
