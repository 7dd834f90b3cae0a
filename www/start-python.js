// Starts the Python worker while the app's own wasm is still loading, so
// Pyodide's start (most of a cold start) overlaps the app's instead of
// following it. The worker starts Python from the files next to it; the app
// adopts it (`take_early_worker` in src/runtime/worker.rs) and sends it the
// rest of its `init`. If it fails before then, it is dropped and the app
// starts a worker of its own, whose failure the app reports.
const worker = new Worker(new URL("pyodide-loader/worker.mjs", document.baseURI), {
  type: "module",
  name: "sandpit-early",
});
worker.onerror = (event) => {
  event.preventDefault();
  worker.terminate();
  if (window.sandpitEarlyWorker === worker) delete window.sandpitEarlyWorker;
};
window.sandpitEarlyWorker = worker;
