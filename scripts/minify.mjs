// @ts-check
// Trunk post-build hook (run after short-imports.mjs and before precache.mjs,
// see Trunk.toml): minifies the app's own JavaScript and CSS in the staged
// bundle with esbuild, which is pinned in package.json. Every byte of these
// files is downloaded on a first visit (bench figure 7).
//
// - The app's own JavaScript then goes through terser (pinned too), whose
//   compressor finds more to fold than esbuild's; the libraries in vendor/
//   ship as esbuild leaves them, outside the app's budget.
//
// - Trunk's files (the wasm-bindgen loader, its snippets, the stylesheet) are
//   named and given subresource-integrity hashes in index.html by Trunk, so
//   those hashes are written again for the minified bytes.
// - The service worker keeps its `const PRECACHE = ...;` line as it is, on a
//   line of its own: precache.mjs (and the tests, on copies of the bundle)
//   replace that line to stamp a deployment.
// - The names generated from src/names.rs (www/generated/names.js) are
//   written into each file that imports them, wherever it lands in the
//   bundle (wasm-bindgen copies www/pwa.js into snippets/, without what it
//   imports). The embedding client and the Python worker each ship as one
//   module: their own modules (www/sandpit-*.js, pyodide-loader/*.mjs) are
//   written into them too, and not shipped on their own. So are the JS
//   snippets wasm-bindgen copies beside its loader (snippets/): the loader
//   ships with them written in, and the page preloads one module instead of
//   one per snippet, each gzipped on its own.
// - Python files lose their comments and the docstrings no `help()` reads,
//   line numbers kept (scripts/strip-python.py, run with the machine's python3).
// - Pyodide's own files (pyodide/) are shipped as Pyodide publishes them.
//
//   node scripts/minify.mjs DIR    (minifies an already built bundle again)
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdir, readFile, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build, transform } from "esbuild";
import { minify as terser } from "terser";
import { WORKER_PATH } from "../www/generated/names.js";
import { CLIENT_SCRIPT } from "../www/security-headers.js";
import { bundleDir } from "./hook.mjs";
import { PRECACHE_LINE, SW_FILE, walk } from "./precache.mjs";

/** Directory of the bundle that is Pyodide's, left untouched. */
const VENDORED = "pyodide";
/** Directory of the bundle with the libraries (scripts/vendor-*.mjs): not passed through terser. */
const LIBRARIES = "vendor";
/** Pages whose `integrity` attributes name files of the bundle. */
const PAGES = ["index.html"];

/** @type {Record<string, "js" | "css" | "python">} */
const LOADERS = { ".js": "js", ".mjs": "js", ".css": "css", ".py": "python" };

const STRIP_PYTHON = fileURLToPath(new URL("strip-python.py", import.meta.url));

/** The generated names' source, which the app's JS imports as `.../generated/names.js`. */
const NAMES = fileURLToPath(new URL("../www/generated/names.js", import.meta.url));

/** The repository's root, where the bundle's own sources are. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Resolves the generated names to their source from any importer, and the
 * imports `own` matches to their source in `dir`; leaves every other import
 * to the browser, as written.
 *
 * @param {RegExp | null} own
 * @param {string} [dir]
 * @returns {import("esbuild").Plugin}
 */
function writtenIn(own, dir = ROOT) {
  return {
    name: "sandpit-names",
    setup(plugin) {
      plugin.onResolve({ filter: /(^|\/)generated\/names\.js$/ }, () => ({ path: NAMES }));
      if (own !== null) plugin.onResolve({ filter: own }, ({ path }) => ({ path: join(dir, path) }));
      plugin.onResolve({ filter: /.*/ }, ({ path }) => ({ path, external: true }));
    },
  };
}

/** The generated names written into a file, every other import left as written. */
export const namesWrittenIn = writtenIn(null);

/** The embedding client as one module: the names and its own modules (www/sandpit-*.js) written into it. */
export const clientWrittenIn = writtenIn(/^\.\/sandpit-[a-z]+\.js$/, join(ROOT, "www"));

/** The service worker as one module: the names and its own modules (www/sw-*.js, the headers) written into it. */
export const serviceWorkerWrittenIn = writtenIn(/^\.\/(sw-[a-z]+|security-headers)\.js$/, join(ROOT, "www"));

/** The Python worker as one module: the names and its own modules (pyodide-loader/*.mjs, www/unpack.js) written into it. */
export const workerWrittenIn = writtenIn(/^\.\/[a-z-]+\.mjs$|^\.\.\/www\/unpack\.js$/, join(ROOT, "pyodide-loader"));

