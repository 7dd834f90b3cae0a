// Starts the Python worker while the app's own wasm is still loading, so
// Pyodide's start (most of a cold start) overlaps the app's instead of
// following it. The worker starts Python from the files next to it; the app
// adopts it (`take_early_worker` in src/runtime/worker.rs) and sends it the
// rest of its `init`.
(() => {
  const url = new URL("pyodide-loader/worker.mjs", document.baseURI);
  const none = Promise.resolve(null);
  window.sandpitEarlyWorker = fetch(url, { cache: "no-store" })
    .then((response) => {
      // Only a script that comes with its own CSP may start early, the check
      // the app makes before any worker (`hasOwnCsp` in www/pwa.js); else
      // the app waits for the service worker to add it and starts its own.
      if (!response.ok || !response.headers.has("Content-Security-Policy")) return null;
      const worker = new Worker(url, { type: "module", name: "sandpit-early" });
      // Failed before the app adopted it: dropped, and the app starts its own.
      worker.onerror = (event) => {
        event.preventDefault();
        worker.terminate();
        window.sandpitEarlyWorker = none;
      };
      return worker;
    })
    .catch(() => null);
})();
