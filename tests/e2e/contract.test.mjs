// @ts-check
// The run contract, end to end: every result field, every error kind, sessions.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { useSandpit } from "./harness.mjs";

/** A 1x1 PNG, base64. */
const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("the run contract", () => {
  let sandpit;

  useSandpit((page) => {
    sandpit = page;
  });

  test("a result carries streams, the ordered output, the value as repr and JSON, and a duration", async () => {
    const { json } = await sandpit.run(
      "import sys\nprint('out')\nprint('err', file=sys.stderr)\n{'a': [1, 2.5, None, True]}",
    );
    assert.equal(json.status, "ok");
    assert.equal(json.stdout, "out\n");
    assert.equal(json.stderr, "err\n");
    assert.deepEqual(json.output, [
      { stream: "stdout", text: "out\n" },
      { stream: "stderr", text: "err\n" },
    ]);
    assert.deepEqual(json.value, {
      repr: "{'a': [1, 2.5, None, True]}",
      json: { a: [1, 2.5, null, true] },
      truncated: false,
    });
    assert.ok(json.duration_ms > 0);
    assert.deepEqual(json.truncated, { output: false, output_bytes_total: 8, displays: false });
    assert.equal(json.error, null);
    assert.equal(json.exit_code, null);
    assert.equal(json.restored, null);
  });

  test("a value JSON cannot express keeps its repr and has no JSON", async () => {
    const { json } = await sandpit.run("{3, 1, 2}");
    assert.deepEqual(json.value, { repr: "{1, 2, 3}", json: null, truncated: false });
  });

  test("the value is the last expression's however the code is laid out, and an error in it keeps its line", async () => {
    // The runner splits the last line off by looking at the lines, and falls
    // back to Python's parse tree where that look can be fooled; each case
    // here takes one of those ways (the runner's `compile_cell`).
    const cases = [
      ["1 + 1", "2"],
      ["x = 6\nx * 7", "42"],
      ["x = 1\n\n# done\n", null],
      ["def f(*args):\n    return len(args)\nf(\n    1,\n    2,\n)", "2"],
      ["y = f'''\n{6 * 7}\n'''\ny.strip()", "'42'"],
      ["x = 1 + \\\n2", null],
      ["n = 2 + \\\n3\nn", "5"],
      ["a = 5; a", "5"],
      ["if True:\n    z = 3\nz", "3"],
      ["x = 4\r\nx\r\n", "4"],
      ["x = 4\rx", "4"],
      ["import asyncio\nawait asyncio.sleep(0)\n40 + 2", "42"],
      ["import asyncio\nasync def f():\n    return 42\nawait f()", "42"],
      ['text = """\n1 + 1\n"""', null],
    ];
    for (const [code, value] of cases) {
      const result = await sandpit.run(code);
      assert.equal(result.phase, "ok", `${JSON.stringify(code)}: ${JSON.stringify(result.json.error)}`);
      assert.equal(result.value, value, JSON.stringify(code));
    }
    const { json } = await sandpit.run("x = 0\n\n1 / x");
    assert.equal(json.error.type, "ZeroDivisionError");
    assert.deepEqual([json.error.line, json.error.column], [3, 1]);
    assert.match(json.error.traceback, /line 3, in <module>/);
    // A lone carriage return ends a line too: Python counts it, so must the runner.
    const cr = await sandpit.run("x = 0\ry = 1\n1 / x");
    assert.equal(cr.json.error.line, 3);
  });

  test("a string, a number or a bool is its own JSON; NaN has none", async () => {
    for (const [code, expected] of [
      ["'two'", "two"],
      ["2", 2],
      ["-0.5", -0.5],
      ["True", true],
    ]) {
      const { json } = await sandpit.run(code);
      assert.deepEqual(json.value.json, expected, String(code));
    }
    const nan = await sandpit.run("float('nan')");
    assert.deepEqual(nan.json.value, { repr: "nan", json: null, truncated: false });
  });

  test("code runs as __main__", async () => {
    const result = await sandpit.run("__name__");
    assert.equal(result.value, "'__main__'");
  });

  test("display() and _repr_*_ methods give MIME bundles, rendered safely", async () => {
    const result = await sandpit.run(
      [
        "class Card:",
        "    def __repr__(self): return 'Card()'",
        "    def _repr_html_(self): return '<b>bold</b><script>parent.document.title = \"pwned\"</script>'",
        `    def _repr_png_(self): import base64; return base64.b64decode('${PNG_1PX}')`,
        "    def _repr_svg_(self): return '<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"/>'",
        "class Note:",
        "    def _repr_markdown_(self): return '# Title'",
        "    def _repr_json_(self): return {'k': [1, 2]}",
        "display(Note())",
        "display('plain')",
        "Card()",
      ].join("\n"),
    );
    assert.equal(result.phase, "ok");
    const [note, plain, card] = result.json.displays;
    assert.equal(note["text/markdown"], "# Title");
    assert.deepEqual(note["application/json"], { k: [1, 2] });
    assert.deepEqual(plain, { "text/plain": "'plain'" });
    assert.equal(card["text/plain"], "Card()");
    assert.match(card["text/html"], /<b>bold<\/b>/);
    assert.equal(card["image/png"], PNG_1PX);
    assert.match(card["image/svg+xml"], /^<svg/);
    assert.equal(result.json.value.repr, "Card()", "the last value also has its repr");

    // HTML only ever inside a sandboxed frame with an opaque origin.
    const html = result.displays.find((d) => d.mime === "text/html");
    assert.deepEqual(html, { mime: "text/html", tag: "iframe", sandbox: "allow-scripts" });
    const frame = sandpit.page.frames().find((f) => f !== sandpit.page.mainFrame());
    await frame.waitForLoadState();
    const reach = await frame.evaluate(() => {
      try {
        return parent.document.title;
      } catch (error) {
        return `blocked: ${error.name}`;
      }
    });
    assert.equal(reach, "blocked: SecurityError");
    assert.notEqual(await sandpit.page.title(), "pwned");
    assert.equal(await frame.evaluate(() => origin), "null", "an opaque origin");
    // The output's own script tried to reach the page and was stopped by the browser.
    const blocked = /Blocked a frame with origin "null" from accessing a cross-origin frame/;
    assert.ok(sandpit.errors.some((e) => blocked.test(e)), "the frame's attempt was blocked");
    await sandpit.assertHealthy({ allow: [blocked] });
  });

  test("an error has type, message, line, column, source context and a traceback without runner frames", async () => {
    const { json } = await sandpit.run(
      "def ratio(a, b):\n    return a / b\n\nvalues = [1, 2]\nprint('start')\nratio(values[0], 0)\nprint('never')",
    );
    assert.equal(json.status, "error");
    assert.equal(json.stdout, "start\n", "output before the error is kept");
    const error = json.error;
    assert.equal(error.type, "ZeroDivisionError");
    assert.equal(error.message, "division by zero");
    assert.equal(error.line, 2, "the innermost line in the user's code");
    assert.equal(error.column, 12);
    assert.equal(error.end_column, 17);
    assert.deepEqual(
      error.source.map((l) => l.line),
      [1, 2, 3, 4],
    );
    assert.equal(error.source[1].text, "    return a / b");
    assert.match(error.traceback, /line 6, in <module>/);
    assert.match(error.traceback, /line 2, in ratio/);
    assert.doesNotMatch(error.traceback, /sandpit_runner/);
    assert.equal(error.hint, null);
  });

  test("a SyntaxError gives the caret position", async () => {
    const result = await sandpit.run("x = (1 +\ny = 2");
    const error = result.json.error;
    assert.equal(error.type, "SyntaxError");
    assert.equal(error.line, 1);
    assert.equal(error.column, 5);
    assert.match(error.traceback, /\^/);
    const caret = await sandpit.page.getByTestId("caret").last().textContent();
    assert.match(caret, /^ {4}\^/, "the caret sits under column 5");
  });

  test("an IndentationError gives its line and column", async () => {
    const { json } = await sandpit.run("def f():\nreturn 1");
    assert.equal(json.error.type, "IndentationError");
    assert.equal(json.error.line, 2);
    assert.equal(json.error.column, 1);
  });

  test("a missing module gets a module_not_found hint", async () => {
    const result = await sandpit.run("import definitely_not_a_module");
    assert.equal(result.errorType, "ModuleNotFoundError");
    assert.equal(result.hint, "module_not_found");
    assert.match(result.json.error.hint.message, /No module 'definitely_not_a_module' here/);
  });

  test("input() fails at once with a clear error and hint, after showing its prompt", async () => {
    const result = await sandpit.run("name = input('Your name? ')\nprint('hi', name)");
    assert.equal(result.phase, "error");
    assert.equal(result.errorType, "StdinUnavailableError");
    assert.equal(result.hint, "input_unsupported");
    assert.equal(result.json.stdout, "Your name? ");
    assert.equal(result.json.error.line, 1);
  });

  test("reading stdin fails the same way, and code reading until EOF just stops", async () => {
    const direct = await sandpit.run("import sys\nsys.stdin.read()");
    assert.equal(direct.hint, "input_unsupported");
    const until_eof = await sandpit.run(
      "lines = []\ntry:\n    while True:\n        lines.append(input())\nexcept EOFError:\n    pass\nlen(lines)",
    );
    assert.equal(until_eof.value, "0");
  });

  test("sys.exit(n) ends the run normally with its code, keeping output", async () => {
    const result = await sandpit.run("import sys\nprint('bye')\nsys.exit(3)\nprint('never')");
    assert.equal(result.phase, "ok");
    assert.equal(result.json.exit_code, 3);
    assert.equal(result.json.stdout, "bye\n");
    assert.equal(result.exitCode, "Exited with code 3");
    const message = await sandpit.run("import sys\nsys.exit('fatal: bad input')");
    assert.equal(message.json.exit_code, 1);
    assert.equal(message.json.stderr, "fatal: bad input\n");
  });

  test("a million printed lines are truncated and the page stays responsive", async () => {
    const index = await sandpit.submit("for i in range(1_000_000):\n    print(i)");
    await sandpit.setCode("typing while it runs");
    const result = await sandpit.result(index);
    assert.equal(result.phase, "ok");
    assert.equal(result.json.truncated.output, true);
    assert.equal(result.json.truncated.output_bytes_total, 6_888_890);
    assert.equal(result.json.stdout.length, 256 * 1024);
    assert.ok(result.json.stdout.startsWith("0\n1\n2\n"));
    assert.match(result.truncated, /of 6\.9 MB/);
  });
});

