// @ts-check
// Trunk post-build hook (run before minify.mjs, see Trunk.toml): bundles the
// code editor, www/editor/code-editor.js, with the CodeMirror packages it
// imports (pinned in package.json) into one ES module of the staged bundle,
// vendor/codemirror/code-editor.mjs. The page loads it once Python's start
// is over (www/editor.js).
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EDITOR_MODULE } from "../www/generated/names.js";
import { bundleDir, bundleModule } from "./hook.mjs";

const SOURCE = fileURLToPath(new URL("../www/editor/code-editor.js", import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = join(bundleDir("vendor-codemirror"), EDITOR_MODULE);
  const bytes = await bundleModule({ entryPoints: [SOURCE] }, outfile);
  console.log(`vendor-codemirror: ${EDITOR_MODULE}, ${(bytes / 1e3).toFixed(1)} kB`);
}
