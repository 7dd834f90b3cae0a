// @ts-check
// Time limits, cancels and crashes: the sandbox stops the code, says why,
// and keeps (or restores) the session's state. Run on a cross-origin
// isolated page (interrupts) and on a plain one (terminate and replay).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startApp, useSandpit } from "./harness.mjs";

/** What Pyodide logs when its interpreter dies: expected in crash tests only. */
const PYODIDE_CRASH_LOGS = [
  /Aborted\(\)/,
  /Pyodide has suffered a fatal error/,
  /The cause of the fatal error was/,
  /RuntimeError: unreachable/,
];

for (const isolated of [true, false]) {
  const mode = isolated ? "interrupt (COOP/COEP page)" : "terminate and replay (plain page)";

  describe(`recovery by ${mode}`, () => {
    let sandpit;

    useSandpit(
      async (page) => {
        sandpit = page;
        const interrupts = await sandpit.page.getByTestId("runtime-state").getAttribute("data-interrupts");
        assert.equal(interrupts, String(isolated), "the page uses the expected stopping mechanism");
        // Room for runs that must finish on a busy machine; loops get a short limit.
        await sandpit.setTimeoutSeconds(20);
      },
      { isolated, allow: PYODIDE_CRASH_LOGS },
    );

    test("an endless loop times out and the session keeps its variables", async () => {
      await sandpit.run("counter = 41\nimport math");
      await sandpit.setTimeoutSeconds(1);
      const stuck = await sandpit.run("print('looping')\nwhile True:\n    pass");
      await sandpit.setTimeoutSeconds(20);
      assert.equal(stuck.phase, "timeout");
      assert.equal(stuck.json.status, "timeout");
      assert.equal(stuck.json.error.type, "TimeoutError");
      assert.equal(stuck.hint, "timed_out");
      assert.equal(stuck.json.stdout, "looping\n", "output before the timeout is kept");
      if (isolated) {
        assert.equal(stuck.json.restored, null, "an interrupt keeps the interpreter");
        assert.equal(stuck.json.error.line, 3, "and says where the code was stopped");
        assert.match(stuck.json.error.hint.message, /state was kept/);
      } else {
        assert.equal(stuck.json.restored.replayed, 1, "the earlier run was replayed");
        assert.deepEqual(stuck.json.restored.lost, []);
        assert.match(stuck.restored, /restored by replaying 1 earlier run/);
      }
      const after = await sandpit.run("counter + 1, math.pi > 3");
      assert.equal(after.value, "(42, True)");
    });

    test("a session's first run that times out says so, and the session goes on", async () => {
      await sandpit.newSession("first-stuck");
      await sandpit.setTimeoutSeconds(1);
      const stuck = await sandpit.run("while True:\n    pass");
      await sandpit.setTimeoutSeconds(20);
      assert.equal(stuck.json.status, "timeout");
      if (isolated) {
        assert.equal(stuck.json.restored, null, "an interrupt keeps the interpreter");
      } else {
        assert.equal(stuck.json.restored.replayed, 0, "nothing ran before it");
        assert.match(stuck.restored, /the session had no earlier runs to replay/);
        assert.match(stuck.json.error.hint.message, /no earlier runs to replay/);
      }
      assert.equal((await sandpit.run("1 + 1")).value, "2");
      await sandpit.selectSession("main");
    });

    test("a recursion bomb is an error and the sandbox goes on", async () => {
      const bomb = await sandpit.run("def f():\n    return f()\nf()");
      assert.equal(bomb.errorType, "RecursionError");
      assert.equal((await sandpit.run("counter")).value, "41");
    });

    test("a memory bomb is an error and the sandbox goes on", async () => {
      const bomb = await sandpit.run("block = bytearray(3 << 30)");
      assert.equal(bomb.phase, "error");
      assert.ok(["MemoryError", "OverflowError"].includes(bomb.errorType), bomb.errorType);
      const huge = await sandpit.run("block = bytearray(2**31 - 1)");
      assert.equal(huge.errorType, "MemoryError");
      assert.equal((await sandpit.run("counter")).value, "41");
    });

    test("an interpreter crash is reported as crashed and the state comes back", async () => {
      const crash = await sandpit.run("import os\nos.abort()");
      assert.equal(crash.phase, "crashed");
      assert.equal(crash.json.error.type, "InterpreterCrash");
      assert.equal(crash.hint, "crashed");
      assert.ok(crash.json.restored.replayed >= 1, "earlier runs were replayed");
      assert.equal((await sandpit.run("counter + 1")).value, "42");
    });

    test("a worker closed from Python is a crash, not a hang", async () => {
      const closed = await sandpit.run("import js\njs.close()");
      assert.equal(closed.phase, "crashed");
      assert.match(closed.json.error.message, /closed by the code/);
      assert.equal((await sandpit.run("counter")).value, "41");
    });

    test("Stop cancels a running loop and keeps the session", async () => {
      await sandpit.setTimeoutSeconds(0);
      const index = await sandpit.submit("import time\nwhile True:\n    time.sleep(0.01)");
      await sandpit.page
        .locator('[data-testid="run-entry"]')
        .nth(index)
        .and(sandpit.page.locator('[data-phase="running"]'))
        .waitFor();
      await sandpit.page.getByTestId("stop").click();
      const stopped = await sandpit.result(index);
      assert.equal(stopped.phase, "cancelled");
      assert.equal(stopped.hint, "cancelled");
      assert.equal(await sandpit.page.getByTestId("stop").isDisabled(), true, "nothing left to stop");
      assert.equal((await sandpit.run("counter")).value, "41");
      await sandpit.setTimeoutSeconds(20);
    });

    test("what the code printed before it got stuck is on screen while it is stuck", async () => {
      await sandpit.setTimeoutSeconds(0);
      // Output is batched and sent when the code writes again; these write
      // nothing more, so each must be sent without a next write: a line or
      // part of one before a loop, a sleep, an await.
      const stuck = [
        ["print('before the loop')\nwhile True:\n    pass", "before the loop\n"],
        ["print('part of a line', end='', flush=True)\nwhile True:\n    pass", "part of a line"],
        ["import time\nprint('before the sleep')\ntime.sleep(600)", "before the sleep\n"],
        ["import asyncio\nprint('before the await')\nawait asyncio.sleep(600)", "before the await\n"],
      ];
      for (const [code, printed] of stuck) {
        const index = await sandpit.submit(code);
        const entry = sandpit.page.getByTestId("run-entry").nth(index);
        await entry.getByTestId("stdout").filter({ hasText: printed }).waitFor();
        assert.equal(await entry.getAttribute("data-phase"), "running", code);
        await sandpit.page.getByTestId("stop").click();
        const stopped = await sandpit.result(index);
        assert.equal(stopped.phase, "cancelled", code);
        assert.deepEqual(stopped.output, [{ stream: "stdout", text: printed }], code);
        if (isolated) {
          assert.equal(stopped.json.restored, null, `${code}: stopped by an interrupt, the interpreter kept`);
        }
      }
      assert.equal((await sandpit.run("counter")).value, "41");
      await sandpit.setTimeoutSeconds(20);
    });
  });
}

