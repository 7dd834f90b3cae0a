// @ts-check
// Builds the local MCP server as an npm package that runs with only Node
// (`npx -y sandpit-mcp`): mcp-server/packaged.mjs bundled with every
// dependency into one file, the view's script bundled ahead of time, and the
// built Sandpit bundle (dist/, from `make build`) beside them; then `npm pack`.
// The package has no dependencies, so installing it fetches nothing.
//
//   node scripts/mcp-package.mjs [DEST]    (the .tgz goes to DEST, default target/)
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

import { buildViewScript } from "../mcp-server/lib/view-script.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SERVER = join(ROOT, "mcp-server");

/**
 * Builds the package in `dest`/sandpit-mcp and packs it into `dest`; resolves to the tarball's path.
 *
 * @param {string} dest
 */
export async function buildMcpPackage(dest) {
  const dist = join(ROOT, "dist");
  if (!existsSync(join(dist, "index.html"))) throw new Error("no built bundle in dist/: run `make build` first");
  const source = JSON.parse(await readFile(join(SERVER, "package.json"), "utf8"));
  const out = join(dest, source.name);
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });

  const { metafile } = await build({
    entryPoints: [join(SERVER, "packaged.mjs")],
    outfile: join(out, "sandpit-mcp.mjs"),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // ws loads these native helpers when they are installed, and does without them.
    external: ["bufferutil", "utf-8-validate"],
    // The CommonJS dependencies (ws) require Node's modules, which an ES module bundle gets from here.
    banner: {
      js: '#!/usr/bin/env node\nimport { createRequire as sandpitRequire } from "node:module";\nconst require = sandpitRequire(import.meta.url);',
    },
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
  });
  const view = await buildViewScript();
  await writeFile(join(out, "view.js"), view.text);
  await cp(dist, join(out, "dist"), { recursive: true });
  await copyFile(join(SERVER, "README.md"), join(out, "README.md"));
  await writeFile(join(out, "THIRD_PARTY_LICENSES.md"), await licenses([...Object.keys(metafile.inputs), ...view.inputs]));
  const manifest = {
    name: source.name,
    version: source.version,
    description: source.description,
    license: source.license,
    type: "module",
    bin: { [source.name]: "./sandpit-mcp.mjs" },
    engines: source.engines,
    keywords: ["mcp", "mcp-server", "mcp-apps", "python", "pyodide", "sandbox"],
  };
  await writeFile(join(out, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await mkdir(dest, { recursive: true });
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", dest], { cwd: out, encoding: "utf8" }));
  return join(dest, packed[0].filename);
}

/**
 * The licenses of the packages bundled into the server and the view, from their own files.
 *
 * @param {string[]} inputs the bundle's source files, relative to the repository
 */
async function licenses(inputs) {
  const packages = new Set(
    inputs.flatMap((input) => input.match(/^(?:.*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[0] ?? []),
  );
  /** @type {Map<string, string>} */
  const sections = new Map();
  for (const dir of packages) {
    const { name, version, license } = JSON.parse(await readFile(join(ROOT, dir, "package.json"), "utf8"));
    const file = ["LICENSE", "LICENSE.md", "LICENSE.txt", "license"].find((f) => existsSync(join(ROOT, dir, f)));
    const text = file ? await readFile(join(ROOT, dir, file), "utf8") : `${license}`;
    sections.set(`${name} ${version}`, `## ${name} ${version} (${license})\n\n${text.trim()}\n`);
  }
  const listed = [...sections.keys()].sort().map((key) => sections.get(key));
  return `# Bundled into sandpit-mcp.mjs and view.js\n\n${listed.join("\n")}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tarball = await buildMcpPackage(resolve(process.argv[2] ?? join(ROOT, "target")));
  console.log(`mcp-package: ${tarball}`);
}
