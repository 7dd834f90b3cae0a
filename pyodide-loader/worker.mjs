// @ts-check
// Sandpit's Python worker: a module worker (Pyodide 314 refuses classic
// workers) that loads Pyodide once, installs the runner, locks itself down,
// then runs one job at a time.
//
// Message shapes are defined in Rust (src/protocol.rs). This file builds
// them by hand, type-checked against the declarations generated from those
// types (www/generated/protocol.d.ts), and the browser tests validate every
// message it sends against the JSON Schema generated from them too. Every
// message is an object with one field, named for its kind: `{ done: { id, result } }`.
//
// What Python may reach is decided here and by this script's own CSP (see
// SECURITY.md): after start-up the worker's storage APIs, its postMessage and
// its ways to start more workers are removed, and the host is reached only
// through a MessagePort that lives in this module's scope.
//
// Python starts loading as this module runs, not at `init`: the page's main
// thread, busy starting the app, forwarded `init` 50-150 ms after this module
// had run. Starting Python runs none of the user's code: code arrives only
// over the port that `init` brings, which the page sends once it has checked
// this worker's CSP (see `startEarly`).
//
// Where no module worker can start (a page with an opaque origin), this script
// runs on the own thread of a frame's page instead (www/thread-worker.js,
// THREAD_PAGE): the same protocol, the page's thread shared with the code.
// There a run that reaches its timeout is given up (see `clockValve`).
//
// Start-up restores Python from a snapshot when one is stored (see
// snapshot.mjs), else starts it from scratch. The snapshot is made by a
// worker started for nothing else (`make_snapshot` in its config): it never
// takes a run, so no user code ever touches what later starts restore.
import { INTERRUPT_SIGNAL, NUDGE_SIGNAL, SNAPSHOT_MAKER_NAME } from "../www/generated/names.js";
import { deleteSnapshot, openSnapshot, SnapshotRejected, storeSnapshot } from "./snapshot.mjs";

/**
 * @import { BodyOf, KindOf, HostMessage, RunRequest, Query, Answer, BlockedRequest, WorkerConfig, WorkerMessage, LoadProgress, SnapshotUse, MemoryUse } from "../www/generated/protocol.js"
 * @import { PyodideAPI } from "pyodide"
 */

/**
 * Pyodide as this worker drives it; its types leave out the hook for fatal
 * errors and the interpreter's wasm memory.
 *
 * @typedef {PyodideAPI & { _api: { on_fatal: (error: any) => void }, _module: { memory: WebAssembly.Memory } }} Pyodide
 */

/**
 * The runner module (runner.py), as a Python proxy: its functions called from here.
 *
 * @typedef {{
 *   configure(indexJson: string, interruptSignal: number, nudgeSignal: number): void,
 *   watch_signals(word: Int32Array | Map<number, number>): void,
 *   run(requestJson: string, emit: (stream: string, text: string) => void, eager: boolean, failuresJson: string): string | PromiseLike<string> & { destroy(): void },
 *   read_file(session: string, path: string): string,
 *   check(code: string): string,
 *   complete(session: string, code: string, cursor: number): string,
 * }} Runner
 */

/**
 * What the runner needs to explain a failed import (see `packageIndex`).
 *
 * @typedef {{ imports: Record<string, string>, bundled: string[] }} PackageIndex
 */

/**
 * The bundle's pyodide/manifest.json (scripts/vendor-pyodide.mjs).
 *
 * @typedef {{ fetched: Record<string, number>, bundled: string[], snapshot_key: string }} Manifest
 */

/** Whether this script runs on a page's thread (THREAD_PAGE) rather than in a worker. */
const ON_A_PAGE = "document" in self;

/**
 * On a page, how long after its timeout a run that has not paused is
 * stopped from inside: the page's own timer (the host's) is due first, and
 * decides what the run came to once the thread is free again.
 */
const PAGE_TIMEOUT_MARGIN_MS = 250;

/** How often, on a page, a run past its timeout is interrupted again. */
const PAGE_INTERRUPT_REPEAT_MS = 100;

/** Minimum time between two progress messages, so a fast download does not flood the host. */
const PROGRESS_INTERVAL_MS = 50;

