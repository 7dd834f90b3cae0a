// @ts-check
// The embedding client's functions offered to the code
// (www/sandpit-functions.js): checked when the client is made, offered at
// `initialize`, answered when the widget calls one.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ERROR_INVALID_PARAMS, HOST_CALL_METHOD, HOST_FUNCTIONS_CAPABILITY } from "../../www/generated/names.js";
import { HostFunctions } from "../../www/sandpit-functions.js";
import { SandpitError } from "../../www/sandpit-transport.js";

const signal = new AbortController().signal;

test("a function without a name or a handler is refused with INVALID_PARAMS", () => {
  for (const bad of [{ name: 1, handler: () => 0 }, { name: "f" }]) {
    assert.throws(
      () => new HostFunctions([/** @type {any} */ (bad)]),
      (error) => error instanceof SandpitError && error.code === ERROR_INVALID_PARAMS,
    );
  }
});

test("none offered: no capability; offered: their descriptors and the sessions allowed", () => {
  assert.deepEqual(new HostFunctions([]).capabilities, {});
  const offered = new HostFunctions([{ name: "lookup", handler: () => 1 }, { name: "add", description: "adds", parameters: { type: "object", properties: {} }, handler: () => 2 }], ["s"]);
  assert.deepEqual(offered.capabilities, {
    experimental: {
      [HOST_FUNCTIONS_CAPABILITY]: {
        functions: [
          { name: "lookup", description: "", inputSchema: { type: "object" } },
          { name: "add", description: "adds", inputSchema: { type: "object", properties: {} } },
        ],
        sessions: ["s"],
      },
    },
  });
});

test("a call runs the handler with its arguments; undefined comes back as null; unknown calls reject", async () => {
  /** @type {unknown[]} */
  const heard = [];
  const functions = new HostFunctions([
    { name: "echo", handler: (args, context) => (heard.push(args, context.signal), args) },
    { name: "nothing", handler: () => undefined },
  ]);
  assert.deepEqual(await functions.answer(HOST_CALL_METHOD, { name: "echo", arguments: { a: 1 } }, signal), { value: { a: 1 } });
  assert.deepEqual(heard, [{ a: 1 }, signal]);
  assert.deepEqual(await functions.answer(HOST_CALL_METHOD, { name: "nothing", arguments: {} }, signal), { value: null });
  await assert.rejects(functions.answer(HOST_CALL_METHOD, { name: "missing", arguments: {} }, signal), /answers no sandpit\/functions\/call for "missing"/);
  await assert.rejects(functions.answer("other/method", { name: "echo", arguments: {} }, signal), /answers no other\/method/);
});
