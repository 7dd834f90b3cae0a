// @ts-check
// The code editor's look: its colours are the app's stylesheet variables,
// so it follows the app's light or dark theme.
import { HighlightStyle } from "@codemirror/language";
import { EditorView } from "@codemirror/view";
import { tags } from "@lezer/highlight";

import { RUN_ERROR_CLASS } from "./marks.js";

/** Syntax colours, from the app's stylesheet so they follow its theme. */
export const highlighting = HighlightStyle.define([
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
export const look = EditorView.theme({
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

/** Whether the app shows its dark theme. */
export function isDark() {
  return document.documentElement.dataset.theme === "dark";
}
