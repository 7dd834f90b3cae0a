// @ts-check
// Functions that run inside the benchmarked pages (Playwright serialises
// them, so each must be self-contained). Timing happens on the page clock:
// nothing measured includes the round trip from node to the browser.
//
// Every page ends up with the same interface, `window.__bench`:
//   run(code)       resolves to `{ ms, finishedAt, ok, phase, error, value,
//                   outputChars, pythonMs, parts, restored }`
//   submit(code, { timeoutSeconds })  resolves once the run is queued, to
//                   `{ result }`, a promise of what `run` resolves to
//   trace()         starts recording how a stopped run is recovered from;
//                   its `stop()` gives `{ events, readyForNextAt }` (figure 5)
//   reported()      (agent path only) fills in the `parts` of the runs so far

/**
 * Sandpit, before its scripts run: counts the workers it has running and
 * how many of those have said `ready` (so the harness can wait for the warm
 * spare and the snapshot maker too; a worker it terminates, ready or not, no
 * longer counts), notes when a run request leaves for the worker and when its result
 * comes back (so a round trip can be split into page and worker time),
 * keeps a handle on the app's own wasm memory, and, while a recovery is
 * traced, also when the page stops a worker (interrupt or terminate).
 * `clockPath` is the clock worker's script (CLOCK_PATH), which loads no Python.
 *
 * @param {string} clockPath
 */
export function watchSandpit(clockPath) {
  const spy = (window.__benchSandpit = {
    started: 0,
    ready: 0,
    firstWorkerAt: null,
    runPostedAt: null,
    doneAt: null,
    // `[{ what, at }]` while a recovery is traced (figure 5), else null: long sessions record nothing.
    trace: null,
    // Called when a run's result comes back from the worker, if set (see `reportWidgetRuns`).
    onDone: null,
  });
  const note = (what) => spy.trace?.push({ what, at: performance.now() });
  /** The page's end of each channel, by the end a worker gets with `init`. */
  const pageEnds = new WeakMap();
  /** The worker at the other end of each of the page's ends, and whether it said it is ready. */
  const workers = new WeakMap();
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    /** @param {ConstructorParameters<typeof Worker>} args */
    constructor(...args) {
      // The clock worker keeps timers: it loads no Python.
      const python = !String(args[0]).endsWith(clockPath);
      if (python) spy.firstWorkerAt ??= performance.now();
      super(...args);
      this.python = python;
      this.ready = false;
      if (!python) return;
      spy.started += 1;
      note("worker started");
    }
    /**
     * @param {any} data
     * @param {any} transfer
     * @param {[]} rest
     */
    postMessage(data, transfer, ...rest) {
      for (const port of Array.isArray(transfer) ? transfer : []) {
        if (pageEnds.has(port)) workers.set(pageEnds.get(port), this);
      }
      return super.postMessage(data, transfer, ...rest);
    }
    // Without an interrupt buffer, a timeout stops Python by terminating its
    // worker; a background worker still loading is terminated when a run comes.
    terminate() {
      note("terminate");
      if (this.python) {
        spy.started -= 1;
        if (this.ready) spy.ready -= 1;
        this.python = false;
      }
      return super.terminate();
    }
  };
  // On a cross-origin isolated page a timeout writes SIGINT into the worker's
  // interrupt buffer, the only Atomics.store the page makes. The app's glue
  // looks `Atomics.store` up on every call, so this sees the moment it fires.
  const nativeStore = Atomics.store;
  Atomics.store = /** @type {typeof Atomics.store} */ (
    (/** @type {[any, number, any]} */ ...args) => {
      note("interrupt");
      return nativeStore(...args);
    }
  );
  // Worker messages travel on a private MessageChannel whose port1 the page
  // keeps. This listener is added first, so it runs before the app's own.
  const NativeChannel = window.MessageChannel;
  window.MessageChannel = class extends NativeChannel {
    constructor() {
      super();
      const port = this.port1;
      pageEnds.set(this.port2, port);
      // Each message is an object with one field, named for its kind.
      const kindOf = (data) => Object.keys(data ?? {})[0];
      const becameReady = () => {
        const worker = workers.get(port);
        if (!worker?.python || worker.ready) return;
        worker.ready = true;
        spy.ready += 1;
      };
      port.addEventListener("message", ({ data }) => {
        const kind = kindOf(data);
        if (kind === "ready") {
          becameReady();
          note("ready");
        }
        // The snapshot maker never says `ready`: it is done once it stored
        // the snapshot (or failed to), which a return visit then finds.
        if (kind === "snapshot_stored" || kind === "fatal") becameReady();
        if (kind === "done" || kind === "run_failed") {
          spy.doneAt = performance.now();
          note("done");
          spy.onDone?.();
        }
      });
      const post = port.postMessage.bind(port);
      port.postMessage = (data, ...rest) => {
        if (kindOf(data) === "run") {
          spy.runPostedAt = performance.now();
          note("run posted");
        }
        return post(data, ...rest);
      };
    }
  };
  addEventListener("TrunkApplicationStarted", (event) => {
    window.__benchAppMemory = /** @type {CustomEvent} */ (event).detail?.wasm?.memory ?? null;
  });
}

