// @ts-check
// What Sandpit proposes beside a run, as clients on other origins get it:
// the official MCP SDK client over postMessage to the widget (a fix tried
// before it is offered, or offered as not verified; a check's syntax fix;
// the lint's warnings with their fixes; a figure's summary; a trial that
// leaves nothing in the session), and the embedding client's rendering of
// runs into the embedding page (fixes, warnings, formulas with KaTeX).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { serveDemo } from "../../scripts/serve.mjs";
import { startApp } from "./harness.mjs";
import { READY_TIMEOUT_MS } from "./harness/timeouts.mjs";
import { connectClient, hostFiles } from "./sdk-host.mjs";

/** A sqlite3 table and a query built into the SQL with an f-string (a value with a quote would change it). */
const STRING_BUILT_SQL = [
  "import sqlite3",
  "con = sqlite3.connect(':memory:')",
  "cur = con.cursor()",
  "cur.execute('CREATE TABLE users (name TEXT, age INT)')",
  "cur.execute(\"INSERT INTO users VALUES ('bob', 30)\")",
  "name = 'bob'",
  "cur.execute(f\"SELECT age FROM users WHERE name = '{name}'\")",
  "cur.fetchall()",
].join("\n");

/**
 * A figure with one axes and nothing plotted on it. matplotlib itself comes
 * from the CDN, which tests cannot reach: this stand-in has the parts of
 * matplotlib's object model the summary reads, behind a stand-in pyplot
 * that the runner's capture finds as it finds the real one.
 */
const STAND_IN_FIGURE = [
  "import sys, types, base64",
  "PNG = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==')",
  "class Axes:",
  "    collections, containers = [], []",
  "    def get_title(self): return 'Growth'",
  "    def get_xlabel(self): return 'day'",
  "    def get_ylabel(self): return 'count'",
  "    def get_legend(self): return None",
  "    def get_lines(self): return []",
  "    def get_images(self): return []",
  "class Figure:",
  "    def get_axes(self): return [Axes()]",
  "    def savefig(self, buffer, format, bbox_inches): buffer.write(PNG)",
  "figures = {1: Figure()}",
  "pyplot = types.ModuleType('matplotlib.pyplot')",
  "pyplot.get_fignums = lambda: sorted(figures)",
  "pyplot.figure = lambda n: figures[n]",
  "pyplot.close = lambda which: figures.clear()",
  "sys.modules['matplotlib.pyplot'] = pyplot",
].join("\n");

/** Tests of `square` (which is wrong) by a formula check: its failure names both formulas and a point, in `$...$`. */
const FORMULA_TESTS = "from sandpit import verify\nimport sympy\nx = sympy.Symbol('x')\nassert verify.equivalent(square(x), (x + 1)**2, x)";

let host;
let app;
/** @type {import("./harness/page.mjs").SandpitPage} */
let sandpit;

before(async () => {
  host = await serveDemo({ files: await hostFiles() });
  app = await startApp({ embedOrigins: [new URL(host.url).origin] });
  host.setApp(app.url);
});

after(async () => {
  await app?.close();
  await host?.close();
});

/** A tool call through the SDK client the host page connected (`connect`). */
function call(name, args) {
  return sandpit.page.evaluate(({ name, args }) => window.client.callTool({ name, arguments: args }), { name, args });
}

/** The widget's frame in the host page. */
const widget = () => {
  const frame = sandpit.page.frames().find((f) => f.url().includes("/widget.html"));
  assert.ok(frame, "the widget's frame");
  return frame;
};

