// @ts-check
// The worker's jobs: `init` once, then runs and queries from the host, one
// at a time, each answered on the host's port; and what the host must hear
// when the interpreter dies under them.
import { HostCalls } from "./host-calls.mjs";
import { lockDown } from "./lockdown.mjs";
import { MemoryCap } from "./memory-cap.mjs";
import { emitter, pythonMessage, tagOf } from "./messages.mjs";
import { Packages } from "./packages.mjs";
import { ON_A_PAGE, PageValve } from "./page-valve.mjs";

/**
 * @import { Answer, BlockedRequest, HostMessage, Query, RunRequest, WorkerConfig } from "../www/generated/protocol.js"
 * @import { PyodideAPI } from "pyodide"
 * @import { HostChannel } from "./host-channel.mjs"
 * @import { Runner } from "./runner-install.mjs"
 * @import { Started } from "./startup.mjs"
 */

/**
 * Pyodide as this worker drives it; its types leave out the hook for fatal
 * errors and the interpreter's wasm memory.
 *
 * @typedef {PyodideAPI & { _api: { on_fatal: (error: any) => void }, _module: { memory: WebAssembly.Memory } }} Pyodide
 */

/** Whether this browser can suspend a WebAssembly stack on a promise (JSPI), as Pyodide's `run_sync` needs. */
const SUSPENDABLE = "Suspending" in WebAssembly;

/**
 * Lets queued browser tasks (CSP violation reports) run before a result is
 * sent: `settle()` resolves when a message to itself comes back, as a task
 * queued after them. One channel serves every run.
 */
class Settler {
  #channel = new MessageChannel();
  /** @type {((value?: unknown) => void)[]} */
  #waiting = [];

  constructor() {
    this.#channel.port1.onmessage = () => /** @type {(value?: unknown) => void} */ (this.#waiting.shift())();
  }

  settle() {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#channel.port2.postMessage(null);
    });
  }
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

/** The jobs of one worker, and what it knows of the run in progress. */
export class MessageLoop {
  #host;
  /** @type {Promise<Started | null> | null} */
  #starting;
  /** Jobs arrive one at a time from the host, but chaining keeps them ordered regardless. */
  #chain = Promise.resolve();
  /** @type {{ pyodide: Pyodide, runner: Runner, packages: Packages } | null} */
  #python = null;
  /**
   * The word Pyodide reads interrupts from, when the page is cross-origin
   * isolated. A plain Int32Array: Pyodide polls it at every check for
   * signals, and an object with accessors there slows every `print`. A
   * SIGINT that Pyodide's poll wipes out is written again by the host; the
   * runner lets only the first reach the code.
   *
   * @type {Int32Array | null}
   */
  #interrupt = null;
  /** @type {PageValve | null} */
  #valve = null;
  #memory = new MemoryCap();
  /**
   * The run in progress, so a worker closed from Python can still say so.
   *
   * @type {number | null}
   */
  #currentRun = null;
  /** Set once the interpreter is gone; the host replaces this worker. */
  #crashed = false;
  /**
   * CSP violations seen during the current run.
   *
   * @type {BlockedRequest[]}
   */
  #blocked = [];
  #settler = new Settler();
  /** The run's calls to the embedding page's functions. */
  #hostCalls;

  /**
   * @param {HostChannel} host
   * @param {Promise<Started | null> | null} starting Python starting, as `startEarly` does
   */
  constructor(host, starting) {
    this.#host = host;
    this.#starting = starting;
    this.#hostCalls = new HostCalls(host, () => this.#currentRun);
  }