/**
 * Sandpit, before its scripts run: submits `code` through the editor the
 * moment it exists (as an agent that opens the page and runs something at
 * once), and records on the page clock when Python became ready and when
 * that first run finished. Runs restored from an earlier visit are already
 * on the page then; the first run-entry added after pressing Run is ours.
 * The editor is CodeMirror, loaded from `editorModule` (EDITOR_MODULE in
 * src/names.rs): the code goes in through its `EditorView`.
 */
export function firstRunOnOpen({ code, editorModule }) {
  const load = (window.__benchLoad = { readyAt: null, firstResultAt: null, firstOk: null, firstPhase: null, snapshot: null });
  let submitted = false;
  let entry = null;
  const observer = new MutationObserver((records) => {
    const ready = document.querySelector('[data-testid="runtime-state"][data-state="ready"]');
    if (load.readyAt === null && ready) {
      load.readyAt = performance.now();
      // Whether Python was restored from the start-up snapshot (`used`, `absent`, `rejected`).
      load.snapshot = ready.dataset.snapshot ?? null;
    }
    if (submitted && !entry) {
      for (const record of records) {
        for (const node of record.addedNodes) {
          // A run that starts a new group of runs arrives inside it.
          if (!entry && node instanceof Element) entry = node.matches('[data-testid="run-entry"]') ? node : node.querySelector('[data-testid="run-entry"]');
        }
      }
    }
    const editor = document.querySelector('[data-testid="code"]');
    const button = /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="run"]'));
    if (!submitted && editor && button) {
      submitted = true;
      import(new URL(editorModule, document.baseURI).href).then(({ EditorView }) => {
        const view = EditorView.findFromDOM(editor);
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
        button.click();
      });
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
 * the result but not painting it. The code goes into the editor through
 * CodeMirror's `EditorView`, from `editorModule` (EDITOR_MODULE in src/names.rs).
 */
export async function installSandpitDriver(editorModule) {
  const { EditorView } = await import(new URL(editorModule, document.baseURI).href);
  const view = EditorView.findFromDOM(document.querySelector('[data-testid="code"]'));
  const type = (code) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
  /** The run entry `node` is or holds: a run that starts a new group of runs arrives inside it. */
  const entryIn = (node) =>
    node.nodeType !== 1 ? null : node.matches('[data-testid="run-entry"]') ? node : node.querySelector('[data-testid="run-entry"]');
  const text = (entry, id) => entry.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
  const spy = window.__benchSandpit;
  const describe = (entry, started, finished) => {
    const phase = entry.dataset.phase;
    const pythonMs = entry.querySelector('[data-testid="duration"]')?.dataset.ms;
    const { runPostedAt, doneAt } = spy;
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
      restored: text(entry, "restored"),
    };
  };
  /** The timeout field is read when Run is pressed, so setting it around the click scopes it to one run. */
  const field = () => /** @type {HTMLInputElement} */ (document.querySelector('[data-testid="timeout"]'));
  const setTimeoutField = (value) => {
    field().value = value;
    field().dispatchEvent(new Event("change", { bubbles: true }));
  };
  /** Presses Run on `code`; resolves once its run is on the page, so a second submit cannot be taken for it. */
  const submit = (code, { timeoutSeconds = null } = {}) =>
    new Promise((queued) => {
      const runs = document.querySelector('[data-testid="runs"]');
      let entry = null;
      let started = 0;
      let finish;
      const result = new Promise((resolve) => {
        finish = resolve;
      });
      const observer = new MutationObserver((records) => {
        for (const record of records) {
          for (const node of record.addedNodes) {
            const found = entry ? null : entryIn(node);
            if (found) {
              entry = found;
              queued({ result });
            }
          }
        }
        if (!entry || ["queued", "running"].includes(entry.dataset.phase)) return;
        const finished = performance.now();
        observer.disconnect();
        const described = describe(entry, started, finished);
        finish({ ms: finished - started, finishedAt: finished, ...described });
        // When the result is on screen: the frame after the DOM change, and the
        // task after that frame (its paint). Kept aside: the run's own result
        // does not wait for it, so series keep their pace.
        const answeredAt = spy.doneAt;
        requestAnimationFrame(() =>
          setTimeout(() => {
            if (described.parts) window.__bench.paints.push({ answeredAt, paintedAt: performance.now() });
          }, 0),
        );
      });
      observer.observe(runs, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-phase"] });
      const usualTimeout = field().value;
      if (timeoutSeconds !== null) setTimeoutField(String(timeoutSeconds));
      started = performance.now();
      type(code);
      /** @type {HTMLElement} */ (document.querySelector('[data-testid="run"]')).click();
      if (timeoutSeconds !== null) setTimeoutField(usualTimeout);
    });
  window.__bench = {
    run: (code) => submit(code).then(({ result }) => result),
    submit,
    /** Per run, when its answer reached the page and when its result was painted (page clock). */
    paints: [],
    trace() {
      spy.trace = [];
      return {
        stop() {
          const events = spy.trace;
          spy.trace = null;
          // The page posts a run only to a worker that is ready and free, so
          // the last post is when the queued run could start.
          return { events, readyForNextAt: events.findLast((e) => e.what === "run posted")?.at ?? null };
        },
      };
    },
  };
}

/** The raw baseline, once ready: the same interface over its plain postMessage. */
export function installRawDriver() {
  const describe = ({ ms, finishedAt, answer }) => ({
    ms,
    finishedAt,
    ok: answer.ok,
    phase: answer.ok ? "ok" : answer.timedOut ? "timeout" : "error",
    error: answer.error ?? null,
    value: answer.value ?? null,
    outputChars: answer.stdout.length + answer.stderr.length,
    pythonMs: null,
    parts: null,
    restored: null,
  });
  const submit = async (code, { timeoutSeconds = null } = {}) => ({
    result: window.raw.run(code, { timeoutMs: timeoutSeconds === null ? null : timeoutSeconds * 1000 }).then(describe),
  });
  window.__bench = {
    run: (code) => submit(code).then(({ result }) => result),
    submit,
    trace() {
      const since = performance.now();
      const after = (at) => (at !== null && at >= since ? at : null);
      return {
        stop() {
          const stoppedAt = after(window.raw.stoppedAt);
          const readyAt = after(window.raw.lastReadyAt);
          const events = [
            ...(stoppedAt === null ? [] : [{ what: "terminate", at: stoppedAt }]),
            ...(readyAt === null ? [] : [{ what: "ready", at: readyAt }]),
          ];
          // Runs wait inside the new worker while it loads, so they start as soon as it is ready.
          return { events, readyForNextAt: readyAt };
        },
      };
    },
  };
}

/**
 * The widget's frame, before its scripts run, after `watchSandpit` (the
 * agent path adds both to its context, so they run in every frame; this one
 * does nothing outside a frame): for each run whose result comes back from
 * the worker, keeps when the widget received the request, when it posted the
 * run to its worker and when the worker answered, all on the widget's own
 * clock, and hands them over when the embedding page asks. The page splits a
 * round trip with the differences, so no two clocks are compared. Nothing is
 * sent while runs go on: a report posted with each run cost every round trip
 * about 0.2 ms (one more postMessage and one more task on the main thread).
 */
export function reportWidgetRuns() {
  if (window.parent === window) return;
  const spy = window.__benchSandpit;
  const reports = [];
  let receivedAt = null;
  // Added before the app's own listener, so it sees the request arrive first.
  addEventListener("message", ({ source, data }) => {
    if (data?.payload?.method === "tools/call") receivedAt = performance.now();
    if (source === window.parent && data?.channel === "sandpit-bench") {
      window.parent.postMessage({ channel: "sandpit-bench", reports: reports.splice(0) }, "*");
    }
  });
  spy.onDone = () => reports.push({ receivedAt, runPostedAt: spy.runPostedAt, doneAt: spy.doneAt });
}

/**
 * The agent path (bench/client/), once connected: the same interface over
 * the client's `sandpit.run`, timed from calling it to its resolution. The
 * widget answers only after it has added the run to its (hidden) run list,
 * so that is included, as it is for every caller of the client.
 */
export function installClientDriver() {
  const { sandpit } = window.client;
  // Results not yet split with the widget's reports, oldest first. Runs reach
  // the widget's worker one at a time and each leaves one report.
  const unsplit = [];
  /**
   * The widget's times `r` for a run that took `ms`: until its worker got
   * the run, the worker, and the rest (both postMessage hops, the widget
   * turning the result into MCP and adding the run to its list, the client).
   */
  const split = (r, ms) => {
    if (!(r.runPostedAt >= r.receivedAt && r.doneAt >= r.runPostedAt)) return null;
    return { submit: r.runPostedAt - r.receivedAt, worker: r.doneAt - r.runPostedAt, render: ms - (r.doneAt - r.receivedAt) };
  };
  const describe = (result, started) => {
    const finished = performance.now();
    const ms = finished - started;
    const described = {
      ms,
      finishedAt: finished,
      ok: result.status === "ok",
      phase: result.status,
      error: result.error ? `${result.error.type}: ${result.error.message}` : null,
      value: result.value?.repr ?? null,
      outputChars: result.stdout.length + result.stderr.length,
      pythonMs: result.duration_ms ?? null,
      // Filled in by `reported()`.
      parts: null,
      restored: result.restored,
    };
    unsplit.push(described);
    return described;
  };
  const submit = async (code, { timeoutSeconds = null } = {}) => {
    const started = performance.now();
    // The request is posted before `run` returns its promise: the run is queued.
    const result = sandpit.run(code, timeoutSeconds === null ? {} : { timeoutSeconds });
    return { result: result.then((answer) => describe(answer, started)) };
  };
  window.__bench = {
    run: (code) => submit(code).then(({ result }) => result),
    submit,
    // Asks the widget for its reports and splits the runs finished so far with them.
    async reported() {
      const frame = sandpit.iframe.contentWindow;
      const { reports } = await new Promise((resolve) => {
        const listen = ({ source, data }) => {
          if (source !== frame || data?.channel !== "sandpit-bench") return;
          removeEventListener("message", listen);
          resolve(data);
        };
        addEventListener("message", listen);
        frame.postMessage({ channel: "sandpit-bench" }, "*");
      });
      // A run that never reached the worker would leave one report fewer: then none is split.
      const runs = unsplit.splice(0);
      if (reports.length !== runs.length) return;
      runs.forEach((described, index) => (described.parts = split(reports[index], described.ms)));
    },
    trace() {
      throw new Error("the agent path is not traced: its workers belong to the widget's cross-origin frame (figure 5 measures the app page)");
    },
  };
}

/**
 * Figure 5, one sample: submits `loop` with a timeout of `timeoutSeconds`,
 * queues `next` behind it at once, and waits for both results while tracing
 * how the page stops the loop and gets ready for `next`. Returns both
 * results and the trace; the harness reads the times off it.
 */
export async function recoverySample({ loop, next, timeoutSeconds }) {
  const trace = window.__bench.trace();
  const stopped = await window.__bench.submit(loop, { timeoutSeconds });
  const queued = await window.__bench.submit(next);
  const results = await Promise.all([stopped.result, queued.result]);
  return { stopped: results[0], next: results[1], ...trace.stop() };
}

/**
 * Runs `codes` one after another, each waiting for the previous result as an
 * agent does; `ms` is the wall time of the whole series on the page clock.
 * A run that takes longer than `timeoutMs` fails the series. With
 * `afterPaint`, each waits for the previous result to be painted too, as a
 * person reads a result before pressing Run again: otherwise the next run
 * is typed and submitted within the task that put the result in the DOM,
 * before its frame.
 */
export async function runSeries({ codes, timeoutMs, afterPaint = false }) {
  const results = [];
  const started = performance.now();
  for (const code of codes) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`run timed out: ${code.slice(0, 80)}`)), timeoutMs);
    });
    results.push(await Promise.race([window.__bench.run(code), timeout]));
    clearTimeout(timer);
    // The frame after the result and the task after it, as the paint is noted (see installSandpitDriver).
    if (afterPaint) await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)));
  }
  const ms = performance.now() - started;
  // Outside the time measured: reports on the runs that come after their results.
  await window.__bench.reported?.();
  return { ms, results };
}

