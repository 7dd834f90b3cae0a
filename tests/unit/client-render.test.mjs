// @ts-check
// The embedding client's choice of what to show of a display output, and
// how tall an HTML output's frame is (www/sandpit-render.js): the same as
// the page's (src/ui/rich.rs).
import assert from "node:assert/strict";
import { test } from "node:test";

import { HTML_FRAME_MAX_HEIGHT, HTML_FRAME_MIN_HEIGHT } from "../../www/generated/names.js";
import { formulaParts } from "../../www/sandpit-math.js";
import { frameHeight, shownPart } from "../../www/sandpit-render.js";

test("HTML first, then SVG before PNG, then the text forms, plain text last", () => {
  /** @type {any} */
  const bundle = { "text/plain": "<Figure>", "image/png": "iVBORw0KGgo=", "image/svg+xml": "<svg/>" };
  assert.equal(shownPart(bundle), "image/svg+xml");
  delete bundle["image/svg+xml"];
  assert.equal(shownPart(bundle), "image/png");
  bundle["text/html"] = "<b>x</b>";
  assert.equal(shownPart(bundle), "text/html");
  assert.equal(shownPart({ "text/plain": "x", "text/markdown": "*x*", "text/latex": "x^2" }), "text/latex");
  assert.equal(shownPart({ "text/plain": "x", "application/json": { a: 1 }, "text/markdown": "*x*" }), "text/markdown");
  assert.equal(shownPart({ "text/plain": "x", "application/json": { a: 1 } }), "application/json");
  assert.equal(shownPart({ "text/plain": "x", "text/html": null }), "text/plain", "a part that is null is absent");
});

test("a frame is as tall as its content, within bounds; a report that is no number is ignored", () => {
  assert.equal(frameHeight(120.2), 121);
  assert.equal(frameHeight("80"), 80);
  assert.equal(frameHeight(3), HTML_FRAME_MIN_HEIGHT);
  assert.equal(frameHeight(5000), HTML_FRAME_MAX_HEIGHT);
  assert.equal(frameHeight(Number.NaN), null);
  assert.equal(frameHeight(undefined), null);
});

test("a message's formulas are the text between single dollar signs", () => {
  assert.deepEqual(formulaParts("$x^{2}$ and $x$ differ at $x = -1$: 1 against -1"), [
    { tex: "x^{2}" },
    { text: " and " },
    { tex: "x" },
    { text: " differ at " },
    { tex: "x = -1" },
    { text: ": 1 against -1" },
  ]);
  assert.deepEqual(formulaParts("no formula here"), [{ text: "no formula here" }]);
  assert.deepEqual(formulaParts("costs $5"), [{ text: "costs $5" }], "a lone dollar sign is text");
});
