// @ts-check
// The Ask panel: a model writes the code, Sandpit runs and checks it, the
// model repairs it. The model is a stub server on loopback (model-stub.mjs:
// a test double, since a model's API is an outside service we cannot run
// here) that speaks OpenAI's Chat Completions and Anthropic's Messages with
// scripted, streamed answers; everything else is the real app, its worker
// and Python. One app and one page for the file.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import Ajv from "ajv";

import { ROOT, reachableNamesCode, seriousViolations, useSandpit } from "./harness.mjs";
import { startModelStub } from "./model-stub.mjs";

/** The key entered in Settings: the search from Python must never find it. */
const KEY = `sk-sandpit-${createHash("sha256").update(String(Math.random())).digest("hex").slice(0, 24)}`;
const MODEL = "stub-model";

/** @type {Awaited<ReturnType<typeof startModelStub>>} */
let stub;
/** @type {import("./harness.mjs").SandpitPage} */
let sandpit;

before(async () => {
  stub = await startModelStub();
});
after(async () => {
  await stub?.close();
});
useSandpit(
  async (ready) => {
    sandpit = ready;
    await settings({ endpoint: `${stub.url}/openai/v1`, model: MODEL, key: KEY });
  },
  // The browser logs every failed request; these the tests make on purpose.
  { allow: [/Failed to load resource: (the server responded with a status of (401|404|429)|net::ERR_CONNECTION_REFUSED)/] },
);

/** Sets fields of the model's settings (each applies when it changes). */
async function settings({ provider = undefined, endpoint = undefined, model = undefined, key = undefined, steps = undefined }) {
  const page = sandpit.page;
  const panel = page.getByTestId("settings");
  if (!(await panel.evaluate((details) => /** @type {HTMLDetailsElement} */ (details).open))) {
    await panel.locator("summary").click();
  }
  if (provider !== undefined) await page.getByTestId("model-provider").selectOption(provider);
  /** @param {string} id @param {string | number | undefined} value */
  const set = async (id, value) => {
    if (value === undefined) return;
    const field = page.getByTestId(id);
    await field.fill(String(value));
    await field.dispatchEvent("change");
  };
  await set("model-endpoint", endpoint);
  await set("model-name", model);
  await set("model-key", key);
  await set("model-steps", steps);
  await panel.locator("summary").click();
}

const panel = () => sandpit.page.getByTestId("ask-panel");

/** Starts a new conversation with nothing scripted or recorded. */
async function fresh() {
  stub.reset();
  const clear = sandpit.page.getByTestId("ask-clear");
  if (await clear.isEnabled()) await clear.click();
  await sandpit.page.waitForFunction(() => document.querySelectorAll('[data-testid="ask-log"] > li').length === 0);
}

/** Asks `text` with Enter, then waits until the loop has ended. */
async function ask(text) {
  const input = sandpit.page.getByTestId("ask-input");
  await input.fill(text);
  await input.press("Enter");
  await settled();
}

/** Waits until the loop is idle and has ended with a final answer or a note. */
async function settled() {
  await sandpit.page.waitForFunction(
    () => {
      const panel = document.querySelector('[data-testid="ask-panel"]');
      const last = document.querySelector('[data-testid="ask-log"] > li:last-child');
      const ended =
        last?.matches('[data-testid="ask-note"]:not([data-kind="waiting"])') ||
        (last?.matches('[data-testid="ask-answer"][data-end="complete"]') && last.querySelector('[data-testid="ask-verdict"]'));
      return panel?.getAttribute("data-phase") === "idle" && ended;
    },
    null,
    { timeout: 60_000 },
  );
}

/** The notes shown, `[kind, text]`. */
const notes = () =>
  sandpit.page.getByTestId("ask-note").evaluateAll((nodes) => nodes.map((n) => [/** @type {HTMLElement} */ (n).dataset.kind, n.textContent]));

/** The content of each `tool` message of a recorded OpenAI request. */
const toolMessages = (request) => request.body.messages.filter((m) => m.role === "tool").map((m) => m.content);

