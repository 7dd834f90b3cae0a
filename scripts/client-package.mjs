// @ts-check
// Builds the embedding client as an npm package (client/): the module the
// app serves (www/sandpit-client.js) with the generated names and its own
// modules written into it, its type declarations generated from its JSDoc types and from the
// message types generated from the Rust (www/generated/protocol.d.ts), then
// `npm pack`. One source: the package holds only what is built here.
//
//   node scripts/client-package.mjs [DEST]    (the .tgz goes to DEST, default target/)
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, readFile, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

import { APP_VERSION } from "../www/generated/names.js";
import { clientWrittenIn } from "./minify.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE = join(ROOT, "www", "sandpit-client.js");
const PACKAGE = join(ROOT, "client");
const OUT = join(PACKAGE, "dist");

/**
 * Builds client/dist and packs the package into `dest`; resolves to the tarball's path.
 *
 * @param {string} dest
 */
export async function buildClientPackage(dest) {
  const { version } = JSON.parse(await readFile(join(PACKAGE, "package.json"), "utf8"));
  if (version !== APP_VERSION) {
    throw new Error(`client/package.json says version ${version}, the app (Cargo.toml) ${APP_VERSION}: make them agree`);
  }
  await rm(OUT, { recursive: true, force: true });
  await build({
    // From stdin: the plugin leaves every import but the names to the browser, an entry point too.
    stdin: { contents: await readFile(SOURCE, "utf8"), loader: "js", sourcefile: "sandpit-client.js" },
    outfile: join(OUT, "sandpit-client.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    legalComments: "none",
    plugins: [clientWrittenIn],
    logLevel: "warning",
  });
  // The declarations of the source, beside the message types they import.
  execFileSync(
    join(ROOT, "node_modules", ".bin", "tsc"),
    [
      "--ignoreConfig",
      ...["--allowJs", "--declaration", "--emitDeclarationOnly", "--skipLibCheck"],
      ...["--target", "es2023", "--module", "esnext", "--moduleResolution", "bundler", "--lib", "es2023,dom", "--types", ""],
      ...["--outDir", OUT, SOURCE],
    ],
    { stdio: "inherit" },
  );
  await mkdir(join(OUT, "generated"), { recursive: true });
  await copyFile(join(ROOT, "www", "generated", "protocol.d.ts"), join(OUT, "generated", "protocol.d.ts"));
  await mkdir(dest, { recursive: true });
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", dest], { cwd: PACKAGE, encoding: "utf8" }),
  );
  return join(dest, packed[0].filename);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tarball = await buildClientPackage(resolve(process.argv[2] ?? join(ROOT, "target")));
  console.log(`client-package: ${tarball}`);
}