/** Name under which runner.py is installed, so its frames can be recognised. */
const RUNNER_MODULE = "_sandpit_runner";

/** Pyodide's files and the runner, where the bundle puts them beside this script. */
const PYODIDE_URL = new URL("../pyodide/", import.meta.url).href;
const RUNNER_URL = new URL("runner.py", import.meta.url).href;

/**
 * Globals Python must not have, each removed wherever it is defined on the
 * prototype chain so no walk up the chain finds it again:
 * the origin's storage (the app's IndexedDB, Cache Storage, OPFS), every
 * channel to the page except our port, and every way to start new code with
 * fresh globals.
 *
 * @type {[() => object, string[]][]}
 */
const LOCKED_DOWN = [
  [() => self, ["indexedDB", "caches", "postMessage", "onmessage", "onmessageerror"]],
  [() => self, ["BroadcastChannel", "Worker", "SharedWorker", "importScripts"]],
  [() => self.navigator, ["storage", "serviceWorker", "locks"]],
];

/**
 * The channel to the host; null until `init`. Never stored where Python can reach it.
 *
 * @type {MessagePort | null}
 */
let port = null;
/** @type {Pyodide} */
let pyodide;
/** @type {Runner} */
let runner;
/**
 * The word Pyodide reads interrupts from, when the page is cross-origin
 * isolated. A plain Int32Array: Pyodide polls it at every check for signals
 * (two per `print`), and an object with accessors there made a loop of
 * prints about a quarter slower. A SIGINT that Pyodide's poll wipes out is
 * written again by the host; the runner lets only the first reach the code.
 *
 * @type {Int32Array | null}
 */
let interrupt = null;
/**
 * The run in progress, so a worker closed from Python can still say so.
 *
 * @type {number | null}
 */
let currentRun = null;
/** Set once the interpreter is gone; the host replaces this worker. */
let crashed = false;
/**
 * CSP violations seen during the current run.
 *
 * @type {BlockedRequest[]}
 */
let blocked = [];
/** Jobs arrive one at a time from the host, but chaining keeps them ordered regardless. */
let chain = Promise.resolve();
/**
 * The interpreter's memory (Pyodide's wasm heap, where every Python object
 * lives), once Python has started; see `limitMemory`.
 *
 * @type {WebAssembly.Memory | null}
 */
let heap = null;
/** How large the heap may grow during the current run, in bytes (the host sends it with each run). */
let memoryLimit = Infinity;
/** Whether the current run asked the heap to grow past `memoryLimit`. */
let memoryLimitReached = false;

/**
 * Sends the host a message of kind `kind` (see WorkerMessage in src/protocol.rs).
 *
 * @template {KindOf<WorkerMessage>} K
 * @param {K} kind
 * @param {BodyOf<WorkerMessage, K>} body
 */
const post = (kind, body) => /** @type {MessagePort} */ (port).postMessage({ [kind]: body });

const fetches = startFetches();

/**
 * The latest start-up progress, kept until `init` brings the port.
 *
 * @type {LoadProgress | null}
 */
let progressSoFar = null;
/** @param {LoadProgress} body */
const progress = (body) => {
  progressSoFar = body;
  if (port !== null) post("progress", body);
};
/** Python starting (see `startEarly`); null for the snapshot maker. */
const starting = self.name === SNAPSHOT_MAKER_NAME ? null : startEarly();
// Its failure is reported by `init`, not as unhandled meanwhile.
starting?.catch(() => {});

// The first (and only) message on the worker itself: `init`, carrying the port.
// On a page, only from the page that framed it.
self.onmessage = (event) => {
  if (event.source !== null && event.source !== Reflect.get(self, "parent")) return;
  const message = event.data?.init;
  if (message === undefined || port !== null || !event.ports[0]) {
    console.warn("sandpit worker: ignored a message that is not the first init");
    return;
  }
  port = event.ports[0];
  if (message.config?.make_snapshot) {
    // This worker only makes the snapshot: it listens to nothing from the host.
    chain = chain.then(makeSnapshot);
    return;
  }
  port.onmessage = (portEvent) => onHostMessage(portEvent.data);
  chain = chain.then(() => init(message.config));
};

/**
 * Queues `work` after the jobs before it, clearing first any interrupt meant for an earlier job.
 *
 * @param {() => Promise<void>} work
 */
