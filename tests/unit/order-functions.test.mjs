// @ts-check
// The order the build gives the wasm's functions (scripts/order-functions.mjs):
// grouped by the first two segments of their path, then by size, then by name.
import assert from "node:assert/strict";
import { test } from "node:test";

import { orderKey } from "../../scripts/order-functions.mjs";

test("functions group by the first two segments of their path, crate hashes and leading < aside", () => {
  assert.equal(orderKey("sandpit[e02fdf1a593377e3]::ui::__component_app", 12, 7), "sandpit::ui|00000012|sandpit[e02fdf1a593377e3]::ui::__component_app#7");
  assert.match(orderKey("<leptos[697f75dccec1e924]::children::TypedChildrenFn<T> as X>::to_children", 5, 1), /^leptos::children\|/);
  assert.match(orderKey("<&sandpit[e02fdf1a593377e3]::ui::run_view::Finished as FnOnce>::call_once", 5, 1), /^sandpit::ui\|/);
});

test("within a group the smaller function comes first, and the index keeps equal names apart", () => {
  const keys = [
    orderKey("core[f6b26b22d1d1b02e]::ptr::drop_in_place::<B>", 300, 3),
    orderKey("core[f6b26b22d1d1b02e]::ptr::drop_in_place::<A>", 40, 9),
    orderKey("alloc[676240861912815c]::vec::Vec::push", 900, 2),
  ];
  assert.deepEqual([...keys].sort(), [keys[2], keys[1], keys[0]]);
  assert.notEqual(orderKey("f", 1, 1), orderKey("f", 1, 2));
});
