// @ts-check
// The code editor (CodeMirror) as a person uses it, with the keyboard:
// indenting, leaving it, searching, undo per session, the cursor kept
// across a reload, the last run's error marked, Python's check as lint
// marks, and completions from the session's Python that never hold up a
// run. One app and page for the file; screenshots of the editor's states
// go to tests/e2e/artifacts/.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { screenshot, useSandpit } from "./harness.mjs";

/** @type {import("./harness/page.mjs").SandpitPage} */
let sandpit;
useSandpit((ready) => {
  sandpit = ready;
});

/** The editor's content element, where typing goes. */
const editor = () => sandpit.page.getByTestId("code");
const keyboard = () => sandpit.page.keyboard;

/** Empties the editor and puts the keyboard in it. */
async function startTyping(code = "") {
  await sandpit.setCode(code);
  await editor().focus();
  await keyboard().press("Control+End");
}

/**
 * Hovers `mark` until its tooltip, matching `text`, shows, and returns the
 * tooltip's text, read as it shows. A lint pass that ends while the pointer
 * rests on a mark closes its tooltip (the marks are set anew), as CodeMirror
 * does; a person then moves the pointer again, and so does this, up to three
 * times.
 *
 * @param {import("playwright-core").Locator} mark
 * @param {RegExp} text
 */
