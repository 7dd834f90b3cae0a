// @ts-check
// The worker's lockdown (pyodide-loader/lockdown.mjs): a name is removed
// wherever the prototype chain defines it, and one that survives stops it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { lockDown } from "../../pyodide-loader/lockdown.mjs";

test("removes a name from the object and every prototype up its chain", () => {
  const base = { indexedDB: "base's", kept: 1 };
  const middle = Object.create(base, { indexedDB: { value: "middle's", configurable: true } });
  const scope = Object.create(middle);
  scope.caches = "own";
  lockDown([[() => scope, ["indexedDB", "caches"]]]);
  assert.equal("indexedDB" in scope, false);
  assert.equal("caches" in scope, false);
  assert.equal(scope.kept, 1, "the rest stays");
});

test("throws when a name cannot be removed, so no code runs unlocked", () => {
  const scope = {};
  Object.defineProperty(scope, "postMessage", { value: () => {}, configurable: false });
  assert.throws(() => lockDown([[() => scope, ["postMessage"]]]), /could not remove postMessage/);
});

test("a target that is not there is nothing to remove", () => {
  assert.doesNotThrow(() => lockDown([[() => /** @type {any} */ (undefined), ["storage"]]]));
});