/**
 * The wasm-bindgen loader as one module: the names and the snippets it and
 * they import (snippets/ in `dir`, relative imports) written into it.
 *
 * @param {string} dir
 * @returns {import("esbuild").Plugin}
 */
export function glueWrittenIn(dir) {
  return {
    name: "sandpit-snippets",
    setup(plugin) {
      plugin.onResolve({ filter: /(^|\/)generated\/names\.js$/ }, () => ({ path: NAMES }));
      plugin.onResolve({ filter: /^\.\.?\// }, ({ path, resolveDir }) => ({ path: join(resolveDir || dir, path) }));
      plugin.onResolve({ filter: /.*/ }, ({ path }) => ({ path, external: true }));
    },
  };
}

/** The wasm-bindgen loader Trunk writes for the app (`data-bin="sandpit"`), named with its hash. */
const GLUE = /^sandpit-[0-9a-f]+\.js$/;

/**
 * Files that ship as one module, with their own modules written into them:
 * the embedding client (other sites import one file), and the Python
 * worker, which then starts with one request instead of one per module.
 *
 * @type {Record<string, import("esbuild").Plugin>}
 */
const ONE_MODULE = {
  [CLIENT_SCRIPT]: clientWrittenIn,
  [WORKER_PATH]: workerWrittenIn,
};

/**
 * Minifies `source` (a file of the kind `loader`); ES modules stay ES
 * modules. Returns the code and the files written into it (absolute paths).
 *
 * @param {string} source
 * @param {"js" | "css" | "python"} loader
 * @param {import("esbuild").Plugin} [imports] how its imports are resolved
 * @returns {Promise<{ code: string, bundled: string[] }>}
 */
async function minify(source, loader, imports = namesWrittenIn, rel = "") {
  if (loader === "python") {
    return { code: execFileSync("python3", [STRIP_PYTHON, rel], { input: source, encoding: "utf8" }), bundled: [] };
  }
  if (loader === "css") {
    return { code: (await transform(source, { loader, minify: true, legalComments: "none" })).code, bundled: [] };
  }
  const { outputFiles, metafile } = await build({
    stdin: { contents: source, loader },
    bundle: true,
    format: "esm",
    minify: true,
    legalComments: "none",
    plugins: [imports],
    metafile: true,
    write: false,
  });
  const bundled = Object.keys(metafile.inputs)
    .filter((input) => input !== "<stdin>")
    .map((input) => resolve(input));
  const own = rel.split("/")[0] !== LIBRARIES;
  return { code: own ? await compress(outputFiles[0].text) : outputFiles[0].text, bundled };
}

/**
 * ES module `code` as terser compresses it (two passes), after esbuild: a
 * module's free names (the service worker's `PRECACHE`) are left as they are.
 *
 * @param {string} code
 */
async function compress(code) {
  const { code: compressed } = await terser(code, {
    module: true,
    ecma: 2020,
    compress: { passes: 2 },
    format: { comments: false },
  });
  if (compressed === undefined) throw new Error("terser wrote nothing");
  return compressed;
}

/**
 * The service worker minified around its precache line, which stays first and
 * whole, as one module with its own modules written in. Outside that line `PRECACHE` is a free name to esbuild, so it is not
 * renamed; and an `import` below a statement is still hoisted, as ever.
 *
 * @param {string} source
 */
async function minifyServiceWorker(source) {
  const line = source.match(PRECACHE_LINE)?.[0];
  if (!line) throw new Error(`${SW_FILE} has no "const PRECACHE = ...;" line`);
  return `${line}\n${(await minify(source.replace(PRECACHE_LINE, ""), "js", serviceWorkerWrittenIn)).code}`;
}

/**
 * Minifies every JS, CSS and Python file under `dir` but Pyodide's, then rewrites the
 * `integrity` hashes of the pages for the new bytes. A module written into
 * one of ONE_MODULE or into the wasm-bindgen loader is no longer shipped on
 * its own, nor preloaded. Returns the byte counts before and after.
 *
 * @param {string} dir
 */
export async function minifyBundle(dir) {
  let before = 0;
  let after = 0;
  /** @type {Set<string>} */
  const writtenInto = new Set();
  for await (const path of walk(dir)) {
    const rel = relative(dir, path).split(sep).join("/");
    const loader = LOADERS[extname(rel)];
    if (!loader || rel.split("/")[0] === VENDORED) continue;
    const source = await readFile(path, "utf8");
    const oneModule = ONE_MODULE[rel] ?? (GLUE.test(rel) ? glueWrittenIn(resolve(dir)) : null);
    const { code, bundled } =
      rel === SW_FILE
        ? { code: await minifyServiceWorker(source), bundled: [] }
        : await minify(source, loader, oneModule ?? namesWrittenIn, rel);
    if (oneModule) for (const module of bundled) writtenInto.add(module);
    before += Buffer.byteLength(source);
    after += Buffer.byteLength(code);
    await writeFile(path, code);
  }
  /** @type {Set<string>} */
  const removed = new Set();
  for (const module of writtenInto) {
    // A snippet is in the bundle itself; a module of the repository has its copy there.
    const inBundle = module.startsWith(resolve(dir) + sep);
    const shipped = inBundle ? module : join(dir, relative(ROOT, module));
    const rel = relative(resolve(dir), resolve(shipped)).split(sep).join("/");
    if (ONE_MODULE[rel]) continue;
    const size = await stat(shipped).then((info) => info.size, () => null);
    if (size === null) continue;
    after -= size;
    await rm(shipped);
    removed.add(rel);
    await removeEmptyParents(dir, rel);
  }
  for (const page of PAGES) await rehashIntegrity(dir, page, removed);
  return { before, after };
}

/**
 * A preload fetched `as="fetch"` (Trunk's preload of the app's wasm): the
 * browser does not check an `integrity` attribute there, and Chromium says so
 * on the console of every page load (crbug.com/981419). Trunk's loader then
 * fetches the wasm without one, so the attribute checked nothing.
 */
const UNCHECKED_INTEGRITY = /<link\b(?=[^>]*\brel="preload")(?=[^>]*\bas="fetch")[^>]*>/g;

/**
 * Removes the directories of `rel` (relative to `dir`) left empty, innermost
 * first, so that no empty snippets/ directory outlives its files.
 *
 * @param {string} dir
 * @param {string} rel
 */
async function removeEmptyParents(dir, rel) {
  for (let parent = dirname(rel); parent !== "."; parent = dirname(parent)) {
    if ((await readdir(join(dir, parent))).length > 0) return;
    await rmdir(join(dir, parent));
  }
}

/** A module preload and the file it names. */
const MODULE_PRELOAD = /<link\b(?=[^>]*\brel="modulepreload")[^>]*\bhref="(?:\.\/)?([^"]+)"[^>]*>/g;

