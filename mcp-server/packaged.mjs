// @ts-check
// The entry of the package `make package` builds (scripts/mcp-package.mjs
// bundles it, with every dependency, into the package's sandpit-mcp.mjs):
// beside it are the built Sandpit bundle (dist/) and the view's script,
// bundled ahead of time (view.js).
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import manifest from "./package.json" with { type: "json" };
import { main } from "./lib/main.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

await main({
  dist: join(HERE, "dist"),
  version: manifest.version,
  viewScript: () => readFile(join(HERE, "view.js"), "utf8"),
});
