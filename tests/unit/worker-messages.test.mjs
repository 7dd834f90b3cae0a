// @ts-check
// The worker's messages (pyodide-loader/messages.mjs): reading a tagged
// message, output capped on the worker's side, errors said for the caller.
import assert from "node:assert/strict";
import { test } from "node:test";

import { emitter, pythonMessage, tagOf } from "../../pyodide-loader/messages.mjs";

test("a message's one field is its kind and body", () => {
  assert.deepEqual(tagOf({ run: { id: 3 } }), { kind: "run", body: { id: 3 } });
  assert.deepEqual(tagOf(null), { kind: undefined, body: undefined });
  assert.deepEqual(tagOf({}), { kind: undefined, body: undefined });
});

test("output is cut at the run's limit, and only text on stdout or stderr is sent", () => {
  /** @type {any[]} */
  const sent = [];
  const emit = emitter((body) => sent.push(body), 7, 10);
  emit("stdout", "12345");
  emit("stdin", "ignored");
  emit("stderr", 42);
  emit("stderr", "6789abcdef");
  emit("stdout", "more");
  assert.deepEqual(sent, [
    { id: 7, chunk: { stream: "stdout", text: "12345" } },
    { id: 7, chunk: { stream: "stderr", text: "6789a" } },
  ]);
});

test("a Python exception is its last line; anything else its message", () => {
  const error = { type: "ValueError", message: "Traceback (most recent call last):\n  File ...\nValueError: bad\n" };
  assert.equal(pythonMessage(error), "ValueError: bad");
  assert.equal(pythonMessage(new Error("plain")), "plain");
  assert.equal(pythonMessage("text"), "text");
});
