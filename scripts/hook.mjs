// @ts-check
// What the bundle's post-build hooks (precache.mjs, minify.mjs) share.

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