/**
 * Sandpit, once ready (figure 4's typing row): puts `code` in the editor
 * through CodeMirror's `EditorView` (from `editorModule`, EDITOR_MODULE in
 * src/names.rs), the cursor at the end of line `line`, and the keyboard in
 * the editor; then notes, for every key pressed, when it was pressed
 * (`keyAt`, the event's own time stamp: waiting in the input queue counts)
 * and when the frame after the editor's change to the page was painted
 * (`paintedAt`), in `window.__benchTyping`.
 */
export async function typeIntoLongFile({ editorModule, code, line }) {
  const { EditorView } = await import(new URL(editorModule, document.baseURI).href);
  const content = /** @type {HTMLElement} */ (document.querySelector('[data-testid="code"]'));
  const view = EditorView.findFromDOM(content);
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
  view.dispatch({ selection: { anchor: view.state.doc.line(line).to }, scrollIntoView: true });
  view.focus();
  const typed = (window.__benchTyping = []);
  let keyAt = null;
  addEventListener("keydown", (event) => (keyAt = event.timeStamp), { capture: true });
  new MutationObserver(() => {
    if (keyAt === null) return;
    const pressed = keyAt;
    keyAt = null;
    requestAnimationFrame(() => setTimeout(() => typed.push({ keyAt: pressed, paintedAt: performance.now() }), 0));
  }).observe(content, { subtree: true, childList: true, characterData: true });
}

/**
 * Starts noting the time of every animation frame in `window.__benchFrames`
 * (figure 4's scroll row), until `stopFrameLog`.
 */
export function startFrameLog() {
  const frames = (window.__benchFrames = []);
  const log = (at) => {
    if (window.__benchFrames !== frames) return;
    frames.push(at);
    requestAnimationFrame(log);
  };
  requestAnimationFrame(log);
}

/** Stops `startFrameLog`; resolves to the frames' times (page clock). */
export function stopFrameLog() {
  const frames = window.__benchFrames;
  window.__benchFrames = null;
  return frames;
}
