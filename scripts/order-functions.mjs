// @ts-check
// Trunk post-build hook (run first on the wasm, before drop-classes.mjs,
// see Trunk.toml): puts the wasm's functions in an order gzip compresses
// well. gzip finds what repeats within its last 32 KB only, and functions
// alike sit apart in the linker's order. Here they are grouped by the first
// two segments of their path (`sandpit::ui`, `core::ptr`, `tachys::html`,
// ...), within a group by size, then by name: the copies of one generic
// function, one module's closures and the small glue functions each land
// side by side, which compresses better than wasm-opt's sort by name alone.
//
// Trunk's wasm-opt keeps the names wasm-bindgen wrote (index.html's `-g`)
// so they can be read here; this step writes each function's key as its
// name and has wasm-opt sort by name, which writes the wasm without names.
// Only the order changes: the functions, and every reference to them, are
// the same.
//
//   node scripts/order-functions.mjs DIR    (on a bundle Trunk just built, whose wasm still has names)
import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { bundleDir } from "./hook.mjs";

/** A wasm module's bytes, read section by section. */
class Reader {
  /** @param {Uint8Array} bytes */
  constructor(bytes) {
    this.bytes = bytes;
    this.at = 0;
  }

  byte() {
    return this.bytes[this.at++];
  }

  /** An unsigned LEB128 number (up to 2^53). */
  leb() {
    let value = 0;
    for (let scale = 1; ; scale *= 128) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
  }

  /** A length-prefixed UTF-8 name. */
  name() {
    const length = this.leb();
    this.at += length;
    return new TextDecoder().decode(this.bytes.subarray(this.at - length, this.at));
  }

  /** Skips a table's or a memory's limits. */
  limits() {
    const flags = this.byte();
    this.leb();
    if (flags & 1) this.leb();
  }
}

/** `value` as an unsigned LEB128 number. */
function leb(/** @type {number} */ value) {
  const out = [];
  do {
    const low = value % 128;
    value = Math.floor(value / 128);
    out.push(value > 0 ? low | 0x80 : low);
  } while (value > 0);
  return out;
}

/** `text` as a length-prefixed UTF-8 name. */
function nameBytes(/** @type {string} */ text) {
  const utf8 = new TextEncoder().encode(text);
  return [...leb(utf8.length), ...utf8];
}

/**
 * The sections of `bytes`, and of its functions their names (name section)
 * and code sizes (code section), by function index.
 *
 * @param {Uint8Array} bytes
 */
function readModule(bytes) {
  const reader = new Reader(bytes);
  reader.at = 8;
  /** @type {{ id: number, start: number, end: number, custom?: string }[]} */
  const sections = [];
  /** @type {Map<number, string>} */
  const names = new Map();
  /** @type {number[]} */
  const sizes = [];
  let imported = 0;
  while (reader.at < bytes.length) {
    const start = reader.at;
    const id = reader.byte();
    const size = reader.leb();
    const end = reader.at + size;
    const section = { id, start, end, custom: id === 0 ? reader.name() : undefined };
    if (id === 2) {
      for (let count = reader.leb(); count > 0; count--) {
        reader.name();
        reader.name();
        const kind = reader.byte();
        if (kind === 0) (imported += 1), reader.leb();
        else if (kind === 1) reader.byte(), reader.limits();
        else if (kind === 2) reader.limits();
        else if (kind === 3) reader.at += 2;
        else if (kind === 4) reader.byte(), reader.leb();
        else throw new Error(`order-functions: an import of unknown kind ${kind}`);
      }
    } else if (id === 10) {
      for (let count = reader.leb(); count > 0; count--) {
        const length = reader.leb();
        sizes.push(length);
        reader.at += length;
      }
    } else if (section.custom === "name") {
      while (reader.at < end) {
        const subsection = reader.byte();
        const subsectionEnd = reader.leb() + reader.at;
        if (subsection === 1) {
          for (let count = reader.leb(); count > 0; count--) names.set(reader.leb(), reader.name());
        }
        reader.at = subsectionEnd;
      }
    }
    sections.push(section);
    reader.at = end;
  }
  return { sections, names, sizes, imported };
}

/**
 * The name a function is sorted by: the first two segments of its path
 * (without crate hashes), its code size, then its name; unique by its index.
 *
 * @param {string} name
 * @param {number} size
 * @param {number} index
 */
export function orderKey(name, size, index) {
  const path = name.replace(/\[[0-9a-f]+\]/g, "").replace(/^[<&]+/, "");
  const group = path.split("::").slice(0, 2).join("::");
  return `${group}|${String(size).padStart(8, "0")}|${name}#${index}`;
}

/**
 * Reorders the functions of the bundle's wasm (`*_bg.wasm` in `dir`).
 * Returns how many functions it ordered.
 *
 * @param {string} dir
 */
export async function orderFunctions(dir) {
  const wasms = (await readdir(dir)).filter((name) => name.endsWith("_bg.wasm"));
  if (wasms.length !== 1) throw new Error(`order-functions: expected one *_bg.wasm in ${dir}, found ${wasms.length}`);
  const wasmPath = join(dir, wasms[0]);
  const bytes = new Uint8Array(await readFile(wasmPath));
  const { sections, names, sizes, imported } = readModule(bytes);
  // wasm-opt names not every function it makes (a few dozen); the linker's are all named.
  const named = [...names.keys()].filter((index) => index >= imported).length;
  if (named < sizes.length * 0.9) {
    throw new Error(`order-functions: ${wasmPath} names ${named} of its ${sizes.length} functions; is index.html's -g gone?`);
  }
  const keyed = [];
  for (let index = 0; index < imported + sizes.length; index++) {
    const name = names.get(index) ?? "";
    if (index < imported && !name) continue;
    keyed.push(...leb(index), ...nameBytes(index < imported ? name : orderKey(name, sizes[index - imported], index)));
  }
  const count = [...names.keys()].filter((index) => index < imported).length + sizes.length;
  const functionNames = [...leb(count), ...keyed];
  const payload = [...nameBytes("name"), 1, ...leb(functionNames.length), ...functionNames];
  const parts = [bytes.subarray(0, 8)];
  for (const section of sections) {
    if (section.custom !== "name") parts.push(bytes.subarray(section.start, section.end));
  }
  parts.push(new Uint8Array([0, ...leb(payload.length), ...payload]));
  await writeFile(wasmPath, Buffer.concat(parts));
  await promisify(execFile)("wasm-opt", ["--reorder-functions-by-name", wasmPath, "-o", wasmPath]);
  return sizes.length;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const count = await orderFunctions(bundleDir("order-functions"));
  console.log(`order-functions: ${count} functions of the app's wasm ordered for gzip`);
}