async function hoverForTooltip(mark, text) {
  const tooltip = sandpit.page.locator(".cm-tooltip-lint", { hasText: text });
  for (let attempt = 1; ; attempt++) {
    await sandpit.page.mouse.move(0, 0);
    await mark.hover();
    try {
      return (await tooltip.textContent({ timeout: 3000 })) ?? "";
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/** The `[from, to]` text of every lint mark of `kind` (error, warning, info) in the editor. */
function marked(kind) {
  return sandpit.page.locator(`.cm-lintRange-${kind}`).allTextContents();
}

describe("typing", () => {
  test("Enter indents a block, Tab and Shift-Tab indent, Esc then Tab leaves the editor", async () => {
    await sandpit.selectSession("main");
    await startTyping();
    await keyboard().type("def double(x):");
    await keyboard().press("Enter");
    await keyboard().type("return x * 2");
    assert.equal(await sandpit.code(), "def double(x):\n    return x * 2", "the body is indented by itself");
    await keyboard().press("Home");
    await keyboard().press("Tab");
    assert.equal(await sandpit.code(), "def double(x):\n        return x * 2", "Tab indents, the focus stays");
    await keyboard().press("Shift+Tab");
    assert.equal(await sandpit.code(), "def double(x):\n    return x * 2");
    assert.equal(await sandpit.page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "code");

    await keyboard().press("Escape");
    await keyboard().press("Tab");
    assert.equal(await sandpit.code(), "def double(x):\n    return x * 2", "nothing typed");
    assert.equal(
      await sandpit.page.evaluate(() => document.activeElement?.getAttribute("data-testid")),
      "run",
      "Esc then Tab moves on to the Run button",
    );
  });

  test("Python is highlighted, lines are numbered, brackets match, and Ctrl+F finds", async () => {
    await startTyping("# a comment\nnames = ['ada', 'grace']\nprint(len(names))");
    const colour = (text) =>
      sandpit.page
        .locator(".cm-line span", { hasText: text })
        .first()
        .evaluate((span) => getComputedStyle(span).color);
    const [comment, string, plain] = [await colour("# a comment"), await colour("'ada'"), await sandpit.page.locator(".cm-line").nth(2).evaluate((line) => getComputedStyle(line).color)];
    assert.notEqual(comment, plain, "comments have their own colour");
    assert.notEqual(string, plain, "strings too");
    assert.notEqual(comment, string);
    assert.deepEqual(await sandpit.page.locator(".cm-lineNumbers .cm-gutterElement:not([style*='visibility'])").allTextContents().then((all) => all.filter((n) => /^\d+$/.test(n))), ["1", "2", "3"]);

    // The cursor after the last `)`: it and its `(` are marked as a pair.
    await keyboard().press("Control+End");
    assert.deepEqual(await sandpit.page.locator(".cm-matchingBracket").allTextContents(), ["(", ")"]);

    await keyboard().press("Control+f");
    const field = sandpit.page.locator(".cm-search input[name=search]");
    await field.waitFor();
    await field.fill("names");
    await keyboard().press("Enter");
    await sandpit.page.locator(".cm-searchMatch").first().waitFor();
    assert.equal(await sandpit.page.locator(".cm-searchMatch").count(), 2);
    await keyboard().press("Escape");
    await sandpit.page.locator(".cm-search").waitFor({ state: "detached" });
  });

  test("each session keeps its own undo history", async () => {
    await sandpit.selectSession("main");
    await startTyping();
    await keyboard().type("in_main = 1");
    await sandpit.newSession("undo-second");
    await startTyping();
    await keyboard().type("in_second = 2");
    await keyboard().press("Control+z");
    assert.equal(await sandpit.code(), "", "undone in the second session");

    await sandpit.selectSession("main");
    await sandpit.waitForCode("in_main = 1");
    await editor().focus();
    await keyboard().press("Control+z");
    assert.equal(await sandpit.code(), "", "main's own typing is undone, not the second session's");
    await keyboard().press("Control+y");
    assert.equal(await sandpit.code(), "in_main = 1");

    // A session deleted and made again has a history of its own.
    await sandpit.selectSession("undo-second");
    await sandpit.clearSession("delete-session");
    await sandpit.newSession("undo-second");
    await sandpit.waitForCode("in_main = 1");
    await editor().focus();
    await keyboard().press("Control+z");
    assert.equal(await sandpit.code(), "in_main = 1", "nothing of the deleted session comes back");
  });

  test("each session's cursor is where it was after a reload", async () => {
    await sandpit.selectSession("main");
    await startTyping("first = 1\nsecond = 2\nthird = 3");
    await keyboard().press("Control+Home");
    await keyboard().press("ArrowDown");
    await keyboard().press("End");
    await keyboard().press("ArrowLeft");
    assert.deepEqual(await sandpit.cursor(), [2, 10]);
    await sandpit.selectSession("undo-second");
    await startTyping("only = 'here'");
    await keyboard().press("Control+Home");
    await keyboard().press("ArrowRight");
    // Reloaded at once: what the editor had not reported yet goes as the page is left.
    await sandpit.reload();
    await sandpit.waitForCode("only = 'here'");
    assert.deepEqual(await sandpit.cursor(), [1, 2]);
    await sandpit.selectSession("main");
    await sandpit.waitForCode("first = 1\nsecond = 2\nthird = 3");
    assert.deepEqual(await sandpit.cursor(), [2, 10]);
    await sandpit.waitReady();
  });
});

describe("marks", () => {
  test("a failed run's error is marked at its columns, says why on hover, and goes when its line changes", async () => {
    await sandpit.selectSession("main");
    const failed = await sandpit.run("x = 0\ny = 1 / x");
    assert.equal(failed.errorType, "ZeroDivisionError");
    const mark = sandpit.page.locator(".cm-run-error");
    await mark.waitFor();
    assert.equal(await mark.textContent(), "1 / x", "the failing expression, as Python's columns give it");
    assert.match(await hoverForTooltip(mark, /ZeroDivisionError/), /ZeroDivisionError: division by zero/);
    await screenshot(sandpit.page, "editor-error-mark");

    // Another line edited: the mark stays; its own line edited: it goes.
    await editor().focus();
    await keyboard().press("Control+Home");
    await keyboard().press("End");
    await keyboard().type("  # zero");
    await sandpit.page.waitForTimeout(1000); // past the editor's lint pause, which keeps marks that still apply
    assert.equal(await mark.count(), 1);
    await keyboard().press("Control+End");
    await keyboard().type(" + 1");
    await mark.waitFor({ state: "detached" });

    assert.equal((await sandpit.run("x = 1\ny = 1 / x")).phase, "ok");
    assert.equal(await mark.count(), 0, "a run that worked leaves no mark");
  });

  test("while typing, Python's check marks imports that need the network or cannot work, and syntax errors", async () => {
    await startTyping();
    await keyboard().type("import json\nimport sympy\nimport numpy\nimport tensorflow\n");
    await sandpit.page.locator(".cm-lintRange-warning").waitFor();
    assert.deepEqual(await marked("warning"), ["tensorflow"], "no browser build: a warning");
    assert.deepEqual(await marked("info"), ["numpy"], "downloaded on first use: said, not warned");
    assert.deepEqual(await marked("error"), []);
    await hoverForTooltip(sandpit.page.locator(".cm-lintRange-warning"), /Not available in this browser sandbox/);
    await screenshot(sandpit.page, "editor-lint");

    await keyboard().type("total = (1 +");
    await sandpit.page.locator(".cm-lintRange-error").waitFor();
    await hoverForTooltip(sandpit.page.locator(".cm-lintRange-error"), /SyntaxError/);
    assert.deepEqual(await marked("warning"), [], "a syntax error stops the check at it");
  });
});

describe("completion", () => {
  test("offers the session's names and their attributes, found by Python", async () => {
    await sandpit.selectSession("main");
    await sandpit.run("import math\nrunning_total = 41");
    await startTyping();
    await keyboard().type("runn");
    const option = (label) => sandpit.page.locator(".cm-tooltip-autocomplete li", { hasText: new RegExp(`^${label}`) });
    await option("running_total").waitFor();
    await screenshot(sandpit.page, "editor-completion");
    await option("running_total").click();
    assert.equal(await sandpit.code(), "running_total");

    await keyboard().type(" + math.sq");
    await option("sqrt").waitFor();
    await option("sqrt").click();
    assert.equal(await sandpit.code(), "running_total + math.sqrt");
    const asked = await sandpit.page.evaluate(() =>
      window.__sandpitMessages.filter((m) => m.from === "host" && m.kind === "query" && m.data.query.query.complete).length,
    );
    assert.ok(asked >= 2, `Python was asked (${asked} times)`);
  });

  test("is never asked of Python while a run goes on: the editor offers what it knows itself", async () => {
    await sandpit.setTimeoutSeconds(20);
    const index = await sandpit.submit("import time\ntime.sleep(2)\n'slept'");
    await sandpit.page.getByTestId("run-entry").nth(index).and(sandpit.page.locator('[data-phase="running"]')).waitFor();
    const sentBefore = await sandpit.page.evaluate(() => window.__sandpitMessages.length);
    await startTyping();
    await keyboard().type("ma");
    await keyboard().press("Control+Space");
    await sandpit.page.locator(".cm-tooltip-autocomplete li", { hasText: /^max/ }).waitFor();
    const result = await sandpit.result(index);
    assert.equal(result.value, "'slept'");
    const during = await sandpit.page.evaluate(
      (from) => window.__sandpitMessages.slice(from).map((m) => (m.kind === "query" ? Object.keys(m.data.query.query)[0] : m.kind)),
      sentBefore,
    );
    assert.ok(!during.includes("complete"), `no completion went to Python before the run ended: ${during.join(", ")}`);
    await keyboard().press("Escape");
  });
});

describe("themes", () => {
  test("the editor follows the app's theme", async () => {
    const look = () =>
      sandpit.page.evaluate(() => {
        const editor = /** @type {HTMLElement} */ (document.querySelector(".cm-editor"));
        const keyword = document.querySelector(".cm-line span");
        return { background: getComputedStyle(editor).backgroundColor, keyword: keyword && getComputedStyle(keyword).color };
      });
    await startTyping("def f():\n    pass");
    await sandpit.page.getByTestId("theme").selectOption("light");
    const light = await look();
    await sandpit.page.getByTestId("theme").selectOption("dark");
    await sandpit.page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    const dark = await look();
    assert.equal(dark.background, "rgb(31, 31, 35)", "the dark panel");
    assert.notEqual(dark.keyword, light.keyword);
    await screenshot(sandpit.page, "editor-dark");
    await sandpit.page.getByTestId("theme").selectOption("system");
  });
});
