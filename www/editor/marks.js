// @ts-check
// The app's marks in the code (lint and a run's error) as CodeMirror
// diagnostics: where each falls in the text as it reads now, and for a
// mark with a fix, the action that applies it.

/**
 * @import { Diagnostic } from "@codemirror/lint"
 * @import { EditorState } from "@codemirror/state"
 */

/**
 * A mark in the code, as the app sends it (`Mark` in src/editing/marks.rs):
 * 1-based line, 1-based columns in characters (the end excluded), when it
 * was made for other text, the line's text then, and the whole code with
 * its fix applied, when it has one.
 *
 * @typedef {{
 *   line: number,
 *   column: number | null,
 *   end_column: number | null,
 *   word: string | null,
 *   severity: "error" | "warning" | "info",
 *   message: string,
 *   source: string,
 *   expect: string | null,
 *   fix: string | null,
 * }} Mark
 */

/** The class of a run error's mark, for the stylesheet and tests. */
export const RUN_ERROR_CLASS = "cm-run-error";

/**
 * The error a run ended with, kept while its line reads as it did: each
 * lint pass (after an edit) marks it again where it still applies.
 *
 * @param {Mark | null} mark
 * @param {EditorState} state
 * @returns {Diagnostic[]}
 */
export function runErrorDiagnostics(mark, state) {
  const diagnostic = mark && diagnosticOf(mark, state);
  return diagnostic ? [{ ...diagnostic, markClass: RUN_ERROR_CLASS }] : [];
}

/**
 * The actions of a mark on `checked` (the code it was made for): with a
 * fix, "Apply fix", which puts the fixed code in place of the text as one
 * change the person can undo, while the text is still what was checked.
 *
 * @param {Mark} mark
 * @param {string} checked
 * @returns {import("@codemirror/lint").Action[]}
 */
export function fixActions(mark, checked) {
  const fixed = mark.fix;
  if (fixed === null) return [];
  return [
    {
      name: "Apply fix",
      apply(view) {
        const { doc } = view.state;
        if (doc.toString() === checked) view.dispatch({ changes: { from: 0, to: doc.length, insert: fixed }, userEvent: "input.fix" });
      },
    },
  ];
}

/**
 * The character offset `column` (1-based, in code points) of `text` as a
 * UTF-16 offset, which is what CodeMirror counts in.
 *
 * @param {string} text
 * @param {number} column
 */
export function utf16Offset(text, column) {
  let offset = 0;
  for (let seen = 1; seen < column && offset < text.length; seen++) {
    offset += /** @type {number} */ (text.codePointAt(offset)) > 0xffff ? 2 : 1;
  }
  return Math.min(offset, text.length);
}

/**
 * `mark` as a CodeMirror diagnostic in `state`, or null when its line is gone
 * or no longer reads as it did.
 *
 * @param {Mark} mark
 * @param {EditorState} state
 * @returns {Diagnostic | null}
 */
export function diagnosticOf(mark, state) {
  if (mark.line < 1 || mark.line > state.doc.lines) return null;
  const line = state.doc.line(mark.line);
  if (mark.expect !== null && line.text !== mark.expect) return null;
  let from = line.from + (line.text.length - line.text.trimStart().length);
  let to = line.to;
  const word = mark.word === null ? -1 : line.text.search(new RegExp(`\\b${mark.word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`));
  if (mark.word !== null && word >= 0) {
    from = line.from + word;
    to = from + mark.word.length;
  } else if (mark.column !== null) {
    from = line.from + utf16Offset(line.text, mark.column);
    to = mark.end_column !== null && mark.end_column > mark.column ? line.from + utf16Offset(line.text, mark.end_column) : Math.min(from + 1, line.to);
  }
  if (to <= from) to = Math.min(from + 1, line.to);
  return { from, to: Math.max(from, to), severity: mark.severity, message: mark.message, source: mark.source };
}
