// @ts-check
// The security headers (www/security-headers.js), the one definition the
// local server and the service worker both serve.
import assert from "node:assert/strict";
import { test } from "node:test";

import { CONFIG_FILE, KATEX_DIR, WIDGET_PAGE, WORKER_PATH } from "../../www/generated/names.js";
import { CLIENT_SCRIPT, connectOrigins, securityHeaders, workerCsp } from "../../www/security-headers.js";

test("the worker's CSP lets Python reach its own origin and the given ones, and nothing runs as code", () => {
  const csp = workerCsp(["https://cdn.example", "http://127.0.0.1:8000"]);
  assert.match(csp, /connect-src 'self' https:\/\/cdn\.example http:\/\/127\.0\.0\.1:8000;/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.doesNotMatch(csp, /'unsafe-eval'|'unsafe-inline'/);
  assert.match(csp, /worker-src 'none'/);
});

test("anything but an origin is refused, so nothing can be written into the policy", () => {
  for (const bad of ["https://cdn.example/path", "https://a.example; script-src *", "*", "cdn.example"]) {
    assert.throws(() => workerCsp([bad]), /not an origin/, bad);
  }
});

test("Python may reach the deployment's allowlist and the package CDN's origin", () => {
  assert.deepEqual(connectOrigins({ network: { allow: ["https://api.example"] } }, { cdn: "https://cdn.example/pyodide/v1/full/" }), [
    "https://api.example",
    "https://cdn.example",
  ]);
  assert.deepEqual(connectOrigins(null, null), []);
});

test("each file's headers: the worker's CSP, the embeddable files' CORS and CORP, isolation unless told", () => {
  const worker = securityHeaders(WORKER_PATH, { connect: ["https://cdn.example"] });
  assert.equal(worker["Content-Security-Policy"], workerCsp(["https://cdn.example"]));
  assert.equal(worker["Cross-Origin-Resource-Policy"], "same-origin");
  assert.equal(worker["Cross-Origin-Embedder-Policy"], "require-corp");
  const client = securityHeaders(CLIENT_SCRIPT, { isolated: false });
  assert.equal(client["Access-Control-Allow-Origin"], "*");
  assert.equal(client["Cross-Origin-Resource-Policy"], "cross-origin");
  assert.equal(client["Cross-Origin-Opener-Policy"], undefined);
  assert.equal(securityHeaders(WIDGET_PAGE)["Cross-Origin-Resource-Policy"], "cross-origin");
  const katex = securityHeaders(`${KATEX_DIR}fonts/KaTeX_Main-Regular.woff2`);
  assert.equal(katex["Access-Control-Allow-Origin"], "*", "the client loads KaTeX's module, sheet and fonts on other sites");
  assert.equal(katex["Cross-Origin-Resource-Policy"], "cross-origin");
  assert.equal(securityHeaders(CONFIG_FILE)["Content-Security-Policy"], undefined);
  assert.equal(securityHeaders(CONFIG_FILE)["X-Content-Type-Options"], "nosniff");
});
