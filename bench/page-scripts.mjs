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
//
// Sandpit's own page gets its interface from page-sandpit.mjs; the raw page,
// the agent path's page, and what every page runs are here.

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
