// @ts-check
// Serves the built bundle on loopback with the headers the app needs.
//
// Used by `make run` and, imported, by the browser tests (each test starts
// its own server on a free port and closes it). Static hosts that cannot set
// headers get them from the service worker instead: both take the header
// values from www/security-headers.js.
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

import { CONFIG_FILE } from "../www/generated/names.js";
import { MIME, bundleFile } from "./bundle-files.mjs";
import { ISOLATION_HEADERS, connectOrigins, securityHeaders } from "../www/security-headers.js";

/**
 * A JSON file of the bundle, or null when it is missing.
 *
 * @param {string} root
 * @param {string} path
 */
async function readJson(root, path) {
  const text = await readFile(join(root, path), "utf8").catch(() => null);
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${/** @type {Error} */ (error).message}`);
  }
}

/**
 * Origins Python may reach from this bundle: the deployment's allowlist
 * (`sandpit.config.json`, or `allowOrigins` when given) and the package CDN.
 *
 * @param {string} root
 * @param {string[] | undefined} allowOrigins
 */
async function bundleConnect(root, allowOrigins) {
  const config = await readJson(root, CONFIG_FILE);
  const manifest = await readJson(root, "pyodide/manifest.json");
  const allow = allowOrigins ? { network: { allow: allowOrigins } } : config;
  return connectOrigins(allow, manifest);
}

/**
 * `config` with `origins` added to the pages that may drive the widget.
 *
 * @param {{ embed?: { allow?: string[] } } | null} config
 * @param {string[]} origins
 */
function withEmbedOrigins(config, origins) {
  const allow = [...(config?.embed?.allow ?? []), ...origins];
  return { ...config, embed: { ...config?.embed, allow } };
}

/**
 * The response headers for `path`; `secure: false` sends none of the security headers.
 *
 * @param {string} root
 * @param {string} path
 * @param {{ isolated: boolean, secure: boolean }} options
 * @param {string[]} connect
 */
function headersFor(root, path, { isolated, secure }, connect) {
  const appPath = relative(root, path).split(sep).join("/");
  return {
    "Content-Type": MIME[extname(path)] ?? "application/octet-stream",
    "Cache-Control": "no-cache",
    ...(secure ? securityHeaders(appPath, { isolated, connect }) : {}),
  };
}

/**
 * Starts a static server for `root` on 127.0.0.1.
 * `isolated: false` leaves out COOP/COEP, as an embedding chat page would.
 * `allowOrigins` overrides the config file's `network.allow` list.
 * `secure: false` sends no security headers at all, as a plain static host
 * does: then only the service worker can add them.
 * `embedOrigins` are added to the config's `embed.allow` (the pages that may
 * drive the widget), in the config file as served; `sessions` replaces its
 * `sessions` settings (the worker pool's limits).
 * Resolves to `{ url, close, setRoot }`; `port: 0` picks a free port.
 * `setRoot(dir)` serves another directory from the same origin (a new
 * deployment, for the update tests); `close()` may be called more than once.
 *
 * @param {{
 *   root: string,
 *   port?: number,
 *   isolated?: boolean,
 *   secure?: boolean,
 *   allowOrigins?: string[],
 *   embedOrigins?: string[],
 *   sessions?: object,
 * }} options
 */
export async function serve({ root, port = 0, isolated = true, secure = true, allowOrigins, embedOrigins = [], sessions }) {
  let base = resolve(root);
  // Per served directory, computed once; awaited here so a bad config fails at start.
  /** @type {Map<string, Promise<string[]>>} */
  const connectOf = new Map();
  /** @param {string} dir */
  const connectFor = (dir) => {
    let connect = connectOf.get(dir);
    if (!connect) connectOf.set(dir, (connect = bundleConnect(dir, allowOrigins)));
    return connect;
  };
  await connectFor(base);
  const server = createServer(async (request, response) => {
    const dir = base;
    try {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const found = await bundleFile(dir, url.pathname);
      if ("status" in found) {
        response.writeHead(found.status, { "Content-Type": "text/plain" }).end(found.status === 403 ? "forbidden" : "not found");
        return;
      }
      const { path, info } = found;
      const headers = headersFor(dir, path, { isolated, secure }, await connectFor(dir));
      if ((embedOrigins.length > 0 || sessions) && path === join(dir, CONFIG_FILE)) {
        const config = withEmbedOrigins(await readJson(dir, CONFIG_FILE), embedOrigins);
        const body = Buffer.from(JSON.stringify(sessions ? { ...config, sessions } : config));
        response.writeHead(200, { ...headers, "Content-Length": body.length });
        response.end(request.method === "HEAD" ? undefined : body);
        return;
      }
      // Revalidation instead of a second download: the page, its spare
      // worker and the service worker all ask for Pyodide's files.
      const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
      if (request.headers["if-none-match"] === etag) {
        response.writeHead(304, { ...headers, ETag: etag }).end();
        return;
      }
      response.writeHead(200, { ...headers, ETag: etag, "Content-Length": info.size });
      if (request.method === "HEAD") {
        response.end();
        return;
      }
      createReadStream(path).pipe(response);
    } catch (error) {
      response.writeHead(500, { "Content-Type": "text/plain" }).end(String(error));
    }
  });
  return {
    ...(await listen(server, port)),
    /** @param {string} dir */
    setRoot(dir) {
      base = resolve(dir);
    },
  };
}

/**
 * Binds `server` to loopback; resolves to its `url` and an idempotent `close()`.
 *
 * @param {import("node:http").Server} server
 * @param {number} port
 */
async function listen(server, port) {
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => ok(undefined));
  });
  const { port: bound } = /** @type {import("node:net").AddressInfo} */ (server.address());
  /** @type {Promise<unknown> | null} */
  let closed = null;
  return {
    url: `http://127.0.0.1:${bound}/`,
    close() {
      closed ??= new Promise((/** @type {(value?: unknown) => void} */ ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      });
      return closed;
    },
  };
}

