// @ts-check
// Trunk post-build hook (run before minify.mjs, see Trunk.toml): gives the
// functions the app's wasm imports from its wasm-bindgen loader short names.
//
// wasm-bindgen names each import after what it binds plus a 16-digit hash,
// e.g. `__wbg_addEventListener_a1b2c3d4e5f60718`, and every name is written
// twice: in the wasm's import section and as a key of the loader's import
// object. The hashes do not compress; with about 200 imports they cost some
// 6 KB gzip of a first visit (issue 6, figure 7). Here each becomes `_0`,
// `_1`, ... in both files, which load and link exactly as before.
//
// Checked as it goes, so a change in wasm-bindgen's output fails the build
// instead of shipping a loader that cannot link (or quietly renaming
// nothing): some imports must have hashed names, each renamed import must be
// a key of the loader exactly once, and the rewritten wasm must compile and
// import the same things, renamed, in the same order.
//
//   node scripts/short-imports.mjs DIR    (on an already built bundle; once)
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleDir } from "./hook.mjs";

/** An import name as wasm-bindgen writes it: a binding's name and its hash. */
const HASHED = /^__wbg_\w+_[0-9a-f]{16}$/;

/** The section of a wasm module that lists its imports. */
const IMPORT_SECTION = 2;

/**
 * Renames the hashed imports of the bundle's wasm (`*_bg.wasm` in `dir`) and
 * the matching keys of its loader (the `.js` of the same stem). Returns how
 * many it renamed.
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
  const renamed = rewriteImportNames(wasm, (name) => {
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
  await writeFile(loaderPath, loader);
  return renames.size;
}

/**
 * The imports of `after` are those of `before`, renamed by `renames`.
 *
 * @param {Uint8Array<ArrayBuffer>} before
 * @param {Uint8Array<ArrayBuffer>} after
 * @param {Map<string, string>} renames
 */
function checkSameImports(before, after, renames) {
  const listed = (/** @type {Uint8Array<ArrayBuffer>} */ bytes) =>
    WebAssembly.Module.imports(new WebAssembly.Module(bytes));
  const expected = listed(before).map((entry) => ({ ...entry, name: renames.get(entry.name) ?? entry.name }));
  if (JSON.stringify(listed(after)) !== JSON.stringify(expected)) {
    throw new Error("short-imports: the rewritten wasm does not import what the original did");
  }
}

/**
 * A copy of the wasm module `bytes` whose import section names each import
 * `rename(name)`; every other byte of the module is kept.
 *
 * @param {Uint8Array} bytes
 * @param {(name: string) => string} rename
 */
function rewriteImportNames(bytes, rename) {
  const reader = new Reader(bytes, 8);
  const out = [bytes.subarray(0, 8)];
  while (!reader.done()) {
    const id = reader.byte();
    const body = reader.bytes(reader.u32());
    out.push(Uint8Array.of(id), ...sized(id === IMPORT_SECTION ? renameImports(body, rename) : body));
  }
  return Buffer.concat(out);
}

/**
 * The body of an import section with its field names renamed.
 *
 * @param {Uint8Array} body
 * @param {(name: string) => string} rename
 */
function renameImports(body, rename) {
  const reader = new Reader(body, 0);
  const count = reader.u32();
  /** @type {Uint8Array[]} */
  const out = [leb128(count)];
  for (let i = 0; i < count; i++) {
    const module = reader.bytes(reader.u32());
    const name = Buffer.from(reader.bytes(reader.u32())).toString("utf8");
    const start = reader.offset;
    reader.skipImportDescription();
    out.push(...sized(module), ...sized(Buffer.from(rename(name), "utf8")), body.subarray(start, reader.offset));
  }
  if (!reader.done()) throw new Error("short-imports: the import section has bytes after its last import");
  return Buffer.concat(out);
}

/**
 * `bytes` preceded by their length, as the wasm binary format writes vectors.
 *
 * @param {Uint8Array} bytes
 */
function sized(bytes) {
  return [leb128(bytes.length), bytes];
}

/**
 * `n` as an unsigned LEB128 number.
 *
 * @param {number} n
 */
function leb128(n) {
  const out = [];
  do {
    const low = n & 0x7f;
    n >>>= 7;
    out.push(n ? low | 0x80 : low);
  } while (n);
  return Uint8Array.from(out);
}

/** Reads the wasm binary format from `bytes`, starting at `offset`. */
class Reader {
  /**
   * @param {Uint8Array} bytes
   * @param {number} offset
   */
  constructor(bytes, offset) {
    this.data = bytes;
    this.offset = offset;
  }

  done() {
    return this.offset >= this.data.length;
  }

  byte() {
    if (this.done()) throw new Error("short-imports: the wasm module ends early");
    return this.data[this.offset++];
  }

  /** @param {number} length */
  bytes(length) {
    if (this.offset + length > this.data.length) throw new Error("short-imports: the wasm module ends early");
    this.offset += length;
    return this.data.subarray(this.offset - length, this.offset);
  }

  u32() {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.byte();
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  }

  /** Limits: a flags byte (bit 0: a maximum follows), a minimum, maybe a maximum. */
  skipLimits() {
    const flags = this.byte();
    this.u32();
    if (flags & 1) this.u32();
  }

  /** What is imported: a function, table, memory, global or tag, by its kind byte. */
  skipImportDescription() {
    const kind = this.byte();
    switch (kind) {
      case 0: // function: its type's index
        this.u32();
        break;
      case 1: // table: element type, limits
        this.byte();
        this.skipLimits();
        break;
      case 2: // memory: limits
        this.skipLimits();
        break;
      case 3: // global: value type, mutability
        this.bytes(2);
        break;
      case 4: // tag: attribute, type index
        this.byte();
        this.u32();
        break;
      default:
        throw new Error(`short-imports: unknown import kind ${kind}`);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const count = await shortenImports(bundleDir("short-imports"));
  console.log(`short-imports: ${count} imports of the app's wasm renamed`);
}
