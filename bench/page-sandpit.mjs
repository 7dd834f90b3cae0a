// @ts-check
// Functions that run inside Sandpit's benchmarked page (Playwright
// serialises them, so each must be self-contained; see page-scripts.mjs for
// the interface, `window.__bench`, that every page ends up with): what the
// page is watched for, a run submitted as the page opens, and the driver
// that runs code through the app's UI.

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
 * Sandpit, before its scripts run: submits `code` through the field for it
 * the moment one exists (as an agent that opens the page and runs something
 * at once), and records on the page clock when Python became ready and when
 * that first run finished. Runs restored from an earlier visit are already
 * on the page then; the first run-entry added after pressing Run is ours.
 * That is the plain text field that stands in for the editor until it has
 * loaded, or the editor, CodeMirror, loaded from `editorModule`
 * (EDITOR_MODULE in src/names.rs): the code goes in through its `EditorView`.
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
    const field = /** @type {HTMLTextAreaElement | null} */ (document.querySelector('[data-testid="code-fallback"]'));
    const button = /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="run"]'));
    if (!submitted && (editor || field) && button) {
      submitted = true;
      if (editor) {
        import(new URL(editorModule, document.baseURI).href).then(({ EditorView }) => {
          const view = EditorView.findFromDOM(editor);
          view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
          button.click();
        });
      } else if (field) {
        // The plain field that stands in until the editor has loaded, which
        // loads once Python has started (or when the field is focused: not here).
        field.value = code;
        field.dispatchEvent(new Event("input", { bubbles: true }));
        button.click();
      }
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
