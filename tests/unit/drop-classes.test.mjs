// @ts-check
// The build's steps on wasm-bindgen's loader, on a bundle made for the test:
// the unused classes dropped with the wasm exports behind them
// (scripts/drop-classes.mjs), and the snippets written into the loader
// (scripts/minify.mjs's plugin).
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import binaryen from "binaryen";
import { build } from "esbuild";

import { dropClasses } from "../../scripts/drop-classes.mjs";
import { glueWrittenIn } from "../../scripts/minify.mjs";

/** @type {string} */
let dir;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "sandpit-unit-loader-"));
});

after(() => rm(dir, { recursive: true, force: true }));

/** A wasm module exporting functions of these names, each returning its own number. */
function wasmExporting(/** @type {string[]} */ names) {
  const module = new binaryen.Module();
  names.forEach((name, i) => {
    module.addFunction(name, binaryen.none, binaryen.i32, [], module.i32.const(i));
    module.addFunctionExport(name, name);
  });
  const bytes = module.emitBinary();
  module.dispose();
  return bytes;
}

/** The exports of a wasm module's bytes, by name. */
const exportNames = (/** @type {Uint8Array} */ bytes) =>
  WebAssembly.Module.exports(new WebAssembly.Module(/** @type {Uint8Array<ArrayBuffer>} */ (bytes))).map((entry) => entry.name);

/** A class as wasm-bindgen writes it into the loader, with its finalizer if `finalized`. */
function loaderWith(/** @type {boolean} */ finalized) {
  return [
    "let wasm;",
    "export class Thing {",
    "    free() {",
    "        wasm.__wbg_thing_free(this.__wbg_ptr, 0);",
    "    }",
    "    get() {",
    "        return wasm.thing_get(this.__wbg_ptr);",
    "    }",
    "}",
    "if (Symbol.dispose) Thing.prototype[Symbol.dispose] = Thing.prototype.free;",
    "",
    "function kept() { return wasm.keep(); }",
    ...(finalized
      ? [
          "const ThingFinalization = (typeof FinalizationRegistry === 'undefined')",
          "    ? { register: () => {}, unregister: () => {} }",
          "    : new FinalizationRegistry(ptr => wasm.__wbg_thing_free(ptr >>> 0, 1));",
        ]
      : []),
    "export { kept as default };",
    "",
  ].join("\n");
}

test("the loader's classes go, with the wasm exports behind them; the rest stays", async () => {
  await writeFile(join(dir, "app_bg.wasm"), wasmExporting(["thing_get", "__wbg_thing_free", "keep"]));
  await writeFile(join(dir, "app.js"), loaderWith(true));
  assert.deepEqual(await dropClasses(dir), ["Thing"]);
  const loader = await readFile(join(dir, "app.js"), "utf8");
  assert.doesNotMatch(loader, /Thing|thing_/);
  assert.match(loader, /function kept\(\) \{ return wasm\.keep\(\); \}/);
  assert.deepEqual(exportNames(await readFile(join(dir, "app_bg.wasm"))), ["keep"]);
  assert.deepEqual(await dropClasses(dir), [], "a loader without classes is left as it is");
});

test("a class whose finalizer is not where wasm-bindgen writes it fails the build", async () => {
  await writeFile(join(dir, "app_bg.wasm"), wasmExporting(["thing_get", "__wbg_thing_free", "keep"]));
  await writeFile(join(dir, "app.js"), loaderWith(false));
  await assert.rejects(dropClasses(dir), /no finalizer of Thing/);
});

test("the loader is one module with its snippets written in, and the snippets' own imports too", async () => {
  await mkdir(join(dir, "snippets", "app-1", "www"), { recursive: true });
  await writeFile(join(dir, "snippets", "app-1", "www", "a.js"), 'import { b } from "./b.js";\nexport const a = () => b;\n');
  await writeFile(join(dir, "snippets", "app-1", "www", "b.js"), 'export const b = "from b";\n');
  const { outputFiles } = await build({
    stdin: { contents: 'import * as import0 from "./snippets/app-1/www/a.js";\nexport const imports = { "./snippets/app-1/www/a.js": import0 };\n', loader: "js" },
    bundle: true,
    format: "esm",
    write: false,
    plugins: [glueWrittenIn(dir)],
  });
  const code = outputFiles[0].text;
  assert.doesNotMatch(code, /\bfrom\s*["']|\bimport\s*\(/);
  assert.match(code, /"from b"/);
});
