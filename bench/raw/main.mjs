// The raw baseline's page for `make bench`: Pyodide with nothing added.
//
// It starts the same Pyodide files as Sandpit in a module worker and sends
// code to it over plain postMessage. `window.raw` is what the harness reads
// and drives (times are on the page clock, milliseconds since navigation):
//   raw.workerAt       when the worker was created
//   raw.readyAt        when Pyodide said it was ready
//   raw.firstResultAt  when the `?run=` code answered; raw.firstOk whether it succeeded
//   raw.run(code)      resolves to { ms, answer }, ms being the round trip
//
// `?run=CODE` submits CODE at once, before Pyodide is ready, as an agent that
// opens the page and runs something straight away would.

const raw = { workerAt: performance.now(), readyAt: null, firstResultAt: null, firstOk: null, run };
window.raw = raw;

const worker = new Worker(new URL("./worker.mjs", import.meta.url), { type: "module" });
const waiting = new Map();
let nextId = 0;

worker.onmessage = ({ data }) => {
  if (data.type === "ready") {
    raw.readyAt = performance.now();
    return;
  }
  waiting.get(data.id)?.(data);
  waiting.delete(data.id);
};

function run(code) {
  const id = nextId++;
  const started = performance.now();
  return new Promise((resolve) => {
    waiting.set(id, (answer) => resolve({ ms: performance.now() - started, answer }));
    worker.postMessage({ id, code });
  });
}

const first = new URL(location.href).searchParams.get("run");
if (first !== null) {
  run(first).then(({ answer }) => {
    raw.firstResultAt = performance.now();
    raw.firstOk = answer.ok;
  });
}
