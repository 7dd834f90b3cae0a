// @ts-check
// The valve that stops a run on a page's thread at its timeout
// (pyodide-loader/page-valve.mjs), read as Pyodide and the runner read it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { INTERRUPT_SIGNAL } from "../../www/generated/names.js";
import { PAGE_INTERRUPT_REPEAT_MS, PAGE_TIMEOUT_MARGIN_MS, PageValve } from "../../pyodide-loader/page-valve.mjs";

/** A clock the test moves by hand. */
function clock() {
  const time = { now: 1000 };
  return { time, now: () => time.now };
}

test("nothing is stopped before the timeout and its margin", () => {
  const { time, now } = clock();
  const valve = new PageValve(now);
  valve.arm(500);
  time.now += 500 + PAGE_TIMEOUT_MARGIN_MS - 1;
  assert.equal(valve.buffer[0], 0);
  assert.equal(valve.word.get(0), 0);
  assert.equal(valve.opened, false);
});

test("past it, SIGINT is read, then again only after the repeat interval", () => {
  const { time, now } = clock();
  const valve = new PageValve(now);
  valve.arm(500);
  time.now += 500 + PAGE_TIMEOUT_MARGIN_MS;
  assert.equal(valve.buffer[0], INTERRUPT_SIGNAL);
  assert.equal(valve.opened, true);
  assert.equal(valve.word.get(0), 0, "not again at once");
  time.now += PAGE_INTERRUPT_REPEAT_MS;
  assert.equal(valve.word.get(0), INTERRUPT_SIGNAL);
});

test("clearing the buffer, as Pyodide does, changes nothing", () => {
  const { time, now } = clock();
  const valve = new PageValve(now);
  valve.arm(0);
  time.now += PAGE_TIMEOUT_MARGIN_MS;
  valve.buffer[0] = 0;
  valve.word.set(0, 0);
  assert.equal(valve.buffer[0], INTERRUPT_SIGNAL);
});

test("a run without a timeout, or one that ended, is never stopped", () => {
  const { time, now } = clock();
  const valve = new PageValve(now);
  valve.arm(null);
  time.now += 1e9;
  assert.equal(valve.buffer[0], 0);
  valve.arm(10);
  valve.disarm();
  time.now += 1e9;
  assert.equal(valve.buffer[0], 0);
});

test("arming the next run forgets that the valve opened for the last", () => {
  const { time, now } = clock();
  const valve = new PageValve(now);
  valve.arm(0);
  time.now += PAGE_TIMEOUT_MARGIN_MS;
  assert.equal(valve.buffer[0], INTERRUPT_SIGNAL);
  valve.arm(1000);
  assert.equal(valve.opened, false);
});
