// @ts-check
// What a run's checks found and what Sandpit proposes, drawn into the DOM:
// the fix of its error (what it changes, whether its trial proved it, its
// diff), its tests (each passed or failed and why, the formulas of
// `sandpit.verify`'s failures rendered with KaTeX) and the lint's warnings
// with their fixes. One drawing for the page and the widget (bound from
// Rust in src/ui/run_view/findings.rs, where each fix gets an Apply fix
// button that puts its code in the editor) and for the embedding client's
// rendering into the embedding page (sandpit-render.js).
import { VERIFICATION_ERROR } from "./generated/names.js";
import { renderFormulas } from "./sandpit-math.js";

/**
 * @import { ToolCalls } from "./generated/protocol.js"
 */

/** @typedef {ToolCalls["run_python"]["result"]} RunResult */
/** @typedef {NonNullable<NonNullable<RunResult["error"]>["fix"]>} Fix */
/** @typedef {NonNullable<RunResult["warnings"]>[number]} LintWarning */
/** @typedef {NonNullable<RunResult["verification"]>} Verification */
/** @typedef {import("./sandpit-math.js").Katex} Katex */
/** @typedef {((code: string) => void) | undefined} Apply what takes a fix's code, where there is an editor */

/** The class of each line of a diff, by its first character. */
const DIFF_LINE = /** @type {Record<string, string>} */ ({ "+": "sandpit-diff-added", "-": "sandpit-diff-removed", "@": "sandpit-diff-hunk" });

/**
 * An element of `doc` of class `sandpit-<part>`, its part in `data-sandpit-part`.
 *
 * @param {Document} doc
 * @param {string} tag
 * @param {string} part
 * @param {string} [text]
 */
export function element(doc, tag, part, text) {
  const made = doc.createElement(tag);
  made.className = `sandpit-${part}`;
  made.dataset.sandpitPart = part;
  if (text !== undefined) made.textContent = text;
  return made;
}

/**
 * A fix: what it changes, whether its trial proved it (or what it gave),
 * its diff without the file headers, each line classed by its mark; with
 * `apply`, an Apply fix button that hands it the fixed code.
 *
 * @param {Document} doc
 * @param {Fix} fix
 * @param {Apply} [apply]
 */
export function renderFix(doc, fix, apply) {
  const box = element(doc, "div", "fix");
  box.dataset.sandpitVerified = String(fix.verified);
  const verdict = fix.verified ? "verified: Sandpit ran the fixed code and it worked" : `not verified${fix.outcome ? `: ${fix.outcome.message}` : ""}`;
  box.append(element(doc, "div", "fix-summary", `Fix: ${fix.summary} (${verdict})`));
  const diff = element(doc, "pre", "diff");
  // The file headers (`--- submitted`, `+++ fixed`) say nothing here: from the first hunk on.
  const lines = fix.diff.split(/(?<=\n)/);
  for (const line of lines.slice(Math.max(lines.findIndex((l) => l.startsWith("@@")), 0))) {
    const span = doc.createElement("span");
    span.className = DIFF_LINE[line[0]] ?? "sandpit-diff-same";
    span.textContent = line;
    diff.append(span);
  }
  box.append(diff);
  if (apply) {
    const button = element(doc, "button", "apply-fix", "Apply fix");
    button.setAttribute("type", "button");
    button.dataset.testid = "apply-fix";
    button.setAttribute("aria-label", `Apply fix: ${fix.summary}`);
    const said = doc.createElement("span");
    said.setAttribute("role", "status");
    button.addEventListener("click", () => {
      apply(fix.code);
      said.textContent = " In the editor now: undo (Ctrl+Z) takes it back.";
    });
    box.append(button, said);
  }
  return box;
}

/**
 * The lint's warnings: code that ran but is dangerous, figures that show
 * or say nothing; each with its line, rule and fix, if it has one.
 *
 * @param {Document} doc
 * @param {LintWarning[]} warnings
 * @param {Apply} [apply]
 */
export function renderWarnings(doc, warnings, apply) {
  const list = element(doc, "ul", "warnings");
  list.setAttribute("aria-label", "Warnings");
  for (const warning of warnings) {
    const item = doc.createElement("li");
    item.dataset.sandpitRule = warning.rule;
    item.textContent = `${warning.line ? `Line ${warning.line}: ` : ""}${warning.message} [${warning.rule}]`;
    if (warning.fix) item.append(renderFix(doc, warning.fix, apply));
    list.append(item);
  }
  return list;
}

/**
 * What a run's tests found: a line for the whole, then each test, a failed
 * one with the values its assert compared and its error, the formulas of
 * `sandpit.verify`'s failures rendered by `katex` (default: the page's).
 *
 * @param {Document} doc
 * @param {Verification} verification
 * @param {Katex} [katex]
 */
export function renderTests(doc, verification, katex) {
  const box = element(doc, "div", "tests");
  box.dataset.sandpitPassed = String(verification.passed);
  const passed = verification.tests.filter((test) => test.passed).length;
  const head = verification.passed ? `Tests: all ${passed} passed` : `Tests: ${verification.tests.length - passed} failed, ${passed} passed`;
  const list = doc.createElement("ul");
  for (const test of verification.tests) {
    const item = doc.createElement("li");
    item.dataset.sandpitPassed = String(test.passed);
    const mark = doc.createElement("span");
    mark.setAttribute("role", "img");
    mark.setAttribute("aria-label", test.passed ? "Passed" : "Failed");
    mark.textContent = test.passed ? "✓" : "✗";
    const name = doc.createElement("code");
    name.textContent = test.name;
    item.append(mark, " ", name, element(doc, "span", "test-line", ` (line ${test.line})`));
    const { error } = test;
    if (!test.passed && test.explanation) item.append(element(doc, "pre", "test-explanation", test.explanation));
    if (!test.passed && error) {
      const why = element(doc, "div", "test-error", error.message ? `${error.type}: ${error.message}` : error.type);
      if (error.type === VERIFICATION_ERROR) void renderFormulas(why, why.textContent ?? "", katex);
      item.append(why);
    }
    list.append(item);
  }
  box.append(element(doc, "strong", "tests-head", head), list);
  if (verification.not_run) box.append(element(doc, "p", "tests-not-run", verification.not_run));
  return box;
}

/**
 * A run's findings into `element`: the fix of its error, its tests, its
 * warnings; with `apply`, each fix can be applied.
 *
 * @param {HTMLElement} element
 * @param {{ fix?: Fix | null, verification?: Verification | null, warnings?: LintWarning[] }} findings
 * @param {Apply} [apply]
 * @param {Katex} [katex]
 */
export function renderFindings(element, { fix, verification, warnings }, apply, katex) {
  const doc = element.ownerDocument;
  if (fix) element.append(renderFix(doc, fix, apply));
  if (verification) element.append(renderTests(doc, verification, katex));
  if (warnings?.length) element.append(renderWarnings(doc, warnings, apply));
}
