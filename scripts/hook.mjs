// @ts-check
// What the bundle's post-build hooks (precache.mjs, minify.mjs, the
// vendor-*.mjs that bundle a library) share.
import { build } from "esbuild";

/**
 * The bundle's directory: Trunk's staging directory when Trunk runs the
 * hook, else the command line's first argument. Exits with a usage line
 * naming `hook` when there is neither.
 *
 * @param {string} hook
 * @returns {string}
 */
export function bundleDir(hook) {
  const dir = process.env.TRUNK_STAGING_DIR ?? process.argv[2];
  if (!dir) {
    console.error(`${hook}: give the bundle's directory, or run through \`trunk build\`.`);
    process.exit(1);
  }
  return dir;
}

/**
 * Bundles `entry` (esbuild's `entryPoints` or `stdin`) with what it imports
 * into one minified ES module at `outfile`; its size in bytes.
 *
 * @param {{ entryPoints: string[] } | { stdin: { contents: string, resolveDir: string } }} entry
 * @param {string} outfile
 */
export async function bundleModule(entry, outfile) {
  const { metafile } = await build({
    ...entry,
    bundle: true,
    format: "esm",
    target: "es2022",
    minify: true,
    legalComments: "none",
    metafile: true,
    outfile,
  });
  return Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
}