describe("the official MCP SDK client over postMessage", () => {
  before(async () => {
    sandpit = await app.newPage();
    await sandpit.page.goto(new URL("host.html", host.url).href);
    await sandpit.page.waitForFunction(() => window.mcp);
    assert.equal(await connectClient(sandpit.page, new URL("widget.html", app.url).href, "fixes-test"), "connected");
  });
  after(async () => {
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });

  test("a failing run comes back with a verified fix, named in the text's first line, its diff below", async () => {
    const result = await call("run_python", { code: "x = math.sqrt(16)\nprint(x)" });
    assert.equal(result.isError, true);
    const text = result.content[0].text;
    assert.equal(text.split("\n")[0], "The code raised an exception. Sandpit found a fix and ran it: it works (import math).");
    assert.match(text, /\n--- fix, verified: import math ---\n--- submitted\n\+\+\+ fixed\n@@ [^\n]+ @@\n\+import math\n x = math\.sqrt\(16\)/);
    const { fix } = result.structuredContent.error;
    assert.equal(fix.verified, true);
    assert.equal(fix.outcome, null);
    assert.equal(fix.code, "import math\nx = math.sqrt(16)\nprint(x)");
    assert.ok(Number.isInteger(fix.trial_ms), "says what proving it cost");
    // The widget shows it under the error; it has no editor, so nothing to apply it to.
    const shown = widget().locator('[data-testid="run-entry"][data-phase="error"] .sandpit-fix[data-sandpit-verified="true"]');
    await shown.waitFor();
    assert.equal(await shown.locator(".sandpit-fix-summary").textContent(), "Fix: import math (verified: Sandpit ran the fixed code and it worked)");
    assert.deepEqual(await shown.locator(".sandpit-diff-added").allTextContents(), ["+import math\n"]);
    assert.equal(await widget().getByTestId("apply-fix").count(), 0);
  });

  test("a fix whose trial fails is offered as not verified, with what its trial gave", async () => {
    const result = await call("run_python", { code: "area = math.pi * radius ** 2" });
    const text = result.content[0].text;
    assert.equal(text.split("\n")[0], "The code raised an exception. Sandpit suggests a fix it could not prove (import math).");
    assert.match(text, /--- fix, not verified \(the fixed program raised NameError: name 'radius' is not defined[^)]*\): import math ---/);
    const { fix } = result.structuredContent.error;
    assert.equal(fix.verified, false);
    assert.equal(fix.outcome.status, "error");
    assert.equal(fix.outcome.error_type, "NameError");
    const shown = widget().locator('.sandpit-fix[data-sandpit-verified="false"]');
    await shown.waitFor();
    assert.match(await shown.locator(".sandpit-fix-summary").textContent(), /^Fix: import math \(not verified: the fixed program raised NameError/);
  });

  test("an error with no mechanical fix gets none", async () => {
    const result = await call("run_python", { code: "1 / 0" });
    assert.equal(result.structuredContent.error.fix, undefined);
    assert.doesNotMatch(result.content[0].text, /fix/);
  });

  test("check_python offers a syntax fix, not verified since a check runs nothing, and names dangerous code", async () => {
    const syntax = await call("check_python", { code: "def double(x)\n    return x * 2" });
    const { fix } = syntax.structuredContent.syntax_error;
    assert.equal(fix.summary, "add ':' after `def double(x)`");
    assert.equal(fix.verified, false);
    assert.equal(fix.outcome.status, "not_run");
    assert.equal(fix.code, "def double(x):\n    return x * 2");
    assert.match(syntax.content[0].text, /--- fix, not verified \(not tried: a check runs nothing[^\n]*\): add ':' after `def double\(x\)` ---\n/);

    const dangerous = await call("check_python", { code: STRING_BUILT_SQL });
    assert.equal(dangerous.isError, false);
    const [warning] = dangerous.structuredContent.warnings;
    assert.equal(warning.rule, "sql-built-from-strings");
    assert.equal(warning.line, 7);
    assert.equal(warning.fix.verified, false, "not tried");
    assert.match(dangerous.content[0].text, /--- warnings ---\nline 7: \[sql-built-from-strings\] /);
  });

  test("a run with string-built SQL ends ok, with a warning whose parameterized fix was tried", async () => {
    const result = await call("run_python", { code: STRING_BUILT_SQL });
    assert.equal(result.isError, false);
    const { status, warnings, value } = result.structuredContent;
    assert.equal(status, "ok");
    assert.equal(value.repr, "[(30,)]");
    assert.equal(warnings.length, 1);
    const [warning] = warnings;
    assert.equal(warning.rule, "sql-built-from-strings");
    assert.equal(warning.line, 7);
    assert.equal(warning.fix.verified, true);
    assert.ok(warning.fix.code.includes('cur.execute("SELECT age FROM users WHERE name = ?", (name,))'), warning.fix.code);
    assert.match(result.content[0].text, /--- warnings ---\nline 7: \[sql-built-from-strings\] [^\n]+\nfix \(verified\): /);
    const shown = widget().locator('[data-testid="run-entry"][data-phase="ok"] .sandpit-warnings li[data-sandpit-rule="sql-built-from-strings"]');
    await shown.waitFor();
    assert.match(await shown.textContent(), /^Line 7: /);
    assert.equal(await shown.locator(".sandpit-fix").getAttribute("data-sandpit-verified"), "true");
  });

  test("a fix's trial leaves nothing in the session: no name, no file, no output", async () => {
    await call("run_python", { code: "kept = 1\nopen('kept.txt', 'w').write('k')", session: "trial" });
    // The run stops at line 2; its fixed program goes on to set a name, write a file and print, in its trial only.
    const code = "print('before')\nprint(math.pi)\nafter = 2\nopen('after.txt', 'w').write('a')\nprint('after')";
    const failed = await call("run_python", { code, session: "trial" });
    const { error, stdout, artifacts } = failed.structuredContent;
    assert.equal(error.fix.verified, true, "the trial ran to the end");
    assert.equal(stdout, "before\n");
    assert.deepEqual(artifacts, []);
    assert.match(failed.content[0].text, /--- stdout ---\nbefore\n--- error ---/);
    assert.doesNotMatch(failed.content[0].text, /after\n|3\.14159/, "nothing the trial printed");
    const names = await call("run_python", { code: "sorted(n for n in globals() if not n.startswith('_'))", session: "trial" });
    assert.deepEqual(names.structuredContent.value.json, ["kept"]);
    const files = await call("run_python", { code: "sorted(__import__('os').listdir('.'))", session: "trial" });
    assert.deepEqual(files.structuredContent.value.json, ["kept.txt"]);
  });

  test("a figure's display carries its summary, and an axes with nothing plotted is warned of", async () => {
    // A stand-in for matplotlib, which cannot be fetched here (see STAND_IN_FIGURE).
    const result = await call("run_python", { code: STAND_IN_FIGURE });
    const { displays, warnings } = result.structuredContent;
    assert.equal(displays.length, 1);
    assert.ok(displays[0]["image/png"]?.startsWith("iVBOR"));
    assert.deepEqual(displays[0]["application/vnd.sandpit.figure+json"], {
      axes: [{ title: "Growth", xlabel: "day", ylabel: "count", legend: [], series: [] }],
    });
    assert.deepEqual(
      warnings.map((w) => [w.rule, w.line]),
      [["figure-empty-axes", null]],
    );
    assert.match(result.content[0].text, /--- warnings ---\n\[figure-empty-axes\] figure 1, axes 1 \('Growth'\) has nothing plotted\./);
    await call("run_python", { code: "import sys\ndel sys.modules['matplotlib.pyplot']" });
  });
});

