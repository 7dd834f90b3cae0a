// @ts-check
// The code editor as the app binds it (src/ui/editor.rs): CodeMirror,
// bundled by the build into vendor/codemirror/ (scripts/vendor-codemirror.mjs,
// from www/editor/code-editor.js), loaded once Python's start is over, or
// as soon as the person reaches for the plain text field that stands in
// until then, so that on a first visit it does not compete with Python's
// download and start.

import { EDITOR_MODULE } from "./generated/names.js";

/** @typedef {import("./editor/code-editor.js").CodeEditor} CodeEditor */
/** @typedef {import("./editor/code-editor.js").Hooks} Hooks */

/** @typedef {typeof import("./editor/code-editor.js")} EditorModule */

/**
 * Loads the editor's bundle. Rejects when it cannot load.
 *
 * @returns {Promise<EditorModule>}
 */
export function loadEditor() {
  return import(new URL(EDITOR_MODULE, document.baseURI).href);
}

/**
 * Mounts the editor from `module` in `parent` with `session`'s `code`, the
 * cursor at `cursor` (UTF-16 offset), focused when `focus` (the person was
 * typing in the field it replaces).
 *
 * @param {EditorModule} module
 * @param {HTMLElement} parent
 * @param {string} session
 * @param {string} code
 * @param {number} cursor
 * @param {boolean} focus
 * @param {Hooks["changed"]} changed
 * @param {Hooks["run"]} run
 * @param {Hooks["lint"]} lint
 * @param {Hooks["complete"]} complete
 * @returns {CodeEditor}
 */
export function openEditor(module, parent, session, code, cursor, focus, changed, run, lint, complete) {
  const editor = new module.CodeEditor(parent, session, code, cursor, changed, run, lint, complete);
  if (focus) editor.view.focus();
  return editor;
}
