// @ts-check
// Trunk post-build hook (run before minify.mjs, see Trunk.toml): copies
// KaTeX, pinned in package.json, into the staged bundle as vendor/katex/:
// its ES module, its style sheet and its woff2 fonts (every browser that
// runs Sandpit reads woff2, so the sheet is rewritten to name only those).
// The page loads it the first time a run shows math (www/sandpit-math.js).
import { copyFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { KATEX_DIR } from "../www/generated/names.js";
import { bundleDir } from "./hook.mjs";

const SOURCE = fileURLToPath(new URL("../node_modules/katex/dist/", import.meta.url));

/**
 * The style sheet with each font's `src` cut to its woff2 file.
 *
 * @param {string} css
 */
export function woff2Only(css) {
  return css.replace(/(url\([^)]+\.woff2\) format\("woff2"\))(,\s*url\([^)]+\) format\("[a-z]+"\))+/g, "$1");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = join(bundleDir("vendor-katex"), KATEX_DIR);
  await mkdir(join(target, "fonts"), { recursive: true });
  await copyFile(join(SOURCE, "katex.mjs"), join(target, "katex.mjs"));
  const css = woff2Only(await readFile(join(SOURCE, "katex.css"), "utf8"));
  if (/\.(woff|ttf)\)/.test(css)) throw new Error("katex.css still names fonts other than woff2");
  await writeFile(join(target, "katex.css"), css);
  const fonts = (await readdir(join(SOURCE, "fonts"))).filter((name) => name.endsWith(".woff2"));
  for (const name of fonts) await copyFile(join(SOURCE, "fonts", name), join(target, "fonts", name));
  console.log(`vendor-katex: katex.mjs, katex.css and ${fonts.length} fonts in ${KATEX_DIR}`);
}
