// Functions that run inside the benchmarked pages (Playwright serialises
// them, so each must be self-contained). Timing happens on the page clock:
// nothing measured includes the round trip from node to the browser.
//
// Both pages end up with the same interface, `window.__bench.run(code)`,
// resolving to `{ ms, ok, phase, error, value, outputChars, pythonMs, parts }`.

/**
 * Sandpit, before its scripts run: counts the workers it starts and the
 * `ready` messages they send (so the harness can wait for the warm spare
 * too), notes when a run request leaves for the worker and when its result
 * comes back (so a round trip can be split into page and worker time), and
 * keeps a handle on the app's own wasm memory.
 */
export function watchSandpit() {
  const spy = (window.__benchSandpit = { started: 0, ready: 0, firstWorkerAt: null, runPostedAt: null, doneAt: null });
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(...args) {
      spy.firstWorkerAt ??= performance.now();
      super(...args);
      spy.started += 1;
    }
  };
  // Worker messages travel on a private MessageChannel whose port1 the page
  // keeps. This listener is added first, so it runs before the app's own.
  const NativeChannel = window.MessageChannel;
  window.MessageChannel = class extends NativeChannel {
    constructor() {
      super();
      const port = this.port1;
      port.addEventListener("message", ({ data }) => {
        if (data?.type === "ready") spy.ready += 1;
        if (data?.type === "done") spy.doneAt = performance.now();
      });
      const post = port.postMessage.bind(port);
      port.postMessage = (data, ...rest) => {
        if (data?.type === "run") spy.runPostedAt = performance.now();
        return post(data, ...rest);
      };
    }
  };
  addEventListener("TrunkApplicationStarted", (event) => {
    window.__benchAppMemory = event.detail?.wasm?.memory ?? null;
  });
}

/**
 * Sandpit, before its scripts run: submits `code` through the editor the
 * moment it exists (as an agent that opens the page and runs something at
 * once), and records on the page clock when Python became ready and when
 * that first run finished. Runs restored from an earlier visit are already
 * on the page then; the first run-entry added after pressing Run is ours.
 */
export function firstRunOnOpen(code) {
  const load = (window.__benchLoad = { readyAt: null, firstResultAt: null, firstOk: null, firstPhase: null });
  let submitted = false;
  let entry = null;
  const observer = new MutationObserver((records) => {
    if (load.readyAt === null && document.querySelector('[data-testid="runtime-state"][data-state="ready"]')) {
      load.readyAt = performance.now();
    }
    if (submitted && !entry) {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (!entry && node.nodeType === 1 && node.matches('[data-testid="run-entry"]')) entry = node;
        }
      }
    }
    const editor = document.querySelector('[data-testid="code"]');
    const button = document.querySelector('[data-testid="run"]');
    if (!submitted && editor && button) {
      submitted = true;
      editor.value = code;
      editor.dispatchEvent(new Event("input", { bubbles: true }));
      button.click();
    }
    if (entry && load.firstResultAt === null && !["queued", "running"].includes(entry.dataset.phase)) {
      load.firstResultAt = performance.now();
      load.firstPhase = entry.dataset.phase;
      load.firstOk = load.firstPhase === "ok";
    }
    if (load.readyAt !== null && load.firstResultAt !== null) observer.disconnect();
  });
  observer.observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["data-state", "data-phase"],
  });
}

/**
 * Sandpit, once ready: runs code the way a user does (type, press Run) and
 * times it until the finished run is in the DOM, which includes rendering
 * the result but not painting it.
 */
export function installSandpitDriver() {
  const isEntry = (node) => node.nodeType === 1 && node.matches('[data-testid="run-entry"]');
  const text = (entry, id) => entry.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
  const describe = (entry, started, finished) => {
    const phase = entry.dataset.phase;
    const pythonMs = entry.querySelector('[data-testid="duration"]')?.dataset.ms;
    const { runPostedAt, doneAt } = window.__benchSandpit;
    const split = runPostedAt >= started && doneAt >= runPostedAt;
    return {
      ok: phase === "ok",
      phase,
      error: phase === "ok" ? null : [text(entry, "error-type"), text(entry, "error-message"), text(entry, "failure")].filter(Boolean).join(": "),
      value: text(entry, "value")?.replace(/^→ /, "") ?? null,
      outputChars: [...entry.querySelectorAll('[data-testid="output"] > span')].reduce((n, span) => n + span.textContent.length, 0),
      pythonMs: pythonMs === undefined ? null : Number(pythonMs),
      // Page until the request leaves, worker and messaging, page again until rendered.
      parts: split ? { submit: runPostedAt - started, worker: doneAt - runPostedAt, render: finished - doneAt } : null,
    };
  };
  window.__bench = {
    run(code) {
      return new Promise((resolve) => {
        const runs = document.querySelector('[data-testid="runs"]');
        let entry = null;
        let started = 0;
        const observer = new MutationObserver((records) => {
          for (const record of records) {
            for (const node of record.addedNodes) if (!entry && isEntry(node)) entry = node;
          }
          if (!entry || ["queued", "running"].includes(entry.dataset.phase)) return;
          const finished = performance.now();
          observer.disconnect();
          resolve({ ms: finished - started, ...describe(entry, started, finished) });
        });
        observer.observe(runs, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-phase"] });
        const editor = document.querySelector('[data-testid="code"]');
        started = performance.now();
        editor.value = code;
        editor.dispatchEvent(new Event("input", { bubbles: true }));
        document.querySelector('[data-testid="run"]').click();
      });
    },
    appWasmBytes: () => window.__benchAppMemory?.buffer.byteLength ?? 0,
  };
}

/** The raw baseline, once ready: the same interface over its plain postMessage. */
export function installRawDriver() {
  window.__bench = {
    async run(code) {
      const { ms, answer } = await window.raw.run(code);
      return {
        ms,
        ok: answer.ok,
        phase: answer.ok ? "ok" : "error",
        error: answer.error ?? null,
        value: answer.value ?? null,
        outputChars: answer.stdout.length + answer.stderr.length,
        pythonMs: null,
        parts: null,
      };
    },
    appWasmBytes: () => 0,
  };
}

/**
 * Runs `codes` one after another, each waiting for the previous result as an
 * agent does; `ms` is the wall time of the whole series on the page clock.
 * A run that takes longer than `timeoutMs` fails the series.
 */
export async function runSeries({ codes, timeoutMs }) {
  const results = [];
  const started = performance.now();
  for (const code of codes) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`run timed out: ${code.slice(0, 80)}`)), timeoutMs);
    });
    results.push(await Promise.race([window.__bench.run(code), timeout]));
    clearTimeout(timer);
  }
  return { ms: performance.now() - started, results };
}