/** Resolves once `condition()` holds (checked every 20 ms, for at most 5 s). */
async function until(condition, what) {
  for (let tries = 0; tries < 250 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(condition(), what);
}

/** A `run_python` call as the stub streams it. */
const runCall = (id, code, tests) => ({ id, name: "run_python", args: JSON.stringify(tests === undefined ? { code } : { code, tests }) });

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

describe("the Ask panel with Anthropic's Messages API", () => {
  test("sends the browser-access header, and the key only once confirmed for the new endpoint", async () => {
    await fresh();
    await settings({ provider: "anthropic", endpoint: `${stub.url}/anthropic/v1` });
    const state = sandpit.page.getByTestId("model-key-state");
    assert.equal(await state.getAttribute("data-state"), "other", "the key was entered for another endpoint");
    stub.script({ text: ["Running."], calls: [runCall("toolu_1", "6 * 7", "assert 6 * 7 == 42")] }, { text: ["42."] });
    await ask("What is 6 * 7?");
    const [first, second] = stub.requests;
    assert.equal(first.path, "/anthropic/v1/messages");
    assert.equal(first.headers["anthropic-dangerous-direct-browser-access"], "true");
    assert.equal(first.headers["anthropic-version"], "2023-06-01");
    assert.equal(first.headers["x-api-key"], undefined, "not sent to an endpoint it was not entered for");
    assert.equal(JSON.stringify(first).includes(KEY), false);
    assert.equal(first.body.tools[0].name, "run_python");
    const result = second.body.messages.at(-1).content[0];
    assert.equal(result.type, "tool_result");
    assert.equal(result.tool_use_id, "toolu_1");
    assert.equal(result.is_error, false);
    assert.match(result.content[0].text, /--- value ---\n42/);
    assert.equal(await sandpit.page.getByTestId("ask-verdict").getAttribute("data-verified"), "true");

    await sandpit.page.getByTestId("settings").locator("summary").click();
    await sandpit.page.getByTestId("model-key-confirm").click();
    await sandpit.page.getByTestId("settings").locator("summary").click();
    assert.equal(await state.getAttribute("data-state"), "saved");
    stub.script({ text: ["Again."] });
    await ask("Once more");
    assert.equal(stub.requests.at(-1).headers["x-api-key"], KEY);
    await settings({ provider: "openai", endpoint: `${stub.url}/openai/v1` });
    await sandpit.page.getByTestId("settings").locator("summary").click();
    await sandpit.page.getByTestId("model-key-confirm").click();
    await sandpit.page.getByTestId("settings").locator("summary").click();
  });
});

describe("a reload in the middle of the loop", () => {
  test("keeps the conversation so far, and Continue goes on from it", async () => {
    await fresh();
    stub.script({ text: ["Sleeping first."], calls: [runCall("r1", "import time\ntime.sleep(20)")] });
    const input = sandpit.page.getByTestId("ask-input");
    await input.fill("Take your time");
    await input.press("Enter");
    await sandpit.page.locator('[data-testid="ask-panel"][data-phase="running"]').waitFor();
    await sandpit.page.locator('[data-testid="ask-panel"][data-saving="0"]').waitFor();
    await sandpit.reload();
    await sandpit.waitReady();
    const reloaded = sandpit.page.locator('[data-testid="ask-note"][data-kind="reloaded"]');
    await reloaded.waitFor();
    assert.match(await reloaded.textContent(), /The page was reloaded while the model was working\. The conversation so far is kept: press Continue/);
    assert.equal(await sandpit.page.getByTestId("ask-asked").textContent(), "You asked: Take your time");
    assert.equal(await sandpit.page.getByTestId("ask-text").textContent(), "Sleeping first.");
    stub.script({ text: ["Picked up after the reload."] });
    await sandpit.page.getByTestId("ask-continue").click();
    await settled();
    const [notRun] = toolMessages(stub.requests.at(-1));
    assert.match(notRun, /^Not run: the page was reloaded before this call ran\./);
    assert.equal(await sandpit.page.getByTestId("ask-answer").last().getByTestId("ask-text").textContent(), "Picked up after the reload.");
  });
});

describe("a deleted session", () => {
  test("takes its conversation with it, also from storage", async () => {
    await sandpit.newSession("doomed");
    stub.reset();
    stub.script({ text: ["Noted."] });
    await ask("Remember the secret word: heliotrope");
    assert.equal(await sandpit.page.getByTestId("ask-asked").textContent(), "You asked: Remember the secret word: heliotrope");
    await sandpit.page.locator('[data-testid="ask-panel"][data-saving="0"]').waitFor();
    await sandpit.clearSession("delete-session");
    // A new session of the same name starts with no conversation, before and after a reload.
    await sandpit.newSession("doomed");
    assert.equal(await sandpit.page.getByTestId("ask-log").locator(":scope > li").count(), 0);
    await sandpit.page.locator('[data-testid="ask-panel"][data-saving="0"]').waitFor();
    await sandpit.reload();
    await sandpit.waitReady();
    await sandpit.page.locator('[data-testid="ask-log"][aria-busy="false"]').waitFor({ state: "attached" });
    assert.equal(await sandpit.page.getByTestId("ask-log").locator(":scope > li").count(), 0);
    assert.doesNotMatch(await panel().textContent(), /heliotrope/);
    await sandpit.selectSession("main");
  });
});

describe("the API key", () => {
  test("is not reachable from Python: not in its objects, the worker's globals, its storage or the messages", async () => {
    // The key is live in this page: the last request carried it.
    assert.equal(stub.requests.at(-1).headers.authorization, `Bearer ${KEY}`);
    const digest = (text) => createHash("sha256").update(text).digest("hex");
    // Searches by the key's hash (the code must not hold the key itself):
    // every string Python's objects hold, what the worker's global reaches
    // a few levels deep, and the files of the sandbox.
    const search = (hash, length, plant) =>
      [
        "import gc, hashlib, os, js",
        "PREFIX = 'sk-sandpit-'",
        `HASH, LENGTH = '${hash}', ${length}`,
        plant,
        "found = set()",
        "def check(where, text):",
        "    at = text.find(PREFIX)",
        "    while at != -1:",
        "        if hashlib.sha256(text[at:at + LENGTH].encode()).hexdigest() == HASH:",
        "            found.add(where)",
        "        at = text.find(PREFIX, at + 1)",
        "for obj in gc.get_objects():",
        "    try:",
        "        items = [*obj.keys(), *obj.values()] if isinstance(obj, dict) else list(obj) if isinstance(obj, (list, tuple, set)) else []",
        "    except Exception:",
        "        continue",
        "    for item in items:",
        "        if isinstance(item, str):",
        "            check('python', item)",
        "seen, queue = set(), [(js.self, 0), (js.navigator, 0), (js.location, 0)]",
        "while queue and len(seen) < 4000:",
        "    value, depth = queue.pop()",
        "    if id(value) in seen:",
        "        continue",
        "    seen.add(id(value))",
        "    try:",
        "        names = js.Object.getOwnPropertyNames(value)",
        "    except Exception:",
        "        continue",
        "    for name in names:",
        "        try:",
        "            item = js.Reflect.get(value, name)",
        "        except Exception:",
        "            continue",
        "        if isinstance(item, str):",
        "            check('javascript', item)",
        "        elif depth < 3 and hasattr(item, 'typeof') and item.typeof == 'object':",
        "            queue.append((item, depth + 1))",
        "for root in ('/home', '/tmp'):",
        "    for folder, _, files in os.walk(root):",
        "        for name in files:",
        "            try:",
        "                check('files', open(os.path.join(folder, name), encoding='latin-1').read(1 << 20))",
        "            except OSError:",
        "                pass",
        "sorted(found)",
      ].join("\n");
    // The search works: a planted decoy is found where it was put.
    const decoy = `sk-sandpit-${"d".repeat(24)}`;
    const plant = "decoy = PREFIX + 'd' * 24\njs.self.sandpitDecoy = decoy\nopen('decoy.txt', 'w').write(decoy)";
    const control = await sandpit.run(search(digest(decoy), decoy.length, plant));
    assert.equal(control.phase, "ok", JSON.stringify(control.json?.error));
    assert.deepEqual(control.json.value.json, ["files", "javascript", "python"]);
    // The key itself is nowhere.
    const searched = await sandpit.run(search(digest(KEY), KEY.length, ""));
    assert.equal(searched.phase, "ok", JSON.stringify(searched.json?.error));
    assert.deepEqual(searched.json.value.json, []);
    // No storage the key lives in is reachable from the worker.
    const storage = await sandpit.run(reachableNamesCode(["localStorage", "sessionStorage", "indexedDB", "caches", "cookieStore"]));
    assert.deepEqual(storage.json.value.json, []);
    // Nor did any message between the page and the worker carry it.
    const messages = await sandpit.page.evaluate(() => JSON.stringify(window.__sandpitMessages));
    assert.ok(messages.length > 1000, "messages were recorded");
    assert.equal(messages.includes(KEY), false);
  });
});