const DEMO_DIR = fileURLToPath(new URL("../www/demo/", import.meta.url));

/**
 * Serves the demo chat page (www/demo), which embeds the widget of the app
 * at `app`, from another origin as a chat UI would. `files` maps extra
 * paths to `{ type, body }` (the tests add their own host pages).
 * `setApp(url)` points the demo at an app started after it. `isolated`
 * serves its pages cross-origin isolated (COOP/COEP), as a chat UI that
 * wants timed-out runs interrupted rather than restarted would be.
 *
 * @param {{
 *   app?: string | null,
 *   port?: number,
 *   files?: Record<string, { type: string, body: string }>,
 *   isolated?: boolean,
 * }} [options]
 */
export async function serveDemo({ app = null, port = 0, files = {}, isolated = false } = {}) {
  const isolation = isolated ? ISOLATION_HEADERS : {};
  const server = createServer(async (request, response) => {
    const { pathname } = new URL(request.url ?? "/", "http://127.0.0.1");
    const extra = files[pathname];
    if (extra) {
      response.writeHead(200, { "Content-Type": extra.type, ...isolation }).end(extra.body);
      return;
    }
    if (pathname === "/demo-config.json") {
      response.writeHead(200, { "Content-Type": MIME[".json"] }).end(JSON.stringify({ app }));
      return;
    }
    if (pathname === "/favicon.ico") {
      response.writeHead(204).end();
      return;
    }
    const name = pathname === "/" ? "index.html" : pathname.slice(1);
    const body = /^[a-z-]+\.(html|js|css)$/.test(name) ? await readFile(join(DEMO_DIR, name)).catch(() => null) : null;
    if (body === null) {
      response.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(200, { "Content-Type": MIME[extname(name)], ...isolation }).end(body);
  });
  return {
    ...(await listen(server, port)),
    /** @param {string} url */
    setApp(url) {
      app = url;
    },
  };
}

/**
 * `text` as an origin (`scheme://host[:port]`), or an error that says what is wrong with it.
 *
 * @param {string} text
 */
export function embedOrigin(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`EMBED: ${JSON.stringify(text)} is not an origin (scheme://host[:port], e.g. https://chat.example)`);
  }
  if (!["http:", "https:"].includes(url.protocol) || url.origin !== text.replace(/\/$/, "")) {
    throw new Error(`EMBED: ${JSON.stringify(text)} is not an origin: give only scheme://host[:port], e.g. ${url.origin}`);
  }
  return url.origin;
}

/**
 * What `make run` serves: the app on `port` and the demo chat page on the
 * next one (both on free ports when `port` is 0), the demo's origin and
 * `embedOrigins` (`make run EMBED=...`) allowed to drive the widget, on top
 * of the config's own list. The browser tests of `make run`'s serving start this.
 *
 * @param {{ root?: string, port?: number, embedOrigins?: string[] }} [options]
 */
export async function serveMakeRun({ root = "dist", port = 8080, embedOrigins = [] } = {}) {
  const extra = embedOrigins.map(embedOrigin);
  const demo = await serveDemo({ port: port === 0 ? 0 : port + 1 });
  try {
    const server = await serve({ root, port, embedOrigins: [new URL(demo.url).origin, ...extra] });
    demo.setApp(server.url);
    return { server, demo, close: () => Promise.all([server.close(), demo.close()]) };
  } catch (error) {
    await demo.close();
    throw error;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [root = "dist", port = "8080", ...embedOrigins] = process.argv.slice(2).flatMap((arg) => arg.split(/\s+/)).filter(Boolean);
  const { server, demo, close } = await serveMakeRun({ root, port: Number(port), embedOrigins });
  console.log(`Sandpit is at ${server.url}; a demo chat page embedding it is at ${demo.url} (Ctrl+C stops both)`);
  if (embedOrigins.length > 0) console.log(`Pages on ${embedOrigins.join(", ")} may drive its widget too`);
  const stop = async () => {
    await close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
