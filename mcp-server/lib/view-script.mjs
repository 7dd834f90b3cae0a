// @ts-check
// The view's script (view/view.js) bundled for the browser with esbuild: at
// run time from a checkout, once per process, and ahead of time into the
// package `make package` builds, which needs no esbuild.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const VIEW = join(dirname(fileURLToPath(import.meta.url)), "..", "view", "view.js");

/** The view's script bundled and minified, and the files that went into it. */
export async function buildViewScript() {
  const { outputFiles, metafile } = await build({
    entryPoints: [VIEW],
    bundle: true,
    format: "esm",
    platform: "browser",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return { text: outputFiles[0].text, inputs: Object.keys(metafile.inputs) };
}

/** The view's script, bundled and minified. */
export async function bundleViewScript() {
  return (await buildViewScript()).text;
}
