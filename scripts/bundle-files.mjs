// @ts-check
// A built bundle's files as a server hands them out: their content types,
// and the file a request's path names. Shared by scripts/serve.mjs and the
// MCP server (mcp-server/lib/bundle.mjs), which is also packed on its own.
import { stat } from "node:fs/promises";
import { join, normalize, sep } from "node:path";

/** Content types by file extension, for everything a bundle holds. @type {Record<string, string>} */
export const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".py": "text/x-python; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".whl": "application/zip",
  ".woff2": "font/woff2",
  ".webmanifest": "application/manifest+json",
};

/**
 * The file under `dir` that a request's `pathname` names (a directory
 * stands for its index.html), or the status to answer with: 403 outside
 * `dir`, 404 when there is no such file.
 *
 * @param {string} dir
 * @param {string} pathname
 * @returns {Promise<{ path: string, info: import("node:fs").Stats } | { status: 403 | 404 }>}
 */
export async function bundleFile(dir, pathname) {
  let path = normalize(join(dir, decodeURIComponent(pathname)));
  if (path !== dir && !path.startsWith(dir + sep)) return { status: 403 };
  let info = await stat(path).catch(() => null);
  if (info?.isDirectory()) {
    path = join(path, "index.html");
    info = await stat(path).catch(() => null);
  }
  return info?.isFile() ? { path, info } : { status: 404 };
}
