// @ts-check
// The raw baseline's page for `make bench`: Pyodide with nothing added.
//
// It starts the same Pyodide files as Sandpit in a module worker and sends
// code to it over plain postMessage. `window.raw` is what the harness reads
// and drives (times are on the page clock, milliseconds since navigation):
//   raw.workerAt       when the first worker was created
//   raw.readyAt        when Pyodide first said it was ready
//   raw.firstResultAt  when the `?run=` code answered; raw.firstOk whether it succeeded
//   raw.run(code, { timeoutMs })  resolves to { ms, finishedAt, answer }, ms being the round trip
//   raw.stoppedAt      when a run's timeout last fired
//   raw.lastReadyAt    when the latest worker said it was ready
//
// `?run=CODE` submits CODE at once, before Pyodide is ready, as an agent that
// opens the page and runs something straight away would.
//
// A run that outlives its timeout is stopped the only way plain Pyodide
// allows without shared memory: terminate the worker and load Pyodide again
// in a new one (its state is lost). The runs waiting behind it go to the new
// worker.

const raw = { workerAt: performance.now(), readyAt: null, firstResultAt: null, firstOk: null, run, stoppedAt: null, lastReadyAt: null };
window.raw = raw;

/** Runs sent and not answered yet, by id: `{ code, settle(answer) }`. */
const waiting = new Map();
let nextId = 0;
let worker = startWorker();

function startWorker() {
  const started = new Worker(new URL("./worker.mjs", import.meta.url), { type: "module" });
  started.onmessage = ({ data }) => {
    if (data.type === "ready") {
      raw.lastReadyAt = performance.now();
      raw.readyAt ??= raw.lastReadyAt;
      return;
    }
    waiting.get(data.id)?.settle(data);
    waiting.delete(data.id);
  };
  return started;
}

function run(code, { timeoutMs = null } = {}) {
  const id = nextId++;
  const started = performance.now();
  return new Promise((resolve) => {
    const timer = timeoutMs === null ? null : setTimeout(() => timedOut(id), timeoutMs);
    waiting.set(id, {
      code,
      settle(answer) {
        clearTimeout(timer);
        const finishedAt = performance.now();
        resolve({ ms: finishedAt - started, finishedAt, answer });
      },
    });
    worker.postMessage({ id, code });
  });
}

/** The raw way to stop a run: terminate and reload, then resend what was waiting. */
function timedOut(id) {
  raw.stoppedAt = performance.now();
  const stopped = waiting.get(id);
  waiting.delete(id);
  worker.terminate();
  worker = startWorker();
  for (const [waitingId, { code }] of waiting) worker.postMessage({ id: waitingId, code });
  stopped?.settle({ ok: false, timedOut: true, stdout: "", stderr: "", error: "timed out: the worker was terminated" });
}

const first = new URL(location.href).searchParams.get("run");
if (first !== null) {
  run(first).then(({ answer }) => {
    raw.firstResultAt = performance.now();
    raw.firstOk = answer.ok;
  });
}