function job(work) {
  chain = chain.then(() => {
    if (interrupt) Atomics.store(interrupt, 0, 0);
    return work();
  });
}

/**
 * The one field of a message (see `post`): its kind and what it carries.
 *
 * @param {unknown} message
 * @returns {{ kind: string | undefined, body: any }}
 */
function tagOf(message) {
  const [kind, body] = Object.entries(message ?? {})[0] ?? [];
  return { kind, body };
}

/** @param {HostMessage} message */
function onHostMessage(message) {
  const { kind, body } = tagOf(message);
  switch (kind) {
    case "run":
      job(() => run(body.id, body.request));
      break;
    case "query":
      job(() => answer(body.id, body.query));
      break;
    default:
      console.warn("sandpit worker: ignored a message outside the protocol", kind);
  }
}

/**
 * Tells the host the interpreter is gone: a fatal error leaves the running
 * coroutine unsettled forever, so without this the host would only notice
 * at the run's timeout.
 *
 * @param {string} message
 */
function reportCrash(message) {
  crashed = true;
  if (currentRun !== null) {
    post("run_failed", { id: currentRun, message, memory: memoryUse() });
    currentRun = null;
  } else {
    post("fatal", { message });
  }
}

// After a crash Pyodide rethrows; the host already knows, so the error must
// not also surface on the page as an uncaught one. An interrupt can also
// surface outside the run (code suspended in `time.sleep`, say): the run
// cannot finish then, so say so at once instead of leaving it to the host's
// grace period.
for (const type of ["error", "unhandledrejection"]) {
  self.addEventListener(type, (event) => {
    const error = /** @type {ErrorEvent} */ (event).error ?? /** @type {PromiseRejectionEvent} */ (event).reason;
    if (!crashed && error?.type === "KeyboardInterrupt" && currentRun !== null) {
      reportCrash("the interrupt escaped the running code");
    }
    if (crashed) event.preventDefault();
  });
}

// The browser reports what the CSP refused; the run's result lists it.
self.addEventListener("securitypolicyviolation", (event) => {
  const violation = /** @type {SecurityPolicyViolationEvent} */ (event);
  if (violation.isTrusted && currentRun !== null) {
    blocked.push({ url: violation.blockedURI || "(inline)", directive: violation.effectiveDirective });
  }
});

// Code that closes the worker (`js.close()`) would otherwise leave the host
// waiting for a run that can never finish.
const realClose = self.close.bind(self);
self.close = () => {
  reportCrash("the worker was closed by the code");
  realClose();
};

/**
 * Caps how far the interpreter's memory grows: Emscripten grows it through
 * `WebAssembly.Memory.prototype.grow` when malloc runs out, and when that
 * throws, malloc fails and Python raises `MemoryError` where the code
 * allocated. The wasm memory's own maximum is fixed when Pyodide
 * instantiates it (4 GiB), so the cap is this check instead, set per run
 * (`memoryLimit`). It is defined once, neither writable nor configurable, so
 * code cannot remove it; the original `grow` stays in this closure. Other
 * memories (code may make its own) are left alone: the limit is the
 * interpreter's.
 *
 * @param {WebAssembly.Memory} memory
 */
function limitMemory(memory) {
  heap = memory;
  const grow = WebAssembly.Memory.prototype.grow;
  Object.defineProperty(WebAssembly.Memory.prototype, "grow", {
    value: /** @this {WebAssembly.Memory} @param {number} pages */ function (pages) {
      if (this === heap && this.buffer.byteLength + pages * 65536 > memoryLimit) {
        memoryLimitReached = true;
        throw new RangeError("the session's memory limit");
      }
      return grow.call(this, pages);
    },
    writable: false,
    configurable: false,
  });
}

/**
 * The interpreter's memory as the current run leaves it, or null before Python has started.
 *
 * @returns {MemoryUse | null}
 */
function memoryUse() {
  if (heap === null) return null;
  const limit = Number.isFinite(memoryLimit) ? memoryLimit : heap.buffer.byteLength;
  return { peak_bytes: heap.buffer.byteLength, limit_bytes: limit, limit_reached: memoryLimitReached };
}

