// @ts-check
// Trunk post-build hook (run after vendor-pyodide.mjs, see Trunk.toml):
// lists every file of the bundle with its sha256 and size, and writes that
// list into the service worker, replacing its `const PRECACHE = ...;` line.
// The service worker then changes whenever any file does, which is how a
// browser notices a new deployment, and it can check every cached file
// against the hash it was built with.
//
//   node scripts/precache.mjs DIR    (re-stamps an already built bundle)
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { CONFIG_FILE } from "../www/generated/names.js";
import { bundleDir } from "./hook.mjs";

/** The service worker, relative to the bundle's root. */
export const SW_FILE = "sw.js";

/**
 * Files the list leaves out: the service worker itself, and the deployment's
 * config, which is edited after the build (the service worker fetches it fresh).
 */
const UNLISTED = new Set([SW_FILE, CONFIG_FILE]);

/** The line of sw.js that carries the list (one line, so it can be replaced again). */
export const PRECACHE_LINE = /^const PRECACHE = .*;$/m;

/**
 * Every file under `dir`, but hidden ones (Trunk stages its next build in dist/.stage).
 *
 * @param {string} dir
 * @returns {AsyncGenerator<string>}
 */
export async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

/** @param {import("node:crypto").BinaryLike} bytes */
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * Hashes every file under `dir` but the unlisted ones and writes the list
 * into `dir`/sw.js. Returns `{ version, files }`, where `version` is derived
 * from the contents (the service worker's included), so two identical
 * bundles have the same version.
 *
 * @param {string} dir
 */
export async function writePrecache(dir) {
  /** @type {Record<string, { sha256: string, size: number }>} */
  const files = {};
  const paths = [];
  for await (const path of walk(dir)) paths.push(relative(dir, path).split(sep).join("/"));
  for (const path of paths.sort()) {
    if (UNLISTED.has(path)) continue;
    const bytes = await readFile(join(dir, path));
    files[path] = { sha256: sha256(bytes), size: bytes.length };
  }
  const swPath = join(dir, SW_FILE);
  const source = await readFile(swPath, "utf8");
  if (!PRECACHE_LINE.test(source)) {
    throw new Error(`${swPath} has no "const PRECACHE = ...;" line to replace`);
  }
  // The service worker's own code counts too: a change to it alone is a new version.
  const code = source.replace(PRECACHE_LINE, "");
  const manifest = { version: sha256(JSON.stringify(files) + code).slice(0, 16), files };
  // A function replacement: `$` in the JSON must not be read as a pattern.
  const line = `const PRECACHE = ${JSON.stringify(manifest)};`;
  await writeFile(swPath, source.replace(PRECACHE_LINE, () => line));
  return manifest;
}

/**
 * The list written into `dir`/sw.js by `writePrecache`.
 *
 * @param {string} dir
 * @returns {Promise<{ version: string, files: Record<string, { sha256: string, size: number }> }>}
 */
export async function readPrecache(dir) {
  const source = await readFile(join(dir, SW_FILE), "utf8");
  const line = source.match(PRECACHE_LINE)?.[0];
  if (!line) throw new Error(`${dir}/${SW_FILE} has no precache list`);
  return JSON.parse(line.slice("const PRECACHE = ".length, -1));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = bundleDir("precache");
  const { version, files } = await writePrecache(dir);
  const bytes = Object.values(files).reduce((sum, file) => sum + file.size, 0);
  const count = Object.keys(files).length;
  console.log(`precache: ${count} files, ${(bytes / 1e6).toFixed(1)} MB, version ${version}`);
}
