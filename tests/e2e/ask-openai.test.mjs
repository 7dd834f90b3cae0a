// @ts-check
// The Ask panel with an OpenAI-compatible endpoint: a model writes the code,
// Sandpit runs and checks it, the model repairs it; the conversation's
// exports, errors sent back to the model, HTTP failures, Stop and the step
// limit. The model is the stub server of ask-panel.mjs; everything else is
// the real app, its worker and Python. One app and one page for the file.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { describe, test } from "node:test";

import Ajv from "ajv";

import { KEY, MODEL, runCall, toolMessages, useAskPanel } from "./ask-panel.mjs";
import { ROOT } from "./harness.mjs";
import { seriousViolations } from "./harness/axe.mjs";

/** @type {Awaited<ReturnType<typeof import("./model-stub.mjs").startModelStub>>} */
let stub;
/** @type {import("./harness/page.mjs").SandpitPage} */
let sandpit;
const { settings, panel, fresh, ask, settled, notes } = useAskPanel((ready) => {
  ({ stub, sandpit } = ready);
});

/** Resolves once `condition()` holds (checked every 20 ms, for at most 5 s). */
async function until(condition, what) {
  for (let tries = 0; tries < 250 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(condition(), what);
}

describe("the Ask panel with an OpenAI-compatible endpoint", () => {
  test("solves a task in one step: the code runs with its tests, and the answer is verified", async () => {
    await fresh();
    const code = "def add(a, b):\n    return a + b";
    const args = JSON.stringify({ code, tests: "assert add(2, 3) == 5\n\ndef test_negative():\n    assert add(-1, -1) == -2" });
    stub.script(
      { text: ["I'll write ", "add()."], calls: [{ id: "call_1", name: "run_python", args: [args.slice(0, 15), args.slice(15)] }] },
      { text: ["add(2, 3) is 5."] },
    );
    // Shift+Enter is a new line, not a question.
    const input = sandpit.page.getByTestId("ask-input");
    await input.fill("Write add");
    await input.press("Shift+Enter");
    await input.pressSequentially("for two numbers");
    assert.equal(await input.inputValue(), "Write add\nfor two numbers");
    assert.equal(stub.requests.length, 0);
    await input.press("Enter");
    await settled();

    assert.equal(stub.requests.length, 2);
    const [first, second] = stub.requests;
    assert.equal(first.path, "/openai/v1/chat/completions");
    assert.equal(first.headers.authorization, `Bearer ${KEY}`, "the key goes to the endpoint it was entered for");
    assert.equal(first.body.model, MODEL);
    assert.equal(first.body.stream, true);
    assert.deepEqual(first.body.tools.map((t) => t.function.name), ["run_python", "check_python", "reset_session"]);
    assert.ok(first.body.tools[0].function.parameters.properties.tests, "the tool's schema offers tests");
    assert.match(first.body.tools[0].function.description, /Send `tests` with the code/);
    assert.equal(first.body.messages.at(-1).content, "Write add\nfor two numbers");
    const [result] = toolMessages(second);
    assert.match(result, /^Ran in \d+ ms\./);
    assert.match(result, /--- tests ---\nAll 2 test\(s\) passed\./);
    assert.match(result, /structuredContent: \{.*"verification":\{"passed":true/);

    const answer = sandpit.page.getByTestId("ask-answer");
    assert.equal(await answer.first().getByTestId("ask-text").textContent(), "I'll write add().");
    const tests = answer.first().locator(".sandpit-tests li");
    assert.deepEqual(await tests.evaluateAll((nodes) => nodes.map((n) => /** @type {HTMLElement} */ (n).dataset.sandpitPassed)), ["true", "true"]);
    const verdict = sandpit.page.getByTestId("ask-verdict");
    assert.equal(await verdict.getAttribute("data-verified"), "true");
    assert.equal(await verdict.textContent(), "✓ Verified: the last run's 2 tests passed.");
    // The model's run is in the run list like any other, and opens in the editor.
    await sandpit.page.locator('[data-testid="run-entry"][data-phase="ok"]').filter({ hasText: "def add(a, b):" }).first().waitFor();
    await answer.first().getByTestId("ask-open-code").click();
    // The editor takes it as one change once the click's effects have run.
    let opened = await sandpit.code();
    for (let tries = 0; opened !== code && tries < 20; tries++) opened = await sandpit.code();
    assert.equal(opened, code);
  });

  test("exports the conversation as a valid nbformat 4 notebook and the final code as a .py file", async () => {
    const [notebookDownload] = await Promise.all([
      sandpit.page.waitForEvent("download"),
      sandpit.page.getByTestId("ask-export-notebook").click(),
    ]);
    assert.match(notebookDownload.suggestedFilename(), /^sandpit-.*\.ipynb$/);
    const notebook = JSON.parse(await readFile(await notebookDownload.path(), "utf8"));
    // nbformat's own v4 schema (tests/fixtures/nbformat.v4.schema.json, from
    // the nbformat 5.11.1 wheel). It is draft-04; it uses nothing whose
    // meaning draft-07 changed, so Ajv's default draft checks it once told
    // not to look the draft-04 meta-schema up.
    const schema = JSON.parse(readFileSync(join(ROOT, "tests/fixtures/nbformat.v4.schema.json"), "utf8"));
    delete schema.$schema;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    assert.ok(validate(structuredClone(notebook)), JSON.stringify(validate.errors));
    assert.equal(notebook.nbformat, 4);
    const kinds = notebook.cells.map((cell) => cell.cell_type);
    assert.deepEqual(kinds, ["markdown", "markdown", "code", "code", "markdown"]);
    assert.equal(notebook.cells[2].source, "def add(a, b):\n    return a + b");
    assert.match(notebook.cells[4].source, /Verified/);

    const [pythonDownload] = await Promise.all([
      sandpit.page.waitForEvent("download"),
      sandpit.page.getByTestId("ask-export-python").click(),
    ]);
    const file = await readFile(await pythonDownload.path(), "utf8");
    assert.ok(file.startsWith("def add(a, b):\n    return a + b\n\n\n# Tests\nassert add(2, 3) == 5\n"), file);
  });

  test("a NameError on line 3 goes back with its type, line and hint, and the repair passes its tests", async () => {
    await fresh();
    const broken = "values = [1, 2, 3]\ntotal = sum(values)\nprint(totl)";
    const fixed = "values = [1, 2, 3]\ntotal = sum(values)\nprint(total)";
    stub.script(
      { calls: [runCall("call_a", broken, "assert total == 6")] },
      { text: ["A typo: totl."], calls: [runCall("call_b", fixed, "assert total == 6")] },
      { text: ["The total is 6."] },
    );
    await ask("Sum 1, 2 and 3");
    assert.equal(stub.requests.length, 3);
    const [failed] = toolMessages(stub.requests[1]);
    assert.match(failed, /^The code raised an exception\./);
    assert.match(failed, /line 3, in <module>/);
    assert.match(failed, /NameError: name 'totl' is not defined/);
    assert.match(failed, /--- hint ---\nDid you mean 'total'\? 'totl' is not defined when line 3 runs/);
    assert.match(failed, /"type":"NameError"/);
    assert.match(failed, /"line":3/);
    assert.match(failed, /"hint":\{"code":"undefined_name"/);
    const [, passed] = toolMessages(stub.requests[2]);
    assert.match(passed, /All 1 test\(s\) passed\./);
    // The repair shows what changed from the first attempt.
    const diff = sandpit.page.getByTestId("ask-diff");
    assert.equal(await diff.count(), 1);
    assert.equal(await diff.locator(".diff-removed").textContent(), "- print(totl)\n");
    assert.equal(await diff.locator(".diff-added").textContent(), "+ print(total)\n");
    assert.equal(await sandpit.page.getByTestId("ask-verdict").getAttribute("data-verified"), "true");
  });

  test("a verified fix goes to the model in the tool result's first line with its diff, and the panel shows it", async () => {
    await fresh();
    const broken = "stamp = datetime(2024, 1, 2).isoformat()\nprint(stamp)";
    const tests = "assert stamp == '2024-01-02T00:00:00'";
    stub.script(
      { calls: [runCall("f1", broken, tests)] },
      { text: ["Importing datetime, as Sandpit proposes."], calls: [runCall("f2", `from datetime import datetime\n${broken}`, tests)] },
      { text: ["Done."] },
    );
    await ask("Print 2 January 2024 in ISO format");
    const [result] = toolMessages(stub.requests[1]);
    assert.equal(result.split("\n")[0], "The code raised an exception. Sandpit found a fix and ran it: it works (from datetime import datetime).");
    assert.match(result, /\n--- fix, verified: from datetime import datetime ---\n--- submitted\n\+\+\+ fixed\n@@ [^\n]+ @@\n\+from datetime import datetime\n/);
    const fix = sandpit.page.getByTestId("ask-call").first().locator(".sandpit-fix");
    assert.equal(await fix.getAttribute("data-sandpit-verified"), "true");
    assert.match(await fix.locator(".sandpit-fix-summary").textContent(), /^Fix: from datetime import datetime \(verified/);
    assert.equal(await fix.getByTestId("apply-fix").count(), 1, "the page's editor can take it");
    assert.equal(await sandpit.page.getByTestId("ask-verdict").getAttribute("data-verified"), "true");
  });

  test("failing tests go back with the compared values, and the repair makes them pass", async () => {
    await fresh();
    const tests = "assert mean([1, 2, 3]) == 2";
    stub.script(
      { calls: [runCall("t1", "def mean(xs):\n    return sum(xs) / (len(xs) + 1)", tests)] },
      { calls: [runCall("t2", "def mean(xs):\n    return sum(xs) / len(xs)", tests)] },
      { text: ["mean() works."] },
    );
    await ask("Write mean");
    assert.equal(stub.requests.length, 3);
    const [first] = toolMessages(stub.requests[1]);
    assert.match(first, /--- tests ---\n1 test\(s\) failed, 0 passed\.\nFAILED assert mean\(\[1, 2, 3\]\) == 2 \(line 1 of the tests\)\nassert 1\.5 == 2\n \+  where 1\.5 = mean\(\[1, 2, 3\]\)/);
    assert.match(first, /"compared":\{"left":"1.5","op":"==","right":"2"\}/);
    const failedRun = sandpit.page.getByTestId("ask-call").first();
    assert.equal(await failedRun.getAttribute("data-failed"), "true", "a failed test makes the call an error");
    assert.equal(await failedRun.locator(".sandpit-test-explanation").textContent(), "assert 1.5 == 2\n +  where 1.5 = mean([1, 2, 3])");
    assert.equal(await sandpit.page.getByTestId("ask-verdict").getAttribute("data-verified"), "true");
  });

  test("the panel with a repair on screen, and the model's settings, have no serious axe violation, light or dark", async () => {
    await sandpit.page.getByTestId("ask-diff").waitFor();
    await sandpit.page.getByTestId("settings").locator("summary").click();
    await sandpit.page.getByTestId("model-settings").waitFor();
    for (const theme of ["light", "dark"]) {
      await sandpit.page.getByTestId("theme").selectOption(theme);
      assert.deepEqual(await seriousViolations(sandpit.page), [], `${theme} theme`);
    }
    await sandpit.page.getByTestId("theme").selectOption("system");
    await sandpit.page.getByTestId("settings").locator("summary").click();
  });

  test("a final answer whose last run failed its tests is marked not verified", async () => {
    await fresh();
    stub.script({ calls: [runCall("n1", "x = 1", "assert x == 2")] }, { text: ["x is 2."] });
    await ask("Make x two");
    const verdict = sandpit.page.getByTestId("ask-verdict");
    assert.equal(await verdict.getAttribute("data-verified"), "false");
    assert.equal(await verdict.textContent(), "✗ Not verified: the last run's tests failed.");
  });

  test("malformed tool arguments and an unknown tool get their error as the tool's result", async () => {
    await fresh();
    stub.script(
      {
        calls: [
          { id: "bad", name: "run_python", args: '{"code": "print(1)"' },
          { id: "odd", name: "run_shell", args: "{}" },
        ],
      },
      { text: ["Sorry, my call was broken."] },
    );
    const runsBefore = await sandpit.entryCount();
    await ask("Print 1");
    const [bad, odd] = toolMessages(stub.requests[1]);
    assert.match(bad, /^The arguments of run_python are not valid JSON \(.+\)\. Send the call again with its arguments as one JSON object\.$/);
    assert.equal(odd, 'there is no tool "run_shell"; the tools are run_python, check_python and reset_session');
    assert.equal(await sandpit.entryCount(), runsBefore, "nothing ran");
    const calls = sandpit.page.getByTestId("ask-call");
    assert.deepEqual(await calls.evaluateAll((nodes) => nodes.map((n) => /** @type {HTMLElement} */ (n).dataset.failed)), ["true", "true"]);
  });

  test("HTTP failures are said plainly: 401, 404, 429 waits and retries, a cut stream, an unreachable endpoint", async () => {
    await fresh();
    stub.script({ status: 401, body: '{"error": {"message": "Incorrect API key provided"}}' });
    await ask("one");
    stub.script({ status: 404, body: '{"error": {"message": "The model stub-model does not exist"}}' });
    await ask("two");
    stub.script({ status: 429, headers: { "retry-after": "1" }, body: "{}" }, { text: ["Answered after the wait."] });
    await ask("three");
    stub.script({ text: ["Half an ans"], cut: true });
    await ask("four");
    const said = await notes();
    assert.equal(said.length, 4);
    assert.equal(said[0][0], "failed");
    assert.match(said[0][1], /^The endpoint refused the API key \(HTTP 401\): check the key in Settings\. The endpoint said: Incorrect API key provided$/);
    assert.match(said[1][1], /^The endpoint knows no model "stub-model" \(HTTP 404\): check the model's name in Settings/);
    assert.deepEqual(said[2], ["waiting", "Rate limited by the endpoint (HTTP 429): waiting 1 s as it asks, then trying again (retry 1 of 3)."]);
    assert.match(said[3][1], /^The model's answer was cut off midway/);
    const [, , limited, retried] = stub.requests;
    assert.ok(retried.at - limited.at >= 900, `waited ${retried.at - limited.at} ms as Retry-After asked`);
    const answers = sandpit.page.getByTestId("ask-answer");
    assert.equal(await answers.nth(0).getByTestId("ask-text").textContent(), "Answered after the wait.");
    assert.equal(await answers.nth(1).getAttribute("data-end"), "cut");
    assert.equal(await answers.nth(1).getByTestId("ask-text").textContent(), "Half an ans", "what arrived is kept");
    assert.equal(await sandpit.page.getByTestId("ask-continue").isVisible(), true);

    // Nobody listens here: the endpoint cannot be reached.
    const closed = await new Promise((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
        server.close(() => resolve(port));
      });
    });
    await settings({ endpoint: `http://127.0.0.1:${closed}/v1` });
    await ask("five");
    assert.match((await notes()).at(-1)[1], new RegExp(`^Could not reach the model at http://127\\.0\\.0\\.1:${closed}/v1 \\(.+\\)\\. Is the server running`));
    await settings({ endpoint: `${stub.url}/openai/v1` });
  });

  test("Stop mid-stream keeps what arrived, aborts the request and says so", async () => {
    await fresh();
    stub.script({ text: ["Let me think about ", "this"], hold: true });
    const input = sandpit.page.getByTestId("ask-input");
    await input.fill("Think hard");
    await input.press("Enter");
    await sandpit.page.getByTestId("ask-text").filter({ hasText: "Let me think about this" }).waitFor();
    assert.equal(await panel().getAttribute("data-phase"), "streaming");
    await sandpit.page.getByTestId("ask-stop").click();
    await settled();
    assert.deepEqual(await notes(), [["stopped", "Stopped."]]);
    assert.equal(await sandpit.page.getByTestId("ask-answer").getAttribute("data-end"), "stopped");
    await until(() => stub.requests[0].aborted, "the request was abandoned");
  });

  test("the step limit stops the loop and says so plainly", async () => {
    await fresh();
    await settings({ steps: 2 });
    const check = (id) => ({ calls: [{ id, name: "check_python", args: '{"code": "import json"}' }] });
    stub.script(check("s1"), check("s2"), check("s3"));
    await ask("Keep checking");
    assert.equal(stub.requests.length, 2, "no third request");
    const [kind, text] = (await notes()).at(-1);
    assert.equal(kind, "step-limit");
    assert.match(text, /^Stopped after 2 steps: that is the step limit \(Settings\)\./);
    // check_python's findings were a step the model saw.
    assert.match(toolMessages(stub.requests[1])[0], /The code compiles\.\njson \(line 1\): offline/);
    await settings({ steps: 8 });
  });
});
