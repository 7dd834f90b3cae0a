#!/usr/bin/env node
// @ts-check
// Sandpit's local MCP server, run from a checkout. It serves run_python,
// check_python and reset_session (src/tools.json, generated from
// src/tools.rs) and runs no Python itself: each call shows an MCP App view
// that runs the code in the user's browser, or, for clients without views,
// goes to a paired Sandpit tab over a loopback WebSocket. It serves the
// bundle `make build` left in dist/; `make package` packs the same server
// with a built bundle for `npx`.
//
//   node mcp-server/sandpit-mcp.mjs                 stdio (desktop clients)
//   node mcp-server/sandpit-mcp.mjs --http          also Streamable HTTP at http://127.0.0.1:<port>/mcp
//
// `--help` lists the options (lib/main.mjs).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import manifest from "./package.json" with { type: "json" };
import { main } from "./lib/main.mjs";
import { bundleViewScript } from "./lib/view-script.mjs";

await main({
  dist: join(dirname(fileURLToPath(import.meta.url)), "..", "dist"),
  version: manifest.version,
  viewScript: bundleViewScript,
});