describe("time limits", () => {
  let app;

  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app?.close();
  });

  test("loading Python does not count against a run's timeout", async () => {
    const sandpit = await app.newPage();
    const held = await sandpit.holdDownloads("**/pyodide/python_stdlib.zip");
    await sandpit.open();
    await sandpit.setTimeoutSeconds(1);
    const index = await sandpit.submit("import time\ntime.sleep(0.2)\n'done in time'");
    // Keep Python loading for longer than the timeout.
    await sandpit.page.waitForTimeout(1500);
    assert.equal(await sandpit.runtimeState(), "loading");
    held.release();
    const result = await sandpit.result(index);
    assert.equal(result.phase, "ok");
    assert.equal(result.value, "'done in time'");
    await sandpit.assertHealthy();
    await sandpit.close();
  });

  test("a queued run can be cancelled before it starts", async () => {
    const sandpit = await app.newPage();
    const held = await sandpit.holdDownloads("**/pyodide/python_stdlib.zip");
    await sandpit.open();
    const first = await sandpit.submit("'first'");
    const second = await sandpit.submit("'second'");
    await sandpit.page.getByTestId("stop").click();
    held.release();
    assert.equal((await sandpit.result(first)).phase, "cancelled");
    assert.equal((await sandpit.result(second)).value, "'second'");
    await sandpit.assertHealthy();
    await sandpit.close();
  });
});
