// @ts-check
// What Sandpit proposes, on the page as a person uses it: a failed run's
// fix under its error with Apply fix (keyboard, undo, another session's
// editor), a warning's fix applied too, the editor's check offering its
// syntax fix on the mark, formulas of a failed `sandpit.verify` check
// rendered with KaTeX, and no serious axe violation with all of it on
// screen. The tests with `tests` come from an agent through WebMCP (with
// @mcp-b/webmcp-polyfill standing in for a browser's model context), as
// the page's editor sends none.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";

import { ROOT, screenshot, startApp } from "./harness.mjs";
import { seriousViolations } from "./harness/axe.mjs";

/** The polyfill's script, which a page adds before its own. */
const POLYFILL = join(ROOT, "node_modules/@mcp-b/webmcp-polyfill/dist/index.iife.js");

/** @type {Awaited<ReturnType<typeof startApp>>} */
let app;
/** @type {import("./harness/page.mjs").SandpitPage} */
let sandpit;

before(async () => {
  app = await startApp();
  sandpit = await app.newPage();
  const polyfill = await readFile(POLYFILL, "utf8");
  await sandpit.page.addInitScript({ content: `window.__webMCPPolyfillOptions = { installTestingShim: true };\n${polyfill}` });
  await (await sandpit.open()).waitReady();
});
afterEach(async () => {
  await sandpit.assertHealthy();
});
after(async () => {
  await app?.close();
});

/** A query built into the SQL with `%`: a value with a quote would change it. */
const STRING_BUILT_SQL = [
  "import sqlite3",
  "con = sqlite3.connect(':memory:')",
  "con.execute('CREATE TABLE users (name TEXT)')",
  "name = 'ada'",
  "con.execute('INSERT INTO users VALUES (?)', (name,))",
  "con.execute(\"SELECT name FROM users WHERE name = '%s'\" % name).fetchall()",
].join("\n");

const page = () => sandpit.page;
/** The run `index` (0: the oldest on the page). */
const entry = (index) => page().getByTestId("run-entry").nth(index);

/** Waits until the session picker shows `name`. */
async function sessionShown(name) {
  await page().waitForFunction((n) => /** @type {HTMLSelectElement} */ (document.querySelector('[data-testid="session"]')).value === n, name);
}

