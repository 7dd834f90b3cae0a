// @ts-check
// Trunk post-build hook (run before minify.mjs, see Trunk.toml): bundles the
// JSON Schema validator @cfworker/json-schema (pinned in package.json; no
// code generation, so it runs under the app's CSP) into one ES module of the
// staged bundle. The widget loads it the first time a client offers
// functions to the code it runs (www/host-functions.js).
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { JSON_SCHEMA_MODULE } from "../www/generated/names.js";
import { bundleDir, bundleModule } from "./hook.mjs";

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = join(bundleDir("vendor-json-schema"), JSON_SCHEMA_MODULE);
  const stdin = { contents: 'export { Validator } from "@cfworker/json-schema";', resolveDir: fileURLToPath(new URL("..", import.meta.url)) };
  const bytes = await bundleModule({ stdin }, outfile);
  console.log(`vendor-json-schema: ${JSON_SCHEMA_MODULE}, ${(bytes / 1e3).toFixed(1)} kB`);
}
