// @ts-check
// Trunk post-build hook: puts Python into the bundle, so nothing is fetched
// from a CDN unless code asks for a package we do not ship.
//
// - Copies the Pyodide core from node_modules.
// - Copies the wheels pinned in scripts/wheels.txt (downloaded by
//   scripts/setup.sh) and writes a lockfile in which those packages point at
//   the bundled wheels, with the sha256 of the files actually shipped (the
//   browser refuses a wheel whose hash differs), and every other package
//   points at the Pyodide CDN (absolute URLs; `packages.cdn` in
//   www/sandpit.config.json overrides the base), for use when online.
// - Writes manifest.json: the size of each file Pyodide fetches at start-up
//   (so the worker can show progress in bytes before the first response),
//   the bundled packages, the CDN base, and the key that ties a start-up
//   snapshot to this bundle.
import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { walk } from "./precache.mjs";
import { CONFIG_FILE } from "../www/generated/names.js";

const IMPORTED = ["pyodide.mjs", "pyodide.asm.mjs"];
const FETCHED = ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];
const WHEELS = ".cache/wheels";
/** The names the worker imports, generated from src/names.rs. */
const NAMES = join("www", "generated", "names.js");

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) {
  console.error("vendor-pyodide: TRUNK_STAGING_DIR is not set; run through `trunk build`.");
  process.exit(1);
}

const source = join("node_modules", "pyodide");
const target = join(staging, "pyodide");
await mkdir(target, { recursive: true });
const pkg = JSON.parse(await readFile(join(source, "package.json"), "utf8"));
for (const name of IMPORTED) {
  await copyFile(join(source, name), join(target, name));
}
for (const name of FETCHED.filter((name) => name !== "pyodide-lock.json")) {
  await copyFile(join(source, name), join(target, name));
}

/** Pyodide's own default CDN base for this version, read from its loader rather than written here. */
async function cdnBase() {
  const loader = await readFile(join(source, "pyodide.mjs"), "utf8");
  const match = loader.match(/`(https:\/\/[^`$]+\/v)\$\{\w+\}(\/full\/)`/);
  if (!match) throw new Error("vendor-pyodide: cannot find Pyodide's default CDN in pyodide.mjs");
  return `${match[1]}${pkg.version}${match[2]}`;
}

/** `name==version --hash=sha256:...` lines of wheels.txt. */
async function pinnedWheels() {
  const text = await readFile(join("scripts", "wheels.txt"), "utf8");
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const [, name, version, sha256] = line.match(/^([\w.-]+)==(\S+)\s+--hash=sha256:([0-9a-f]{64})$/) ?? [];
      if (!name) throw new Error(`vendor-pyodide: cannot read wheels.txt line: ${line}`);
      return { name: name.toLowerCase(), version, sha256 };
    });
}

/** The deployment's package base URL (`packages.cdn` in www/sandpit.config.json), else Pyodide's. */
async function packageBase() {
  const config = JSON.parse(await readFile(join("www", CONFIG_FILE), "utf8"));
  const base = config.packages?.cdn;
  if (!base) return cdnBase();
  if (!/^https?:\/\/[^\s]+\/$/.test(base)) {
    throw new Error(`vendor-pyodide: packages.cdn must be an http(s) URL ending in /: ${base}`);
  }
  return base;
}

/** @param {string} name */
const normalize = (name) => name.toLowerCase().replace(/[-_.]+/g, "-");
const cdn = await packageBase();
const lock = JSON.parse(await readFile(join(source, "pyodide-lock.json"), "utf8"));
const files = await readdir(WHEELS).catch(() => {
  throw new Error(`vendor-pyodide: ${WHEELS} is missing; run scripts/setup.sh`);
});
const bundled = [];
for (const wheel of await pinnedWheels()) {
  const prefix = `${wheel.name.replace(/-/g, "_")}-${wheel.version}-`;
  const file = files.find((f) => f.toLowerCase().startsWith(prefix) && f.endsWith(".whl"));
  if (!file) throw new Error(`vendor-pyodide: no wheel for ${wheel.name}==${wheel.version} in ${WHEELS}`);
  const bytes = await readFile(join(WHEELS, file));
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if (sha256 !== wheel.sha256) throw new Error(`vendor-pyodide: ${file} does not match its pinned hash`);
  await writeFile(join(target, file), bytes);
  const key = normalize(wheel.name);
  const known = lock.packages[key];
  lock.packages[key] = {
    name: known?.name ?? wheel.name,
    version: wheel.version,
    file_name: file,
    install_dir: "site",
    sha256,
    package_type: "package",
    imports: known?.imports ?? [wheel.name.replace(/-/g, "_")],
    depends: known?.depends ?? [],
    unvendored_tests: false,
    shared_library: false,
  };
  bundled.push(key);
}
for (const [key, entry] of Object.entries(lock.packages)) {
  if (!bundled.includes(key)) entry.file_name = new URL(entry.file_name, cdn).href;
}
await writeFile(join(target, "pyodide-lock.json"), JSON.stringify(lock));

/** @type {Record<string, number>} */
const fetched = {};
for (const name of FETCHED) {
  fetched[name] = (await stat(join(target, name))).size;
}

/**
 * What a start-up snapshot of Python's memory depends on (see
 * pyodide-loader/snapshot.mjs): Pyodide's core files, the lockfile just
 * written, and the worker's own files, the runner's Python among them
 * (which decide what start-up does before the snapshot is taken), with the
 * names they import, hashed together.
 * A deployment that changes any of them changes the key, and a snapshot
 * made for another key is never restored.
 *
 * @param {string} staging
 */
async function snapshotKey(staging) {
  const hash = createHash("sha256");
  const loader = join(staging, "pyodide-loader");
  const own = [];
  for await (const path of walk(loader)) own.push(path);
  const paths = [...[...IMPORTED, ...FETCHED].map((name) => join(target, name)), ...own.sort()];
  for (const path of paths) {
    hash.update(path.slice(staging.length));
    hash.update(await readFile(path));
  }
  // Written into the worker's script only by a later hook (minify.mjs).
  hash.update(NAMES);
  hash.update(await readFile(NAMES));
  return hash.digest("hex");
}

await writeFile(
  join(target, "manifest.json"),
  JSON.stringify({ version: pkg.version, fetched, bundled, cdn, snapshot_key: await snapshotKey(staging) }, null, 2),
);
console.log(`vendor-pyodide: Pyodide ${pkg.version} and ${bundled.length} wheels copied to ${target}`);
