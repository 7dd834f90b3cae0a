// @ts-check
// Serves the built Sandpit bundle (dist/) on loopback, for the views this
// server's tools show and for the tab a desktop client's calls go to. The
// headers are the bundle's own (www/security-headers.js), as a page embedded
// in another site is served (no cross-origin isolation), plus CORS so a view
// in an opaque-origin frame can load Pyodide and the worker's module.
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";

import { MIME, bundleFile } from "../../scripts/bundle-files.mjs";
import { CONFIG_FILE } from "../../www/generated/names.js";
import { connectOrigins, securityHeaders } from "../../www/security-headers.js";


/**
 * A request handler for the bundle in `root`, or null when there is no
 * built bundle there. Views are framed by hosts on origins nobody knows in
 * advance, so the widget served here lets any page drive it: each embedding
 * gets its own widget and interpreter, which keeps nothing across reloads.
 *
 * @param {string} root
 * @returns {Promise<((request: import("node:http").IncomingMessage, response: import("node:http").ServerResponse) => Promise<void>) | null>}
 */
export async function bundleHandler(root) {
  const dir = resolve(root);
  const index = await stat(join(dir, "index.html")).catch(() => null);
  if (!index?.isFile()) return null;
  const config = JSON.parse(await readFile(join(dir, CONFIG_FILE), "utf8").catch(() => "{}"));
  const manifest = JSON.parse(await readFile(join(dir, "pyodide/manifest.json"), "utf8").catch(() => "null"));
  const connect = connectOrigins(config, manifest);
  const served = Buffer.from(JSON.stringify({ ...config, embed: { ...config.embed, allow: ["*"] } }));

  return async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const found = await bundleFile(dir, url.pathname);
    if ("status" in found) {
      response.writeHead(found.status, { "Content-Type": "text/plain" }).end(found.status === 403 ? "forbidden" : "not found");
      return;
    }
    const { path, info } = found;
    const appPath = path.slice(dir.length + 1).split(sep).join("/");
    const headers = {
      "Content-Type": MIME[extname(path)] ?? "application/octet-stream",
      "Cache-Control": "no-cache",
      ...securityHeaders(appPath, { isolated: false, connect }),
      // Read with CORS by views on other origins, including opaque ones.
      "Access-Control-Allow-Origin": "*",
      "Cross-Origin-Resource-Policy": "cross-origin",
    };
    if (appPath === CONFIG_FILE) {
      response.writeHead(200, { ...headers, "Content-Length": served.length });
      response.end(request.method === "HEAD" ? undefined : served);
      return;
    }
    response.writeHead(200, { ...headers, "Content-Length": info.size });
    if (request.method === "HEAD") {
      response.end();
      return;
    }
    createReadStream(path).pipe(response);
  };
}
