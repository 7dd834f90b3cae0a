// @ts-check
// The code editor: CodeMirror 6, pinned in package.json and bundled with
// what it imports by scripts/vendor-codemirror.mjs into
// vendor/codemirror/code-editor.mjs, which www/editor.js loads once Python's
// start is over. Python highlighting, line numbers, auto-indent, Tab and
// Shift-Tab indent (Esc then Tab leaves the editor), bracket matching,
// search, an undo history per session, Ctrl/Cmd+Enter runs, lint marks and
// completions from the session's Python (asked through the app, which
// decides when Python may be asked), a check's fixes offered on its marks,
// and the app's light or dark theme.
import { autocompletion } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab, isolateHistory } from "@codemirror/commands";
import { globalCompletion, localCompletionSource, pythonLanguage } from "@codemirror/lang-python";
import {
  bracketMatching,
  indentOnInput,
  indentUnit,
  LanguageSupport,
  syntaxHighlighting,
  syntaxTree,
} from "@codemirror/language";
import { forEachDiagnostic, linter, lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { Compartment, EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from "@codemirror/view";

import { highlighting, isDark, look } from "./look.js";
import { diagnosticOf, fixActions, RUN_ERROR_CLASS, runErrorDiagnostics } from "./marks.js";

/** For tests and tools that reach the editor of a page by its element (`EditorView.findFromDOM`). */
export { EditorView };

/** @typedef {import("./marks.js").Mark} Mark */

/**
 * Names Python offers at the cursor (`Completions` in src/protocol/query.rs).
 *
 * @typedef {{ token: string, options: { name: string, kind: string }[] }} Completions
 */

/**
 * What the editor tells and asks the app; a question comes with the
 * function its answer goes to (lint: null for none).
 *
 * @typedef {{
 *   changed: (session: string, code: string | undefined, cursor: number) => void,
 *   run: () => void,
 *   lint: (code: string, answer: (marks: Mark[] | null) => void) => void,
 *   complete: (code: string, cursor: number, answer: (found: Completions | null) => void) => void,
 * }} Hooks
 */

/**
 * Asks the app `question` and resolves with its answer.
 *
 * @template T
 * @param {(answer: (value: T) => void) => void} question
 * @returns {Promise<T>}
 */
const ask = (question) => new Promise((resolve) => question(resolve));

/** How long typing may pause before the app hears of the change (it saves it). */
const CHANGE_DELAY_MS = 150;
/** How long typing must pause before Python checks the code. */
const LINT_DELAY_MS = 600;
/** CodeMirror's completion types for the kinds Python reports. */
const COMPLETION_TYPES = /** @type {Record<string, string>} */ ({
  module: "namespace",
  class: "class",
  function: "function",
  property: "property",
  variable: "variable",
  keyword: "keyword",
});

/**
 * Completions from the session's Python, with the names the code defines
 * itself; while Python cannot answer, Python's builtins and keywords as
 * CodeMirror knows them.
 *
 * @param {() => Hooks} hooks
 * @returns {import("@codemirror/autocomplete").CompletionSource}
 */
function pythonCompletions(hooks) {
  return async (context) => {
    const node = syntaxTree(context.state).resolveInner(context.pos, -1);
    if (/String|Comment/.test(node.name)) return null;
    const typed = context.matchBefore(/[\w.]+$/);
    if ((!typed && !context.explicit) || /^\d/.test(typed?.text ?? "")) return null;
    const answer = await ask((/** @type {(found: Completions | null) => void} */ done) =>
      hooks().complete(context.state.doc.toString(), context.pos, done),
    );
    if (context.aborted) return null;
    if (answer === null) return globalCompletion(context);
    return {
      from: context.pos - answer.token.length,
      options: answer.options.map(({ name, kind }) => ({ label: name, type: COMPLETION_TYPES[kind] ?? "variable" })),
      // Private names come back only when asked for by a leading underscore.
      validFor: answer.token.startsWith("_") ? /^\w*$/ : /^(?!_)\w*$/,
    };
  };
}

/** A session's editor state, with its own undo history, kept while the page lives. */
export class CodeEditor {
  /**
   * Mounts an editor in `parent` holding `code`, cursor at `cursor` (UTF-16 offset).
   *
   * @param {HTMLElement} parent
   * @param {string} session
   * @param {string} code
   * @param {number} cursor
   * @param {Hooks["changed"]} changed
   * @param {Hooks["run"]} run
   * @param {Hooks["lint"]} lint
   * @param {Hooks["complete"]} complete
   */
  constructor(parent, session, code, cursor, changed, run, lint, complete) {
    /** @type {Hooks} */
    this.hooks = { changed, run, lint, complete };
    /** @type {Map<string, EditorState>} Each session's state, its history with it. */
    this.sessions = new Map();
    /** @type {string[] | null} The sessions there are, once the app has said. */
    this.names = null;
    this.session = session;
    /** @type {Mark | null} */
    this.runError = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.pending = undefined;
    this.codeChanged = false;
    /** The cursor last reported. */
    this.cursor = cursor;
    this.dark = new Compartment();
    this.view = new EditorView({ parent, state: this.newState(code, cursor) });
    // Follow the app's theme, on <html> (src/ui/theme.rs).
    this.themeWatch = new MutationObserver(() =>
      this.view.dispatch({ effects: this.dark.reconfigure(EditorView.darkTheme.of(isDark())) }),
    );
    this.themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    // Typing not yet reported is reported as the page is left, before the
    // app's storage writes its last batch (www/storage.js, which listens
    // without capturing: capturing listeners go first).
    /** @param {Event} event */
    this.leaving = (event) => {
      if (event.type === "pagehide" || document.visibilityState === "hidden") this.flush();
    };
    addEventListener("pagehide", this.leaving, { capture: true });
    document.addEventListener("visibilitychange", this.leaving, { capture: true });
  }

  /**
   * A fresh state holding `code`: its history starts empty.
   *
   * @param {string} code
   * @param {number} cursor
   */
  newState(code, cursor) {
    const hooks = () => this.hooks;
    return EditorState.create({
      doc: code,
      selection: { anchor: Math.min(Math.max(cursor, 0), code.length) },
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentOnInput(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        bracketMatching(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        search({ top: true }),
        new LanguageSupport(pythonLanguage, [
          pythonLanguage.data.of({ autocomplete: localCompletionSource }),
          pythonLanguage.data.of({ autocomplete: pythonCompletions(hooks) }),
        ]),
        autocompletion(),
        linter((view) => this.lint(view.state), { delay: LINT_DELAY_MS }),
        linter((view) => runErrorDiagnostics(this.runError, view.state)),
        lintGutter(),
        syntaxHighlighting(highlighting),
        look,
        this.dark.of(EditorView.darkTheme.of(isDark())),
        keymap.of([
          { key: "Mod-Enter", run: () => (this.flush(), this.hooks.run(), true) },
          ...searchKeymap,
          ...historyKeymap,
          ...lintKeymap,
          ...defaultKeymap,
          indentWithTab,
        ]),
        // The content is in the tab order as contenteditable; said so with
        // tabindex, so that checkers (axe) count the scrolling editor as
        // reachable from the keyboard when its code is wider or taller than it.
        EditorView.contentAttributes.of({ "data-testid": "code", "aria-label": "Python code", tabindex: "0" }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) this.codeChanged = true;
          if (update.docChanged || update.selectionSet) this.schedule();
          if (update.focusChanged && !update.view.hasFocus) this.flush();
        }),
      ],
    });
  }

  /**
   * Python's marks for the code in `state` (none for no code).
   *
   * @param {EditorState} state
   * @returns {Promise<import("@codemirror/lint").Diagnostic[]>}
   */
  async lint(state) {
    if (state.doc.length === 0) return [];
    const checked = state.doc.toString();
    const marks = await ask((/** @type {(marks: Mark[] | null) => void} */ done) => this.hooks.lint(checked, done));
    return (marks ?? []).flatMap((mark) => {
      const diagnostic = diagnosticOf(mark, state);
      return diagnostic ? [{ ...diagnostic, actions: fixActions(mark, checked) }] : [];
    });
  }

  /** Tells the app of the changes so far once typing pauses. */
  schedule() {
    clearTimeout(this.pending);
    this.pending = setTimeout(() => this.flush(), CHANGE_DELAY_MS);
  }

  /** Tells the app of the changes so far at once (before a run, say), if there are any. */
  flush() {
    clearTimeout(this.pending);
    this.pending = undefined;
    const cursor = this.view.state.selection.main.head;
    if (!this.codeChanged && cursor === this.cursor) return;
    const code = this.codeChanged ? this.view.state.doc.toString() : undefined;
    this.codeChanged = false;
    this.cursor = cursor;
    this.hooks.changed(this.session, code, cursor);
  }

  /**
   * Shows `session`'s code: its state from before, history and all, when
   * the editor had it (with `code` put in as one change if that differs),
   * else a fresh one.
   *
   * @param {string} session
   * @param {string} code
   * @param {number} cursor
   */
  showSession(session, code, cursor) {
    if (session === this.session) return this.setCode(code);
    this.flush();
    // The session left is kept unless it was just deleted.
    if (this.names === null || this.names.includes(this.session)) this.sessions.set(this.session, this.view.state);
    this.session = session;
    this.runError = null;
    const kept = this.sessions.get(session);
    this.sessions.delete(session);
    this.view.setState(kept ?? this.newState(code, cursor));
    this.view.dispatch({ effects: this.dark.reconfigure(EditorView.darkTheme.of(isDark())) });
    if (kept) this.setCode(code);
    this.codeChanged = false;
    this.cursor = this.view.state.selection.main.head;
  }

  /**
   * Puts `code` in the editor as one change the person can undo, never
   * merged with their typing just before it; nothing when it is there already.
   *
   * @param {string} code
   */
  setCode(code) {
    const doc = this.view.state.doc;
    if (doc.length === code.length && doc.toString() === code) return;
    this.view.dispatch({ changes: { from: 0, to: doc.length, insert: code }, annotations: isolateHistory.of("full") });
    this.codeChanged = false;
  }

  /**
   * Forgets the states (and so the undo histories) of sessions not in
   * `names`: a session deleted and made again starts afresh.
   *
   * @param {string[]} names
   */
  keepSessions(names) {
    this.names = names;
    for (const session of this.sessions.keys()) if (!names.includes(session)) this.sessions.delete(session);
  }

  /** @returns {string} The code as it is now. */
  code() {
    return this.view.state.doc.toString();
  }

  /**
   * Marks the error a run of this session ended with, or clears the mark
   * (null); the message shows on hover.
   *
   * @param {Mark | null} mark
   */
  markRunError(mark) {
    // Nothing marked and nothing to mark (a run that worked after one that
    // worked): no change, which would also have the browser lay the page out
    // again to read the editor's selection while the new run is being drawn.
    if (mark === null && this.runError === null) return;
    this.runError = mark;
    /** @type {import("@codemirror/lint").Diagnostic[]} */
    const others = [];
    forEachDiagnostic(this.view.state, (diagnostic, from, to) => {
      if (diagnostic.markClass !== RUN_ERROR_CLASS) others.push({ ...diagnostic, from, to });
    });
    this.view.dispatch(setDiagnostics(this.view.state, [...others, ...runErrorDiagnostics(mark, this.view.state)]));
  }

  focus() {
    this.view.focus();
  }

  /** Removes the editor and forgets every session's state. */
  destroy() {
    clearTimeout(this.pending);
    this.themeWatch.disconnect();
    removeEventListener("pagehide", this.leaving, { capture: true });
    document.removeEventListener("visibilitychange", this.leaving, { capture: true });
    this.view.destroy();
    this.sessions.clear();
  }
}
