// Serves the built bundle on loopback with the headers the app needs.
//
// Used by `make run` and, imported, by the browser tests (each test starts
// its own server on a free port and closes it). Static hosts that cannot set
// headers get them from the service worker instead (see the PWA issue).
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".zip": "application/zip",
  ".py": "text/x-python; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webmanifest": "application/manifest+json",
};

/** Cross-origin isolation: lets the page share memory with the worker (interrupts). */
const ISOLATION_HEADERS = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

/**
 * The worker's own CSP, enforced inside the worker: Pyodide needs
 * 'wasm-unsafe-eval' and same-origin fetches; `allowOrigins` are the origins
 * a deployment lets Python fetch data from. No eval, no nested workers.
 */
export function workerCsp(allowOrigins = []) {
  for (const origin of allowOrigins) {
    if (!/^https?:\/\/[a-z0-9.-]+(:\d+)?$/i.test(origin)) {
      throw new Error(`not an origin (scheme://host[:port]): ${JSON.stringify(origin)}`);
    }
  }
  const connect = ["'self'", ...allowOrigins].join(" ");
  return `default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src ${connect}; worker-src 'none'`;
}

/** The deployment's settings, `sandpit.config.json` at the bundle's root. */
async function readConfig(root) {
  const text = await readFile(join(root, "sandpit.config.json"), "utf8").catch(() => null);
  if (text === null) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`sandpit.config.json is not valid JSON: ${error.message}`);
  }
}

/**
 * Where packages that are not bundled come from (Pyodide's CDN, written into
 * the bundle's manifest at build time): Python may load them when online.
 */
async function packageOrigins(root) {
  const text = await readFile(join(root, "pyodide", "manifest.json"), "utf8").catch(() => null);
  const cdn = text && JSON.parse(text).cdn;
  return cdn ? [new URL(cdn).origin] : [];
}

function headersFor(path, isolated, csp) {
  const headers = {
    "Content-Type": MIME[extname(path)] ?? "application/octet-stream",
    "Cache-Control": "no-cache",
    "Cross-Origin-Resource-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
  };
  if (isolated) Object.assign(headers, ISOLATION_HEADERS);
  if (path.endsWith(`${sep}pyodide-loader${sep}worker.mjs`)) {
    headers["Content-Security-Policy"] = csp;
  }
  return headers;
}

/**
 * Starts a static server for `root` on 127.0.0.1.
 * `isolated: false` leaves out COOP/COEP, as an embedding chat page would.
 * `allowOrigins` overrides the config file's `network.allow` list.
 * Resolves to `{ url, close }`; `port: 0` picks a free port.
 */
export async function serve({ root, port = 0, isolated = true, allowOrigins }) {
  const base = resolve(root);
  const config = await readConfig(base);
  const csp = workerCsp([
    ...(allowOrigins ?? config.network?.allow ?? []),
    ...(await packageOrigins(base)),
  ]);
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url, "http://127.0.0.1");
      let path = normalize(join(base, decodeURIComponent(url.pathname)));
      if (path !== base && !path.startsWith(base + sep)) {
        response.writeHead(403).end("forbidden");
        return;
      }
      let info = await stat(path).catch(() => null);
      if (info?.isDirectory()) {
        path = join(path, "index.html");
        info = await stat(path).catch(() => null);
      }
      if (!info?.isFile()) {
        response.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
        return;
      }
      response.writeHead(200, { ...headersFor(path, isolated, csp), "Content-Length": info.size });
      if (request.method === "HEAD") {
        response.end();
        return;
      }
      createReadStream(path).pipe(response);
    } catch (error) {
      response.writeHead(500, { "Content-Type": "text/plain" }).end(String(error));
    }
  });
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", ok);
  });
  const { port: bound } = server.address();
  return {
    url: `http://127.0.0.1:${bound}/`,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [root = "dist", port = "8080"] = process.argv.slice(2);
  const server = await serve({ root, port: Number(port) });
  console.log(`Sandpit is at ${server.url} (Ctrl+C stops it)`);
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