describe("a failed run's fix", () => {
  test("Apply fix puts the fixed code in the editor from the keyboard, undo takes it back, and it runs", async () => {
    const broken = "words = ['b', 'a']\nprint(json.dumps(sorted(words)))";
    const index = await sandpit.submit(broken);
    const failed = await sandpit.result(index);
    assert.equal(failed.phase, "error");
    const fix = entry(index).locator(".sandpit-fix");
    assert.equal(await fix.getAttribute("data-sandpit-verified"), "true");
    assert.equal(await fix.locator(".sandpit-fix-summary").textContent(), "Fix: import json (verified: Sandpit ran the fixed code and it worked)");
    assert.deepEqual(await fix.locator(".sandpit-diff-added").allTextContents(), ["+import json\n"]);
    const apply = fix.getByTestId("apply-fix");
    assert.equal(await apply.getAttribute("aria-label"), "Apply fix: import json");

    await apply.focus();
    await page().keyboard.press("Enter");
    const fixed = `import json\n${broken}`;
    await sandpit.waitForCode(fixed);
    assert.match(await fix.getByRole("status").textContent(), /In the editor now/);
    await page().getByTestId("code").focus();
    await page().keyboard.press("Control+z");
    await sandpit.waitForCode(broken);
    await page().keyboard.press("Control+y");
    await sandpit.waitForCode(fixed);

    await page().getByTestId("run").click();
    const ran = await sandpit.result(index + 1);
    assert.equal(ran.phase, "ok");
    assert.deepEqual(ran.output, [{ stream: "stdout", text: '["a", "b"]\n' }]);
    await screenshot(page(), "fix-applied");
  });

  test("a run of another session gets its fix in that session's editor", async () => {
    await sandpit.newSession("fix-elsewhere");
    const index = await sandpit.submit("c = Counter('abca')\nc.most_common(1)");
    await sandpit.result(index);
    await sandpit.selectSession("main");
    await sessionShown("main");
    const mainCode = await sandpit.code();
    await entry(index).getByTestId("apply-fix").click();
    await sessionShown("fix-elsewhere");
    await sandpit.waitForCode("from collections import Counter\nc = Counter('abca')\nc.most_common(1)");
    await sandpit.selectSession("main");
    await sandpit.waitForCode(mainCode);
  });

  test("an unproven fix says so and what its trial gave, and is still offered", async () => {
    await sandpit.selectSession("main");
    const index = await sandpit.submit("area = math.pi * radius ** 2");
    await sandpit.result(index);
    const fix = entry(index).locator(".sandpit-fix");
    assert.equal(await fix.getAttribute("data-sandpit-verified"), "false");
    assert.match(await fix.locator(".sandpit-fix-summary").textContent(), /^Fix: import math \(not verified: the fixed program raised NameError: name 'radius' is not defined/);
    assert.equal(await fix.getByTestId("apply-fix").count(), 1);
  });
});

describe("a warning's fix", () => {
  test("is shown on a run that worked, not as an error, and Apply puts the parameterized query in the editor", async () => {
    const index = await sandpit.submit(STRING_BUILT_SQL);
    const result = await sandpit.result(index);
    assert.equal(result.phase, "ok");
    const warning = entry(index).locator('.sandpit-warnings li[data-sandpit-rule="sql-built-from-strings"]');
    assert.match(await warning.textContent(), /^Line 6: /);
    const color = (locator) => locator.evaluate((node) => getComputedStyle(node).color);
    const errorColour = await page().locator(".run-error").first().evaluate((node) => getComputedStyle(node).color);
    assert.notEqual(await color(warning), errorColour, "not in an error's colour");
    await warning.getByTestId("apply-fix").click();
    const fixed = await sandpit.waitForCode((text) => text.includes("WHERE name = ?"));
    assert.ok(fixed.endsWith(`con.execute("SELECT name FROM users WHERE name = ?", (name,)).fetchall()`), fixed);
    const ran = await sandpit.result(await sandpit.submit(fixed));
    assert.equal(ran.phase, "ok");
    assert.equal(ran.value, "[('ada',)]");
    assert.equal(await entry(index + 1).locator(".sandpit-warnings").count(), 0, "the fixed code warns of nothing");
  });
});

describe("the editor's check", () => {
  test("offers its syntax fix and the lint's on the marks, applied from the lint panel with the keyboard", async () => {
    await sandpit.setCode("def double(x)\n    return x * 2\n");
    // The gutter's marker: the mark itself is a point, at the end of the line.
    await page().locator(".cm-lint-marker-error").waitFor();
    await page().getByTestId("code").focus();
    await page().keyboard.press("Control+Shift+KeyM");
    const action = page().locator(".cm-panel-lint button.cm-diagnosticAction", { hasText: "Apply fix" });
    await action.waitFor();
    assert.match(await page().locator(".cm-panel-lint").textContent(), /Fix, not verified: add ':' after `def double\(x\)`/);
    // In the panel, a diagnostic's action goes by its access key: "a" for Apply fix.
    assert.match(await action.getAttribute("aria-label"), /Action: Apply fix \(access key "A/);
    await page().keyboard.press("Home");
    await page().keyboard.press("a");
    await sandpit.waitForCode("def double(x):\n    return x * 2\n");
    await page().locator(".cm-lint-marker-error").waitFor({ state: "detached" });
    await page().keyboard.press("Escape");
    await page().locator(".cm-panel-lint").waitFor({ state: "detached" });

    // Dangerous code is warned of where it is, its fix offered the same way.
    await sandpit.setCode(STRING_BUILT_SQL);
    const warned = page().locator(".cm-lintRange-warning");
    await warned.waitFor();
    assert.match(await warned.textContent(), /^con\.execute\(/);
    await page().getByTestId("code").focus();
    await page().keyboard.press("Control+Shift+KeyM");
    assert.match(await page().locator(".cm-panel-lint").textContent(), /\[sql-built-from-strings\]\nFix, not verified: /);
    await page().keyboard.press("Home");
    await page().keyboard.press("a");
    await sandpit.waitForCode((text) => text.includes("WHERE name = ?"));
    await page().keyboard.press("Escape");
  });
});

describe("a failed formula check in a run's tests", () => {
  test("shows its formulas with KaTeX in that test's row", async () => {
    await page().waitForFunction(() => navigator.modelContextTesting.listTools().length === 3);
    const tests = [
      "from sandpit import verify",
      "def test_identity():",
      "    verify.equivalent('sin(x)**2 + cos(x)**2', '1', 'x')",
      "def test_square():",
      "    verify.equivalent(square('x'), '(x + 1)**2', 'x')",
    ].join("\n");
    const answer = await page().evaluate(
      async (args) => JSON.parse(await navigator.modelContextTesting.executeTool("run_python", JSON.stringify(args))),
      { code: "def square(x):\n    return f'{x}**2 + {x} + 1'", tests },
    );
    assert.match(answer.content[0].text, /FAILED test_square/);
    const run = page().locator('[data-testid="run-entry"]', { hasText: "def square(x):" }).last();
    const failed = run.locator('.sandpit-tests li[data-sandpit-passed="false"]');
    assert.match(await failed.textContent(), /test_square/);
    await failed.locator(".sandpit-test-error .katex").first().waitFor();
    assert.equal(await failed.locator(".katex").count(), 3, "both sides, and the point where they differ");
    assert.match(await failed.locator(".sandpit-test-error").textContent(), /^VerificationError: /);
    assert.equal(await run.locator('.sandpit-tests li[data-sandpit-passed="true"] .katex').count(), 0);
    await failed.scrollIntoViewIfNeeded();
    await screenshot(page(), "fix-formula");
  });
});

describe("accessibility", () => {
  test("runs showing a fix, a warning and formulas have no serious or critical axe violation, light or dark", async () => {
    assert.ok((await page().locator(".sandpit-fix").count()) > 0);
    assert.ok((await page().locator(".sandpit-warnings").count()) > 0);
    for (const theme of ["light", "dark"]) {
      await page().getByTestId("theme").selectOption(theme);
      assert.deepEqual(await seriousViolations(page()), [], `${theme} theme`);
      await screenshot(page(), `fixes-${theme}`);
    }
    await page().getByTestId("theme").selectOption("system");
  });
});