/** Removes every name in LOCKED_DOWN; throws if one survives, so the worker never runs code unlocked. */
function lockDown() {
  for (const [target, names] of LOCKED_DOWN) {
    const root = target();
    for (const name of names) {
      for (let object = root; object; object = Object.getPrototypeOf(object)) {
        if (Object.prototype.hasOwnProperty.call(object, name)) Reflect.deleteProperty(object, name);
      }
      if (root && name in root) throw new Error(`could not remove ${name} from the worker`);
    }
  }
}

/**
 * Counts the bytes of every response fetched while `body` runs, by wrapping
 * `fetch` (Pyodide calls the global at request time), and reports
 * `(loaded, seen)` at most every PROGRESS_INTERVAL_MS and once at the end;
 * `seen` is the sum of the Content-Length of the responses so far.
 *
 * @template T
 * @param {(loaded: number, seen: number) => void} report
 * @param {() => Promise<T>} body
 */
async function countingDownloads(report, body) {
  const realFetch = self.fetch;
  let loaded = 0;
  let seen = 0;
  let lastSent = 0;
  /** @param {boolean} force */
  const tick = (force) => {
    const now = performance.now();
    if (!force && now - lastSent < PROGRESS_INTERVAL_MS) return;
    lastSent = now;
    report(loaded, seen);
  };
  self.fetch = async (input, init) => {
    const response = await realFetch(input, init);
    if (!response.body) return response;
    seen += Number(response.headers.get("content-length")) || 0;
    const counted = response.body.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          loaded += chunk.byteLength;
          tick(false);
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  tick(true);
  try {
    return await body();
  } finally {
    self.fetch = realFetch;
    tick(true);
  }
}

/**
 * What every start fetches besides Pyodide's own files, before Python starts
 * rather than after: Pyodide's loader, the manifest (sizes, snapshot key),
 * the package index and the runner's source. None of it runs Python, so it
 * may happen before the page has checked this worker's CSP; a worker that
 * fails that check is terminated without ever getting `init`.
 */
function startFetches() {
  const fetchJson = async (/** @type {URL} */ url) => (await fetch(url)).json();
  /** @type {Promise<Manifest>} */
  const manifest = fetchJson(new URL("manifest.json", PYODIDE_URL));
  // Fetched now, not once the manifest is in: a fetch made while Python
  // loads would be counted as its download (`countingDownloads`).
  const lock = fetchJson(new URL("pyodide-lock.json", PYODIDE_URL));
  const index = Promise.all([lock, manifest]).then(([found, about]) => packageIndex(found, about));
  const source = fetch(RUNNER_URL).then((response) => response.text());
  /** @type {Promise<typeof import("pyodide")>} */
  const loader = import(new URL("pyodide.mjs", PYODIDE_URL).href);
  // Their failures are reported where they are awaited, not as unhandled meanwhile.
  for (const pending of [manifest, lock, index, source, loader]) pending.catch(() => {});
  // Pyodide imports its 1.2 MB of generated JS only once loadPyodide runs;
  // importing it now overlaps that with waiting for `init` and the snapshot
  // (the module is loaded once, so loadPyodide finds it). After the loader:
  // compiling it holds this thread, and the loader, the lookup and `init`
  // came 40-100 ms later behind it.
  loader.then(() => import(new URL("pyodide.asm.mjs", PYODIDE_URL).href)).catch(() => {});
  return { manifest, index, source, loader };
}

/**
 * Installs the runner into a started Pyodide and gives it the package index.
 * Also after a restore: the module is in the snapshot's memory already, but
 * its file is not in the file system (which a snapshot does not hold), and
 * tracebacks read it from there. The runner gets the signals the host
 * writes into the interrupt buffer with the index.
 *
 * @param {PyodideAPI} started
 * @returns {Promise<{ installed: Runner, index: PackageIndex }>}
 */
async function installRunner(started) {
  const sitePackages = started.runPython("import site; site.getsitepackages()[0]");
  started.FS.writeFile(`${sitePackages}/${RUNNER_MODULE}.py`, await fetches.source);
  /** @type {Runner} */
  const installed = started.pyimport(RUNNER_MODULE);
  const index = await fetches.index;
  installed.configure(JSON.stringify(index), INTERRUPT_SIGNAL, NUDGE_SIGNAL);
  return { installed, index };
}

/**
 * Starts Pyodide from the stored snapshot when there is a good one, else
 * from scratch. Returns the interpreter and how the snapshot was used
 * (`used`, `absent`, or `rejected` with why), which `ready` reports. Any
 * failure of the snapshot path ends in a start from scratch.
 *
 * @param {typeof import("pyodide").loadPyodide} loadPyodide
 * @param {Promise<{ absent: true } | { rejected: string } | { verified: Promise<ArrayBuffer> }>} stored
 * @param {(loaded: number) => void} startup
 * @returns {Promise<{ started: PyodideAPI, snapshot: SnapshotUse }>}
 */
async function startPython(loadPyodide, stored, startup) {
  const indexURL = PYODIDE_URL;
  const found = await stored;
  if ("verified" in found) {
    try {
      const restore = () => loadPyodide({ indexURL, _loadSnapshot: found.verified });
      const restored = await countingDownloads(startup, restore);
      return { started: restored, snapshot: "used" };
    } catch (error) {
      await deleteSnapshot(self.caches, indexURL).catch(() => {});
      const reason =
        error instanceof SnapshotRejected
          ? error.message
          : `Pyodide could not restore it: ${/** @type {Error} */ (error)?.message ?? error}`;
      const started = await countingDownloads(startup, () => loadPyodide({ indexURL }));
      return { started, snapshot: { rejected: { reason } } };
    }
  }
  const started = await countingDownloads(startup, () => loadPyodide({ indexURL }));
  /** @type {SnapshotUse} */
  const snapshot = "rejected" in found ? { rejected: { reason: found.rejected } } : "absent";
  return { started, snapshot };
}

/**
 * Starts Python, with the runner installed; resolves to what `startPython`
 * does, or to null when this worker's script came without its CSP. The page
 * never sends `init` to such a worker (it waits for the service worker to
 * add the CSP, then starts another), so it would download Pyodide for
 * nothing; this check saves that, while the guard is the page's.
 *
 * @returns {Promise<{ started: PyodideAPI, snapshot: SnapshotUse, installed: Runner, index: PackageIndex } | null>}
 */
async function startEarly() {
  // Read before lockDown removes Cache Storage, beside the check below.
  const cacheStorage = storage();
  const stored = (
    cacheStorage === null
      ? Promise.resolve(/** @type {{ absent: true }} */ ({ absent: true }))
      : openSnapshot(cacheStorage, PYODIDE_URL, fetches.manifest.then((manifest) => manifest.snapshot_key))
  ).catch((error) => ({ rejected: `it could not be read: ${error?.message ?? error}` }));
  // On a page (THREAD_PAGE) the page's own policy is the worker's, whatever this script was served with.
  if (!ON_A_PAGE) {
    const own = await fetch(import.meta.url, { cache: "no-store" });
    if (!(own.ok && own.headers.has("Content-Security-Policy"))) return null;
  }
  const { loadPyodide } = await fetches.loader;
  // The manifest knows the sizes up front, so the bar never runs backwards.
  // Python does not wait for it: progress is reported once it is in.
  const sizeOf = (/** @type {Manifest} */ manifest) =>
    Object.values(manifest.fetched).reduce((sum, size) => sum + size, 0);
  /** @type {number | null} */
  let total = null;
  fetches.manifest.then((manifest) => (total = sizeOf(manifest)), () => {});
  /** @param {number} loaded */
  const startup = (loaded) => {
    if (total === null) return;
    // Once every byte is in, what remains is compiling and starting the interpreter.
    const stage = loaded >= total ? "start" : "download";
    progress({ stage, loaded, total });
  };
  const { started, snapshot } = await startPython(loadPyodide, stored, startup);
  total = sizeOf(await fetches.manifest);
  progress({ stage: "runner", loaded: total, total });
  const { installed, index } = await installRunner(started);
  return { started, snapshot, installed, index };
}

/** @param {WorkerConfig} config */
async function init(config) {
  try {
    if (progressSoFar !== null) post("progress", progressSoFar);
    const begun = await starting;
    if (begun === null) throw new Error("the worker's script came without its Content-Security-Policy");
    const { started, snapshot, installed, index } = begun;
    pyodide = /** @type {Pyodide} */ (started);
    runner = installed;
    packageOfImport = new Map(Object.entries(index.imports));
    // Pyodide's hook for fatal errors (wasm traps, aborts, C stack exhaustion).
    pyodide._api.on_fatal = (error) => reportCrash(String(error?.message ?? error));
    limitMemory(pyodide._module.memory);
    if (config.interrupt_buffer) {
      interrupt = new Int32Array(config.interrupt_buffer);
      pyodide.setInterruptBuffer(interrupt);
      // Pyodide's sleep never looks at it; the runner's sleep does.
      runner.watch_signals(interrupt);
    } else if (ON_A_PAGE) {
      const { buffer, word } = clockValve();
      // Pyodide reads and clears only `[0]` of what it is given.
      pyodide.setInterruptBuffer(/** @type {any} */ (buffer));
      runner.watch_signals(word);
    }
    // From `sys`, not `platform`: importing a module the snapshot does not
    // hold costs a restored start a few hundred milliseconds.
    const python = pyodide.runPython("import sys; '.'.join(map(str, sys.version_info[:3]))");
    lockDown();
    post("ready", { python, pyodide: pyodide.version, snapshot });
  } catch (error) {
    post("fatal", { message: `Python failed to start: ${/** @type {Error} */ (error)?.message ?? error}` });
  }
}

/**
 * When, on a page, the running code is stopped from inside; Infinity while
 * nothing runs or the run has no timeout.
 */
let valveAt = Infinity;
/** Whether the valve stopped the current run: its result is then given up. */
let valveOpened = false;

/**
 * The interrupt buffer of Python on a page's thread: no other thread can
 * write one while the code runs, so reading it asks the clock instead, and
 * finds SIGINT once the run is PAGE_TIMEOUT_MARGIN_MS past its timeout.
 * `buffer` for Pyodide (it reads `[0]`), `word` for the runner's sleep (a
 * Map to Python, whose item 0 is read the same way).
 */
function clockValve() {
  const signal = () => {
    const now = performance.now();
    if (now < valveAt) return 0;
    valveOpened = true;
    // Again only after a while, as the host repeats an interrupt: code that
    // catches one still meets the next, and the runner's own work meanwhile is left alone.
    valveAt = now + PAGE_INTERRUPT_REPEAT_MS;
    return INTERRUPT_SIGNAL;
  };
  const buffer = {
    get 0() {
      return signal();
    },
    set 0(_cleared) {},
  };
  const word = new (class extends Map {
    /** @param {unknown} _key */
    get(_key) {
      return signal();
    }
    /** @param {unknown} _key @param {unknown} _value */
    set(_key, _value) {
      return this;
    }
  })();
  return { buffer, word };
}

/** Cache Storage, or null where the page's origin has none (an opaque one throws). */
function storage() {
  try {
    return self.caches ?? null;
  } catch {
    return null;
  }
}

/**
 * The snapshot maker: starts Python from scratch with Pyodide's snapshot
 * support, installs the runner as every start does, stores the memory and
 * says so. It runs no user code (it takes no runs at all), so the snapshot
 * holds nothing any session did; the host terminates it afterwards, so the
 * globals wrapper that snapshot support puts between Python and `js` never
 * meets user code either.
 */
async function makeSnapshot() {
  try {
    const [manifest, { loadPyodide }] = await Promise.all([fetches.manifest, fetches.loader]);
    const made = await loadPyodide({ indexURL: PYODIDE_URL, _makeSnapshot: true });
    await installRunner(made);
    const bytes = /** @type {Uint8Array<ArrayBuffer>} */ (made.makeMemorySnapshot());
    await storeSnapshot(self.caches, PYODIDE_URL, manifest.snapshot_key, bytes);
    post("snapshot_stored", { bytes: bytes.byteLength });
  } catch (error) {
    post("fatal", { message: `could not make a start-up snapshot: ${/** @type {Error} */ (error)?.message ?? error}` });
  }
}

/**
 * Lets queued browser tasks (CSP violation reports) run before the result is
 * sent: resolves when a message to itself comes back, as a task queued after
 * them. One channel serves every run; opening one per run cost each about
 * 0.05 ms more.
 */
const settleChannel = new MessageChannel();
/** @type {((value?: unknown) => void)[]} */
const settling = [];
settleChannel.port1.onmessage = () => /** @type {(value?: unknown) => void} */ (settling.shift())();
const settle = () =>
  new Promise((resolve) => {
    settling.push(resolve);
    settleChannel.port2.postMessage(null);
  });

/**
 * The runner's output callback, capped on this side too: Python can find
 * it in the runner's frame and call it directly, and must not flood the host.
 *
 * @param {number} id
 * @param {number} limitBytes
 * @returns {(stream: unknown, text: unknown) => void}
 */
function emitter(id, limitBytes) {
  let room = limitBytes;
  return (stream, text) => {
    if ((stream !== "stdout" && stream !== "stderr") || typeof text !== "string") return;
    if (room <= 0) return;
    const kept = text.length > room ? text.slice(0, room) : text;
    room -= kept.length;
    post("stream", { id, chunk: { stream, text: kept } });
  };
}

/**
 * What the runner needs to explain a failed import: which import names
 * belong to which package, and which packages ship with the app.
 *
 * @param {{ packages: Record<string, { name: string, imports?: string[] }> }} lock
 * @param {Manifest} manifest
 * @returns {PackageIndex}
 */
function packageIndex(lock, manifest) {
  /** @type {Record<string, string>} */
  const imports = {};
  for (const entry of Object.values(lock.packages)) {
    for (const name of entry.imports ?? []) imports[name] = entry.name;
  }
  return { imports, bundled: manifest.bundled };
}

/**
 * Import name -> Pyodide package, from its lockfile (set once Python has started).
 *
 * @type {Map<string, string>}
 */
let packageOfImport = new Map();

/**
 * Whether `code` may import a package that is not loaded yet. Pyodide's own
 * search parses the code in Python, a millisecond or more that most runs do
 * not need: they import nothing, or only the standard library and packages
 * already loaded. This look at the text errs towards "may": a name it cannot
 * rule out, or an import continued on the next line, sends the code to
 * Pyodide's search.
 *
 * @param {string} code
 */
function mayNeedPackages(code) {
  if (!/\bimport\b/.test(code)) return false;
  if (/\bimport\b[^\n]*\\\r?\n/.test(code)) return true;
  const names = [];
  for (const [, module] of code.matchAll(/\bfrom\s+([A-Za-z_]\w*)/g)) names.push(module);
  for (const [, list] of code.matchAll(/\bimport\s+([^;#\n]+)/g)) {
    for (const item of list.split(",")) names.push(item.trim().replace(/^\(/, "").split(/[.\s]/)[0]);
  }
  return names.some((name) => {
    const found = packageOfImport.get(name);
    return found !== undefined && !(found in pyodide.loadedPackages);
  });
}

/**
 * Loads the packages the code imports (when `fromImports`; mapped to package
 * names through the lockfile, submodules stripped) and those the request names, reporting
 * bytes as they arrive. Returns the packages that failed, with why: the
 * runner turns a later ImportError into the right hint.
 *
 * @param {number} id
 * @param {RunRequest} request
 * @param {boolean} fromImports
 */
async function loadPackages(id, request, fromImports) {
  const { packages = [] } = request;
  /** @type {Record<string, "blocked" | "network">} */
  const failures = {};
  /** @type {string[]} */
  const names = [];
  // Pyodide's messages say what it loads and what failed ("Failed to load a,
  // b" and "The following error occurred while loading a:"), including
  // wheels refused by their integrity hash.
  const listen = (/** @type {unknown} */ message) => {
    const text = String(message);
    const loading = text.match(/^Loading (.+)$/);
    for (const name of loading?.[1].split(", ") ?? []) {
      if (!names.includes(name)) names.push(name);
    }
    const failure =
      text.match(/^Failed to load (.+)$/) ?? text.match(/^The following error occurred while loading (.+):$/);
    for (const name of failure?.[1].split(", ") ?? []) {
      failures[name.toLowerCase()] = blocked.length > 0 ? "blocked" : "network";
    }
  };
  // A response without Content-Length still counts: the total is then what arrived.
  const report = (/** @type {number} */ loaded, /** @type {number} */ total) => {
    if (loaded > 0) {
      post("package_progress", { id, packages: names, loaded, total: Math.max(total, loaded) });
    }
  };
  await countingDownloads(report, async () => {
    const options = { messageCallback: listen, errorCallback: listen };
    if (fromImports) {
      try {
        await pyodide.loadPackagesFromImports(request.code, options);
      } catch {
        // Code that does not parse: the runner reports the SyntaxError.
      }
    }
    if (packages.length > 0) {
      await pyodide.loadPackage(packages, options);
    }
  });
  return failures;
}

/**
 * What `runner.run` gave: its result JSON, or the coroutine's once awaited (its proxy then freed).
 *
 * @param {string | PromiseLike<string> & { destroy(): void }} outcome
 */
async function finished(outcome) {
  if (typeof outcome === "string") return outcome;
  try {
    return await outcome;
  } finally {
    outcome.destroy();
  }
}

/**
 * @param {number} id
 * @param {RunRequest} request
 */
async function run(id, request) {
  const emit = emitter(id, request.limits.output_bytes);
  currentRun = id;
  blocked = [];
  if (request.memory_limit_bytes != null) memoryLimit = request.memory_limit_bytes;
  memoryLimitReached = false;
  valveOpened = false;
  try {
    const fromImports = mayNeedPackages(request.code);
    let failures = {};
    // The run's timeout started when the host sent it; downloads stop it
    // until `started`. A run that loads nothing sends neither message.
    if (fromImports || (request.packages ?? []).length > 0) {
      post("loading_packages", { id });
      failures = await loadPackages(id, request, fromImports);
      // Downloads the CSP refused are reported as tasks: let them arrive.
      await settle();
      post("started", { id });
    }
    // Without an interrupt buffer a stuck run is stopped by terminating this
    // worker, so output is sent line by line: nothing printed is lost.
    // The runner returns its result as JSON text: one conversion, no PyProxy
    // to leak. Code that awaits at top level gets a coroutine to await instead.
    if (ON_A_PAGE && request.timeout_ms !== null && request.timeout_ms !== undefined) {
      valveAt = performance.now() + request.timeout_ms + PAGE_TIMEOUT_MARGIN_MS;
    }
    const outcome = runner.run(JSON.stringify(request), emit, interrupt === null, JSON.stringify(failures));
    const resultJson = await finished(outcome).finally(() => (valveAt = Infinity));
    // The host's timer was due first: it stops the run its own way (a new
    // interpreter, the session replayed), and this one says nothing more.
    if (valveOpened) return;
    await settle();
    const result = JSON.parse(resultJson);
    result.blocked = blocked;
    result.memory = memoryUse();
    post("done", { id, result });
  } catch (error) {
    // Reached only when the interpreter itself fails; the runner reports user errors.
    if (!crashed) post("run_failed", { id, message: String(/** @type {Error} */ (error)?.message ?? error), memory: memoryUse() });
  } finally {
    currentRun = null;
  }
}

/**
 * Answers a query (see `Query` in src/protocol.rs); it changes no session.
 *
 * @param {number} id
 * @param {Query} query
 */
async function answer(id, query) {
  try {
    /** @type {Answer} */
    let found;
    const { kind, body } = tagOf(query);
    switch (kind) {
      case "read_file":
        found = { file: { content_base64: runner.read_file(body.session, body.path) } };
        break;
      case "check":
        found = { check: { report: JSON.parse(runner.check(body.code)) } };
        break;
      case "complete":
        found = { complete: { completions: JSON.parse(runner.complete(body.session, body.code, body.cursor)) } };
        break;
      default:
        throw new Error(`unknown query ${JSON.stringify(kind)}`);
    }
    post("answer", { id, answer: found, error: null });
  } catch (error) {
    post("answer", { id, answer: null, error: pythonMessage(error) });
  }
}

/**
 * What went wrong, for the caller: a Python exception as its last line
 * ("Type: message"), without the traceback through the runner.
 *
 * @param {unknown} error
 */
function pythonMessage(error) {
  const { message, type } = /** @type {{ message?: string, type?: string }} */ (error ?? {});
  if (type && message) return message.trimEnd().split("\n").at(-1) ?? message;
  return String(message ?? error);
}