  /**
   * Queues `work` after the jobs before it, clearing first any interrupt meant for an earlier job.
   *
   * @param {() => Promise<void>} work
   */
  job(work) {
    this.#chain = this.#chain.then(() => {
      if (this.#interrupt) Atomics.store(this.#interrupt, 0, 0);
      return work();
    });
  }

  /** @param {HostMessage} message */
  onHostMessage(message) {
    const { kind, body } = tagOf(message);
    switch (kind) {
      case "run":
        this.job(() => this.#run(body.id, body.request));
        break;
      case "query":
        this.job(() => this.#answer(body.id, body.query));
        break;
      // The run in progress waits for it: not a job after it.
      case "host_reply":
        this.#hostCalls.reply(body);
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
  reportCrash(message) {
    this.#crashed = true;
    if (this.#currentRun !== null) {
      this.#host.post("run_failed", { id: this.#currentRun, message, memory: this.#memory.use() });
      this.#currentRun = null;
    } else {
      this.#host.post("fatal", { message });
    }
  }

  /**
   * An error nothing caught: an interrupt that surfaced outside the run
   * (code suspended in `time.sleep`, say) means the run cannot finish, so
   * the host hears it at once instead of at its grace period. Returns
   * whether the interpreter is gone: the host knows, and the error need not
   * also surface as an uncaught one.
   *
   * @param {any} error
   */
  uncaught(error) {
    if (!this.#crashed && error?.type === "KeyboardInterrupt" && this.#currentRun !== null) {
      this.reportCrash("the interrupt escaped the running code");
    }
    return this.#crashed;
  }

  /**
   * A request the CSP refused: the run's result lists it.
   *
   * @param {SecurityPolicyViolationEvent} violation
   */
  refused(violation) {
    if (violation.isTrusted && this.#currentRun !== null) {
      this.#blocked.push({ url: violation.blockedURI || "(inline)", directive: violation.effectiveDirective });
    }
  }

  /** @param {WorkerConfig} config */
  async init(config) {
    const host = this.#host;
    try {
      host.progressSoFar();
      const begun = await this.#starting;
      if (begun === null) throw new Error("the worker's script came without its Content-Security-Policy");
      const { started, snapshot, installed: runner, index } = begun;
      const pyodide = /** @type {Pyodide} */ (started);
      // Pyodide's hook for fatal errors (wasm traps, aborts, C stack exhaustion).
      pyodide._api.on_fatal = (error) => this.reportCrash(String(error?.message ?? error));
      this.#memory.install(pyodide._module.memory);
      if (config.interrupt_buffer) {
        this.#interrupt = new Int32Array(config.interrupt_buffer);
        pyodide.setInterruptBuffer(this.#interrupt);
        // Pyodide's sleep never looks at it; the runner's sleep does.
        runner.watch_signals(this.#interrupt);
      } else if (ON_A_PAGE) {
        this.#valve = new PageValve();
        // Pyodide reads and clears only `[0]` of what it is given.
        pyodide.setInterruptBuffer(/** @type {any} */ (this.#valve.buffer));
        runner.watch_signals(this.#valve.word);
      }
      // From `sys`, not `platform`: a restored start would import a module the snapshot does not hold.
      const python = pyodide.runPython("import sys; '.'.join(map(str, sys.version_info[:3]))");
      runner.connect_host((name, argumentsJson, form) => this.#hostCalls.call(name, argumentsJson, form));
      lockDown();
      this.#python = { pyodide, runner, packages: new Packages(pyodide, runner) };
      host.post("ready", { python, pyodide: pyodide.version, snapshot });
    } catch (error) {
      host.post("fatal", { message: `Python failed to start: ${/** @type {Error} */ (error)?.message ?? error}` });
    }
  }

  /**
   * @param {number} id
   * @param {RunRequest} request
   */
  async #run(id, request) {
    const host = this.#host;
    const emit = emitter((body) => host.post("stream", body), id, request.limits.output_bytes);
    this.#currentRun = id;
    this.#hostCalls.clear();
    this.#blocked = [];
    this.#memory.startRun(request.memory_limit_bytes);
    try {
      if (this.#python === null) throw new Error("Python has not started");
      const { runner, packages } = this.#python;
      const wanted = packages.wanted(request);
      let failures = {};
      // The run's timeout started when the host sent it; downloads stop it
      // until `started`. A run that loads nothing sends neither message.
      if (wanted.length > 0) {
        host.post("loading_packages", { id });
        const report = (/** @type {string[]} */ names, /** @type {number} */ loaded, /** @type {number} */ total) =>
          host.post("package_progress", { id, packages: names, loaded, total });
        failures = await packages.load(wanted, report, () => this.#blocked.length > 0);
        // Downloads the CSP refused are reported as tasks: let them arrive.
        await this.#settler.settle();
        host.post("started", { id });
      }
      // Without an interrupt buffer a stuck run is stopped by terminating this
      // worker, so output is sent line by line: nothing printed is lost.
      // The runner returns its result as JSON text: one conversion, no PyProxy
      // to leak. Code that awaits at top level gets a coroutine to await instead.
      this.#valve?.arm(request.timeout_ms);
      const args = /** @type {const} */ ([JSON.stringify(request), emit, this.#interrupt === null, JSON.stringify(failures)]);
      // A run that may call the page's functions is entered so that its
      // stack can be suspended (JSPI), for calls from code that does not
      // await; entering so costs a little, which other runs do not pay.
      const outcome =
        request.host_functions?.length && SUSPENDABLE ? await runner.run.callPromising(...args) : runner.run(...args);
      const resultJson = await finished(outcome).finally(() => this.#valve?.disarm());
      // The host's timer was due first: it stops the run its own way (a new
      // interpreter, the session replayed), and this one says nothing more.
      if (this.#valve?.opened) return;
      await this.#settler.settle();
      const result = JSON.parse(resultJson);
      result.blocked = this.#blocked;
      result.memory = this.#memory.use();
      host.post("done", { id, result });
    } catch (error) {
      // Reached only when the interpreter itself fails; the runner reports user errors.
      if (!this.#crashed) {
        host.post("run_failed", { id, message: String(/** @type {Error} */ (error)?.message ?? error), memory: this.#memory.use() });
      }
    } finally {
      this.#currentRun = null;
      this.#hostCalls.clear();
    }
  }

  /**
   * Answers a query (see `Query` in src/protocol/query.rs); it changes no session.
   *
   * @param {number} id
   * @param {Query} query
   */
  async #answer(id, query) {
    try {
      if (this.#python === null) throw new Error("Python has not started");
      const { runner } = this.#python;
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
      this.#host.post("answer", { id, answer: found, error: null });
    } catch (error) {
      this.#host.post("answer", { id, answer: null, error: pythonMessage(error) });
    }
  }
}