/**
 * Writes each `integrity="<alg>-<hash>"` in `dir`/`page` again from the file
 * its tag's `href` names, with the same algorithm Trunk chose; drops the ones
 * the browser would ignore (`UNCHECKED_INTEGRITY`), and the preloads of
 * `removed` files (relative to `dir`), written into another module.
 *
 * @param {string} dir
 * @param {string} page
 * @param {Set<string>} removed
 */
async function rehashIntegrity(dir, page, removed) {
  const path = join(dir, page);
  const html = (await readFile(path, "utf8"))
    .replace(MODULE_PRELOAD, (tag, href) => (removed.has(decodeURI(href)) ? "" : tag))
    .replace(UNCHECKED_INTEGRITY, (tag) => tag.replace(/\s+integrity="[^"]*"/, ""));
  const tags = html.match(/<[^>]*\bintegrity="[^"]*"[^>]*>/g) ?? [];
  let out = html;
  for (const tag of tags) {
    const href = tag.match(/\bhref="([^"]+)"/)?.[1];
    const [, algorithm] = tag.match(/\bintegrity="(sha\d+)-[^"]*"/) ?? [];
    if (!href || !algorithm) throw new Error(`${page}: cannot rehash ${tag}`);
    const bytes = await readFile(join(dir, decodeURI(href)));
    const digest = createHash(algorithm).update(bytes).digest("base64");
    let rehashed = tag.replace(/\bintegrity="[^"]*"/, `integrity="${algorithm}-${digest}"`);
    // An integrity check needs a CORS request: from a page with an opaque
    // origin (a sandboxed frame) every request is cross-origin, and without
    // it the browser blocks the file (Trunk's stylesheet and icon lack it).
    if (!/\bcrossorigin\b/.test(rehashed)) rehashed = rehashed.replace(/\bintegrity=/, 'crossorigin="anonymous" integrity=');
    out = out.replace(tag, rehashed);
  }
  await writeFile(path, out);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = bundleDir("minify");
  const { before, after } = await minifyBundle(dir);
  console.log(`minify: the app's JS, CSS and Python from ${(before / 1e3).toFixed(1)} kB to ${(after / 1e3).toFixed(1)} kB`);
}
