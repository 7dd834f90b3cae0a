// The security headers Sandpit's responses carry: the one definition, used by
// the local server (scripts/serve.mjs) and by the service worker (www/sw.js),
// which adds them where a static host cannot set headers.

/** The worker script, relative to the app's root: it gets its own CSP. */
export const WORKER_SCRIPT = "pyodide-loader/worker.mjs";

/** Cross-origin isolation: lets the page share memory with the worker (interrupts). */
export const ISOLATION_HEADERS = Object.freeze({
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
});

/**
 * The worker's own CSP, enforced inside the worker: Pyodide needs
 * 'wasm-unsafe-eval' and same-origin fetches, and nothing else.
 */
export const WORKER_CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; worker-src 'none'";

/**
 * The security headers for the file at `path` ("/"-separated, relative to
 * the app's root). `isolated: false` leaves out COOP/COEP, as a page
 * embedded in a third-party site would be served.
 */
export function securityHeaders(path, { isolated = true } = {}) {
  const headers = {
    "Cross-Origin-Resource-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
  };
  if (isolated) Object.assign(headers, ISOLATION_HEADERS);
  if (path === WORKER_SCRIPT) headers["Content-Security-Policy"] = WORKER_CSP;
  return headers;
}
