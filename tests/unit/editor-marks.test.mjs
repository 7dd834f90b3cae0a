// @ts-check
// The app's marks as the code editor places them (www/editor/marks.js), in
// a real CodeMirror document: by the word when it names one, else by
// column (in characters, so past an emoji too), and only while the line
// still reads as it did.
import assert from "node:assert/strict";
import { test } from "node:test";

import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

import { diagnosticOf, fixActions, RUN_ERROR_CLASS, runErrorDiagnostics, utf16Offset } from "../../www/editor/marks.js";

/** @typedef {import("../../www/editor/marks.js").Mark} Mark */

const CODE = "import os\nname = '🐍' + undefined_name\n    print(name)\n";
const state = EditorState.create({ doc: CODE });

/**
 * @param {Partial<Mark>} fields
 * @returns {Mark}
 */
const mark = (fields) => ({
  line: 2,
  column: null,
  end_column: null,
  word: null,
  severity: "error",
  message: "NameError: name 'undefined_name' is not defined",
  source: "run",
  expect: null,
  fix: null,
  ...fields,
});

/** @param {{ from: number, to: number } | null} found */
const text = (found) => found && CODE.slice(found.from, found.to);

test("a column counts characters; CodeMirror counts UTF-16 units", () => {
  assert.equal(utf16Offset("a🐍b", 1), 0);
  assert.equal(utf16Offset("a🐍b", 3), 3, "the snake takes two units");
  assert.equal(utf16Offset("ab", 10), 2, "never past the line");
});

test("a mark that names a word covers it, wherever its column says", () => {
  assert.equal(text(diagnosticOf(mark({ word: "undefined_name", column: 1 }), state)), "undefined_name");
});

test("a mark by columns covers them, past characters of two units", () => {
  assert.equal(text(diagnosticOf(mark({ column: 14, end_column: 28 }), state)), "undefined_name");
  assert.equal(text(diagnosticOf(mark({ column: 10 }), state)), "'", "without an end, one character");
});

test("a mark without a place covers its line but the indent", () => {
  assert.equal(text(diagnosticOf(mark({ line: 3 }), state)), "print(name)");
});

test("a mark is dropped once its line reads otherwise, or is gone", () => {
  assert.equal(diagnosticOf(mark({ expect: "name = 'x'" }), state), null);
  assert.notEqual(diagnosticOf(mark({ expect: "name = '🐍' + undefined_name" }), state), null);
  assert.equal(diagnosticOf(mark({ line: 9 }), state), null);
});

test("a run's error carries its class, and nothing without one", () => {
  const [diagnostic] = runErrorDiagnostics(mark({ word: "undefined_name" }), state);
  assert.equal(diagnostic.markClass, RUN_ERROR_CLASS);
  assert.equal(diagnostic.source, "run");
  assert.deepEqual(runErrorDiagnostics(null, state), []);
});

test("a mark's fix is applied only to the code it was made for, as one change", () => {
  assert.deepEqual(fixActions(mark({}), CODE), [], "no fix, no action");
  const [action] = fixActions(mark({ fix: "fixed = True\n" }), CODE);
  assert.equal(action.name, "Apply fix");
  /** @type {{ changes: any, userEvent: string }[]} */
  const dispatched = [];
  const view = /** @type {EditorView} */ (/** @type {unknown} */ ({ state, dispatch: (/** @type {any} */ spec) => dispatched.push(spec) }));
  action.apply(view, 0, 0);
  assert.deepEqual(dispatched, [{ changes: { from: 0, to: CODE.length, insert: "fixed = True\n" }, userEvent: "input.fix" }]);
  const edited = /** @type {EditorView} */ (/** @type {unknown} */ ({ state: EditorState.create({ doc: `${CODE}# more` }), dispatch: () => assert.fail("applied to other code") }));
  action.apply(edited, 0, 0);
});
