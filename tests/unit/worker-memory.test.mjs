// @ts-check
// The session's memory limit (pyodide-loader/memory-cap.mjs) on a real
// WebAssembly memory: growing past the limit throws, as malloc then fails.
// The check is installed once per process, as in the worker.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MemoryCap } from "../../pyodide-loader/memory-cap.mjs";

const PAGE = 65536;

const cap = new MemoryCap();
const heap = new WebAssembly.Memory({ initial: 1, maximum: 100 });

test("nothing is said before Python has started; then, without a limit, the limit is the heap", () => {
  assert.equal(cap.use(), null);
  cap.install(heap);
  assert.deepEqual(cap.use(), { peak_bytes: PAGE, limit_bytes: PAGE, limit_reached: false });
});

test("the heap grows up to the run's limit and no further; other memories are left alone", () => {
  cap.startRun(4 * PAGE);
  heap.grow(3);
  assert.deepEqual(cap.use(), { peak_bytes: 4 * PAGE, limit_bytes: 4 * PAGE, limit_reached: false });
  assert.throws(() => heap.grow(1), RangeError);
  assert.deepEqual(cap.use(), { peak_bytes: 4 * PAGE, limit_bytes: 4 * PAGE, limit_reached: true });
  const other = new WebAssembly.Memory({ initial: 1, maximum: 100 });
  other.grow(10);
  assert.equal(other.buffer.byteLength, 11 * PAGE);
});

test("a run without a limit keeps the last one, and starts unmarked", () => {
  cap.startRun(undefined);
  assert.equal(cap.use()?.limit_reached, false);
  assert.throws(() => heap.grow(1), RangeError);
  cap.startRun(5 * PAGE);
  heap.grow(1);
  assert.equal(heap.buffer.byteLength, 5 * PAGE);
});

test("the check cannot be taken out", () => {
  assert.throws(() => Object.defineProperty(WebAssembly.Memory.prototype, "grow", { value: () => 0 }), TypeError);
  assert.throws(() => {
    /** @type {any} */ (WebAssembly.Memory.prototype).grow = () => 0;
  }, TypeError);
  assert.throws(() => heap.grow(1), RangeError);
});