describe("sessions", () => {
  let sandpit;

  useSandpit((page) => {
    sandpit = page;
  });

  test("two sessions don't see each other's variables", async () => {
    await sandpit.run("secret = 'main only'");
    await sandpit.newSession("other");
    const other = await sandpit.run("secret");
    assert.equal(other.errorType, "NameError");
    await sandpit.run("secret = 'other only'");
    await sandpit.selectSession("main");
    assert.equal((await sandpit.run("secret")).value, "'main only'");
    await sandpit.selectSession("other");
    assert.equal((await sandpit.run("secret")).value, "'other only'");
  });

  test("reset empties a session; delete removes it from the picker", async () => {
    await sandpit.selectSession("other");
    await sandpit.run("kept = 1");
    await sandpit.clearSession("reset-session");
    assert.equal((await sandpit.run("kept")).errorType, "NameError");
    assert.deepEqual(await sandpit.sessionNames(), ["main", "other"]);
    await sandpit.clearSession("delete-session");
    assert.deepEqual(await sandpit.sessionNames(), ["main"]);
    assert.equal(await sandpit.page.getByTestId("session").inputValue(), "main");
    assert.equal(
      await sandpit.page.getByTestId("delete-session").isDisabled(),
      true,
      "the last session cannot be deleted",
    );
    assert.equal((await sandpit.run("secret")).value, "'main only'", "other sessions are untouched");
  });
});
