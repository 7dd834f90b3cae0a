// @ts-check
// The code editor as the app binds it (src/ui/editor.rs): CodeMirror,
// bundled by the build into vendor/codemirror/ (scripts/vendor-codemirror.mjs,
// from www/editor/code-editor.js), loaded once the app is on screen so
// that it does not hold up the first paint; a plain text field stands in
// until then.

import { EDITOR_MODULE } from "./generated/names.js";

/** @typedef {import("./editor/code-editor.js").CodeEditor} CodeEditor */
/** @typedef {import("./editor/code-editor.js").Hooks} Hooks */

/**
 * Loads the editor and mounts it in `parent` with `session`'s `code`, the
 * cursor at `cursor` (UTF-16 offset). Rejects when the bundle cannot load.
 *
 * @param {HTMLElement} parent
 * @param {string} session
 * @param {string} code
 * @param {number} cursor
 * @param {Hooks["changed"]} changed
 * @param {Hooks["run"]} run
 * @param {Hooks["lint"]} lint
 * @param {Hooks["complete"]} complete
 * @returns {Promise<CodeEditor>}
 */
export async function openEditor(parent, session, code, cursor, changed, run, lint, complete) {
  /** @type {typeof import("./editor/code-editor.js")} */
  const module = await import(new URL(EDITOR_MODULE, document.baseURI).href);
  return new module.CodeEditor(parent, session, code, cursor, changed, run, lint, complete);
}
