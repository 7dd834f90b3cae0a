// @ts-check
// Trunk post-build hook (after pack-python.mjs, before the widget page is
// copied and precache.mjs, see Trunk.toml): ships the app's wasm gzipped,
// as `<name>.gz`, and has the page's loader fetch that and decompress it
// as it arrives (www/unpack.js, written into the loader). A static host
// that compresses would have sent about as many bytes; one that does not
// (`make run`'s server, a bucket) would send the wasm whole, two and a
// half times as many, on every first visit. pack-python.mjs gzips the
// worker's Python the same way.
//
//   node scripts/gzip-files.mjs DIR    (on an already built bundle)
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { constants, gzipSync } from "node:zlib";
import { unpacked } from "../www/unpack.js";
import { bundleDir } from "./hook.mjs";

/** Pages whose loader fetches the wasm (widget.html is index.html copied after this). */
const PAGES = ["index.html"];

/** What a gzipped file's name ends with. */
const GZIP_SUFFIX = ".gz";

/**
 * `bytes` gzipped as the bundle ships them: level 9, once, at build time.
 *
 * @param {import("node:zlib").InputType} bytes
 */
export const gzip = (bytes) => gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION });

/**
 * Gzips the app's wasm (`*_bg.wasm` in `dir`) into `<name>.gz`, removes it,
 * and points the pages' preload and loader at the new file. Returns the
 * sizes before and after.
 *
 * @param {string} dir
 */
export async function gzipWasm(dir) {
  const wasms = (await readdir(dir)).filter((name) => name.endsWith("_bg.wasm"));
  if (wasms.length !== 1) throw new Error(`gzip-files: expected one *_bg.wasm in ${dir}, found ${wasms.length}`);
  const [wasm] = wasms;
  const bytes = await readFile(join(dir, wasm));
  const packed = gzip(bytes);
  await writeFile(join(dir, wasm + GZIP_SUFFIX), packed);
  await rm(join(dir, wasm));
  for (const page of PAGES) {
    const path = join(dir, page);
    await writeFile(path, loadGzipped(await readFile(path, "utf8"), wasm));
  }
  return { before: bytes.length, after: packed.length };
}

/**
 * `html` with its preload of `wasm` and its loader's `init` call pointed at
 * `wasm` gzipped, and `unpacked` written into the loader. Throws unless
 * each is found once, so a new Trunk's page cannot slip through unchanged.
 *
 * @param {string} html
 * @param {string} wasm
 */
export function loadGzipped(html, wasm) {
  const escaped = wasm.replace(/[.]/g, "\\.");
  const preload = new RegExp(`(<link\\b[^>]*\\brel="preload"[^>]*\\bhref="(?:\\./)?)${escaped}("[^>]*>)`, "g");
  const init = new RegExp(`module_or_path: '((?:\\./)?${escaped})'`, "g");
  const loader = /<script type="module">\n/g;
  for (const [what, pattern] of [["preload", preload], ["init call", init], ["loader script", loader]]) {
    const found = html.match(pattern)?.length ?? 0;
    if (found !== 1) throw new Error(`gzip-files: expected one ${what} of ${wasm} in the page, found ${found}`);
  }
  return html
    .replace(preload, (_, before, after) => `${before}${wasm}${GZIP_SUFFIX}${after.replace(/\s+type="application\/wasm"/, "")}`)
    .replace(init, (_, url) => `module_or_path: fetch('${url}${GZIP_SUFFIX}').then((response) => unpacked(response, "application/wasm"))`)
    .replace(loader, (tag) => `${tag}${unpacked.toString()}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { before, after } = await gzipWasm(bundleDir("gzip-files"));
  console.log(`gzip-files: the app's wasm from ${(before / 1e3).toFixed(1)} kB to ${(after / 1e3).toFixed(1)} kB`);
}
