// @ts-check
// The code editor: CodeMirror 6, pinned in package.json and bundled with
// what it imports by scripts/vendor-codemirror.mjs into
// vendor/codemirror/code-editor.mjs, which www/editor.js loads once the app
// is on screen. Python highlighting, line numbers, auto-indent, Tab and
// Shift-Tab indent (Esc then Tab leaves the editor), bracket matching,
// search, an undo history per session, Ctrl/Cmd+Enter runs, lint marks and
// completions from the session's Python (asked through the app, which
// decides when Python may be asked), and the app's light or dark theme.
import { autocompletion } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { globalCompletion, localCompletionSource, pythonLanguage } from "@codemirror/lang-python";
import {
  bracketMatching,
  HighlightStyle,
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
import { tags } from "@lezer/highlight";

/** For tests and tools that reach the editor of a page by its element (`EditorView.findFromDOM`). */
export { EditorView };

/**
 * A mark in the code, as the app sends it (`Mark` in src/editing/marks.rs):
 * 1-based line, 1-based columns in characters (the end excluded), and when
 * it was made for other text, the line's text then.
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
 * }} Mark
 */

/**
 * Names Python offers at the cursor (`Completions` in src/protocol.rs).
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
/** The class of a run error's mark, for the stylesheet and tests. */
const RUN_ERROR_CLASS = "cm-run-error";

/** CodeMirror's completion types for the kinds Python reports. */
const COMPLETION_TYPES = /** @type {Record<string, string>} */ ({
  module: "namespace",
  class: "class",
  function: "function",
  property: "property",
  variable: "variable",
  keyword: "keyword",
});

/** Syntax colours, from the app's stylesheet so they follow its theme. */
const highlighting = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword, tags.operatorKeyword], color: "var(--code-keyword)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--code-string)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: "var(--code-number)" },
  { tag: tags.comment, color: "var(--code-comment)", fontStyle: "italic" },
  { tag: [tags.function(tags.definition(tags.variableName)), tags.definition(tags.className)], color: "var(--code-definition)" },
  { tag: [tags.className, tags.self], color: "var(--code-class)" },
  { tag: tags.meta, color: "var(--code-comment)" },
  { tag: tags.invalid, color: "var(--stderr)" },
]);

/** The editor's look beyond colours of code: the app's variables again. */
const look = EditorView.theme({
  "&": { color: "var(--ink)", backgroundColor: "var(--panel)", fontSize: "14px" },
  ".cm-content": { fontFamily: "var(--mono)", caretColor: "var(--ink)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--ink)" },
  ".cm-gutters": { backgroundColor: "var(--panel)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine": { backgroundColor: "var(--code-active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--code-active-line)", color: "var(--ink)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection": {
    backgroundColor: "var(--code-selection)",
  },
  ".cm-tooltip": { color: "var(--ink)", backgroundColor: "var(--panel)", border: "1px solid var(--line)" },
  ".cm-panels": { color: "var(--ink)", backgroundColor: "var(--bg)" },
  [`.${RUN_ERROR_CLASS}`]: { backgroundColor: "var(--stderr-bg)" },
});

/**
 * The error a run ended with, kept while its line reads as it did: each
 * lint pass (after an edit) marks it again where it still applies.
 *
 * @param {Mark | null} mark
 * @param {EditorState} state
 * @returns {import("@codemirror/lint").Diagnostic[]}
 */
function runErrorDiagnostics(mark, state) {
  const diagnostic = mark && diagnosticOf(mark, state);
  return diagnostic ? [{ ...diagnostic, markClass: RUN_ERROR_CLASS }] : [];
}

/**
 * The character offset `column` (1-based, in code points) of `text` as a
 * UTF-16 offset, which is what CodeMirror counts in.
 *
 * @param {string} text
 * @param {number} column
 */
function utf16Offset(text, column) {
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
 * @returns {import("@codemirror/lint").Diagnostic | null}
 */
function diagnosticOf(mark, state) {
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
        EditorView.contentAttributes.of({ "data-testid": "code", "aria-label": "Python code" }),
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
    const marks = await ask((/** @type {(marks: Mark[] | null) => void} */ done) => this.hooks.lint(state.doc.toString(), done));
    return (marks ?? []).flatMap((mark) => diagnosticOf(mark, state) ?? []);
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
   * Puts `code` in the editor as one change the person can undo; nothing
   * when it is there already.
   *
   * @param {string} code
   */
  setCode(code) {
    const doc = this.view.state.doc;
    if (doc.length === code.length && doc.toString() === code) return;
    this.view.dispatch({ changes: { from: 0, to: doc.length, insert: code } });
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

function isDark() {
  return document.documentElement.dataset.theme === "dark";
}
