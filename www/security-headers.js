// @ts-check
// The security headers Sandpit's responses carry: the one definition, used by
// the local server (scripts/serve.mjs) and by the service worker (www/sw.js),
// which adds them where a static host cannot set headers.
import { KATEX_DIR, WIDGET_PAGE, WORKER_PATH } from "./generated/names.js";

/** The embedding client: other sites import it as a module (a CORS request). */
export const CLIENT_SCRIPT = "sandpit-client.js";

/** Cross-origin isolation: lets the page share memory with the worker (interrupts). */
export const ISOLATION_HEADERS = Object.freeze({
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
});

/**
 * The worker's own CSP, enforced inside the worker: Pyodide needs
 * 'wasm-unsafe-eval' and same-origin fetches; `connect` are the other
 * origins Python may reach (see `connectOrigins`). No eval, no nested workers.
 *
 * @param {string[]} [connect]
 */
export function workerCsp(connect = []) {
  for (const origin of connect) {
    if (!/^https?:\/\/[a-z0-9.-]+(:\d+)?$/i.test(origin)) {
      throw new Error(`not an origin (scheme://host[:port]): ${JSON.stringify(origin)}`);
    }
  }
  const sources = ["'self'", ...connect].join(" ");
  return `default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src ${sources}; worker-src 'none'`;
}

/**
 * Origins Python may reach: the deployment's allowlist (`network.allow` in
 * sandpit.config.json) and the origin packages come from (`cdn` in the
 * bundle's pyodide/manifest.json). Either argument may be null.
 *
 * @param {{ network?: { allow?: string[] } } | null} config
 * @param {{ cdn?: string } | null} manifest
 * @returns {string[]}
 */
export function connectOrigins(config, manifest) {
  const cdn = manifest?.cdn ? [new URL(manifest.cdn).origin] : [];
  return [...(config?.network?.allow ?? []), ...cdn];
}

/**
 * The security headers for the file at `path` ("/"-separated, relative to
 * the app's root). `isolated: false` leaves out COOP/COEP, as a page
 * embedded in a third-party site would be served; `connect` as for `workerCsp`.
 *
 * @param {string} path
 * @param {{ isolated?: boolean, connect?: string[] }} [options]
 * @returns {Record<string, string>}
 */
export function securityHeaders(path, { isolated = true, connect = [] } = {}) {
  // KaTeX too: the client renders formulas on the embedding page with it.
  const imported = path === CLIENT_SCRIPT || path.startsWith(KATEX_DIR);
  const embeddable = imported || path === WIDGET_PAGE;
  /** @type {Record<string, string>} */
  const headers = {
    "Cross-Origin-Resource-Policy": embeddable ? "cross-origin" : "same-origin",
    "X-Content-Type-Options": "nosniff",
  };
  if (imported) headers["Access-Control-Allow-Origin"] = "*";
  if (isolated) Object.assign(headers, ISOLATION_HEADERS);
  if (path === WORKER_PATH) headers["Content-Security-Policy"] = workerCsp(connect);
  return headers;
}