describe("the embedding client's rendering into the embedding page", () => {
  test("shows a run's fix with its diff, its warnings, and a failed formula check with KaTeX", async () => {
    sandpit = await app.newPage();
    await sandpit.page.goto(new URL("host.html", host.url).href);
    await sandpit.page.evaluate(
      async ({ appUrl, timeoutMs, sql, formulaTests }) => {
        const { Sandpit } = await import(new URL("sandpit-client.js", appUrl).href);
        const widget = await Sandpit.create({ timeoutMs });
        for (const [id, code, tests] of [
          ["fixed", "print(json.dumps([1]))", undefined],
          ["warned", sql, undefined],
          ["formula", "def square(x):\n    return x**2 + x + 1", formulaTests],
        ]) {
          const target = document.createElement("div");
          target.id = id;
          document.body.append(target);
          await widget.run(code, { target, tests });
        }
      },
      { appUrl: app.url, timeoutMs: READY_TIMEOUT_MS, sql: STRING_BUILT_SQL, formulaTests: FORMULA_TESTS },
    );
    const page = sandpit.page;
    const fix = page.locator('#fixed .sandpit-fix[data-sandpit-verified="true"]');
    assert.equal(await fix.locator(".sandpit-fix-summary").textContent(), "Fix: import json (verified: Sandpit ran the fixed code and it worked)");
    assert.equal(await fix.locator(".sandpit-diff-added").textContent(), "+import json\n");
    const warning = page.locator('#warned .sandpit-warnings li[data-sandpit-rule="sql-built-from-strings"]');
    assert.match(await warning.textContent(), /^Line 7: .+\[sql-built-from-strings\]Fix: /);
    assert.equal(await warning.locator(".sandpit-fix").getAttribute("data-sandpit-verified"), "true");
    // KaTeX comes from the widget's deployment, on another origin, the first time a formula shows.
    const failed = page.locator('#formula .sandpit-tests li[data-sandpit-passed="false"]');
    await failed.locator(".sandpit-test-error .katex").first().waitFor();
    assert.match(await failed.locator(".sandpit-test-error").textContent(), /^VerificationError: /);
    assert.equal(await page.locator("#formula .katex").count(), 3, "both formulas and the point where they differ");
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});
