// @ts-check
// Interrupts stop the run they are meant for, every time. The test plays the
// host's part against a second real worker (pyodide-loader/worker.mjs with
// the real Pyodide) in the app's cross-origin isolated page, so it can write
// the interrupt at moments the app cannot be made to hit on cue: at any
// instant of a busy loop, and after a run has already finished.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { INTERRUPT_SIGNAL, NUDGE_SIGNAL, WORKER_PATH } from "../../www/generated/names.js";
import { useSandpit } from "./harness.mjs";

/** Interrupts in a row for the busy-loop test: Pyodide wipes out about one write in fifteen, which only the repeats recover. */
const LOOPS = 50;
/**
 * How long a stopped loop may take to report before the interrupt counts as
 * lost. Not a performance target: an honoured interrupt ends the run within
 * milliseconds, a lost one never does.
 */
const LOST_AFTER_MS = 10_000;
/** How often the host writes an interrupt again (INTERRUPT_REPEAT_MS in src/runtime/supervisor.rs). */
const REPEAT_MS = 100;
/** How often the host nudges a running run to stream its output (NUDGE_MS in src/runtime/supervisor.rs). */
const NUDGE_MS = 100;

/** Prints, then spins: its output, streamed at a nudge, says the loop has begun. */
const BUSY_LOOP = 'print("looping")\nwhile True:\n    pass';

/**
 * In the page: starts a worker the way the host does, with an interrupt
 * buffer of its own, and exposes it on `window.__host`: `run(id, code,
 * interruptAfterMs)` nudges the run every `nudgeMs` to stream its output,
 * writes SIGINT into the buffer that many ms after the run's first output
 * arrives (null: never), and again every `repeatMs` until the run answers,
 * as src/runtime/supervisor.rs decides; `interrupt()` writes it once, now.
 * Resolves once the worker is ready.
 */
async function startHost({ lostAfterMs, repeatMs, nudgeMs, request, signals, workerPath }) {
  const buffer = new SharedArrayBuffer(4);
  const word = new Int32Array(buffer);
  const interrupt = () => Atomics.store(word, 0, signals.interrupt);
  const nudge = () => Atomics.compareExchange(word, 0, 0, signals.nudge);
  const channel = new MessageChannel();
  const waiting = new Map();
  const streaming = new Map();
  const ready = new Promise((/** @type {(value?: unknown) => void} */ resolve, reject) => {
    // Each message is an object with one field, named for its kind.
    channel.port1.onmessage = ({ data }) => {
      const [[kind, body]] = Object.entries(data);
      if (kind === "ready") resolve();
      if (kind === "fatal") reject(new Error(body.message));
      if (kind === "stream") streaming.get(body.id)?.();
      if (kind === "done" || kind === "run_failed") waiting.get(body.id)?.({ kind, body });
    };
  });
  const worker = new Worker(new URL(workerPath, location.href), { type: "module" });
  const config = {
    interrupt_buffer: buffer,
    port: channel.port2,
    make_snapshot: false,
  };
  worker.postMessage({ init: { config } }, [channel.port2]);
  await ready;
  window.__host = {
    interrupt,
    run(id, code, interruptAfterMs) {
      const answered = new Promise((resolve, reject) => {
        waiting.set(id, resolve);
        setTimeout(() => reject(new Error(`run ${id} did not stop: its interrupt was lost`)), lostAfterMs);
      });
      let repeating = null;
      if (interruptAfterMs !== null) {
        streaming.set(id, () => {
          streaming.delete(id);
          setTimeout(() => {
            interrupt();
            repeating = setInterval(interrupt, repeatMs);
          }, interruptAfterMs);
        });
      }
      channel.port1.postMessage({ run: { id, request: { ...request, code } } });
      const nudging = setInterval(nudge, nudgeMs);
      return answered.then((message) => {
        clearInterval(nudging);
        clearInterval(repeating);
        return message.kind === "done" ? message.body.result : { status: message.kind };
      });
    },
    stop() {
      worker.terminate();
    },
  };
}

describe("interrupts", () => {
  let sandpit;
  /** Runs `code` as run `id` on the test's own worker; see `startHost`. */
  const run = (id, code, interruptAfterMs = null) =>
    sandpit.page.evaluate(([id, code, after]) => window.__host.run(id, code, after), [id, code, interruptAfterMs]);

  useSandpit(async (page) => {
    sandpit = page;
    // A run request exactly as the app sends it, so the worker gets nothing the protocol does not define.
    await sandpit.run("1 + 1");
    const request = await sandpit.page.evaluate(
      () => window.__sandpitMessages.find((m) => m.from === "host" && m.kind === "run").data.run.request,
    );
    // The signals and the worker as the host has them (src/names.rs).
    const signals = { interrupt: INTERRUPT_SIGNAL, nudge: NUDGE_SIGNAL };
    const host = {
      lostAfterMs: LOST_AFTER_MS,
      repeatMs: REPEAT_MS,
      nudgeMs: NUDGE_MS,
      request,
      signals,
      workerPath: WORKER_PATH,
    };
    await sandpit.page.evaluate(startHost, host);
  });

  test("an interrupt meant for a run that has finished does not hit the next one", async () => {
    assert.equal((await run(1002, "1 + 1")).status, "ok");
    await sandpit.page.evaluate(() => window.__host.interrupt());
    const next = await run(1003, "total = 0\nfor i in range(300_000):\n    total += i\ntotal");
    assert.equal(next.status, "ok", JSON.stringify(next.error));
    assert.equal(next.value.repr, String((300_000 * 299_999) / 2));
  });

  test(`every one of ${LOOPS} interrupts stops a busy loop, whenever it lands`, async () => {
    for (let i = 0; i < LOOPS; i++) {
      const id = 2000 + i;
      // Spread over 20 ms, so the interrupt lands at every point of Pyodide's polling.
      const stopped = await run(id, BUSY_LOOP, (i * 7) % 20);
      assert.equal(stopped.status, "cancelled", `loop ${i}: ${JSON.stringify(stopped.error)}`);
    }
    assert.equal((await run(3000, "40 + 2")).value.repr, "42", "the interpreter goes on");
  });

  test("only the first of the repeated interrupts reaches the code", async () => {
    // The code catches the interrupt and goes on for several repeats: none of them may cut it short.
    // The output that starts the interrupts is printed inside the `try`, so they all land there or after.
    const code =
      'import time\ntry:\n    print("looping")\n    while True:\n        pass\nexcept KeyboardInterrupt:\n    time.sleep(0.5)\n"caught once"';
    const caught = await run(4000, code, 0);
    assert.equal(caught.status, "ok", JSON.stringify(caught.error));
    assert.equal(caught.value.repr, "'caught once'");
    const stopped = await run(4001, BUSY_LOOP, 0);
    assert.equal(stopped.status, "cancelled", "the next run is stopped by its own first interrupt");
    assert.doesNotMatch(stopped.error.traceback, /sandpit_runner/, "the runner's handler is not in the traceback");
    await sandpit.page.evaluate(() => window.__host.stop());
  });
});
