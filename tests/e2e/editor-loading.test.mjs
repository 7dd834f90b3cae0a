// @ts-check
// When the code editor's bundle (CodeMirror, EDITOR_MODULE) loads: on a
// page left alone, once Python's start is over, so that a first visit's
// download and start of Python do not share the link and the cores with
// it; at once when the person reaches for the plain field that stands in,
// with what they typed, the cursor and the focus carried over. Python is
// held loading (its standard library's download waits) while each test looks.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { EDITOR_MODULE } from "../../www/generated/names.js";
import { startApp } from "./harness.mjs";

/** @type {Awaited<ReturnType<typeof startApp>>} */
let app;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app?.close();
});

/** A fresh page with Python held loading, and the editor's bundle requests it makes. */
async function openHeld() {
  const sandpit = await app.newPage();
  /** @type {string[]} */
  const editorRequests = [];
  sandpit.page.on("request", (request) => {
    if (new URL(request.url()).pathname.endsWith(EDITOR_MODULE)) editorRequests.push(request.url());
  });
  const held = await sandpit.holdDownloads("**/pyodide/python_stdlib.zip");
  await sandpit.open();
  await sandpit.page.getByTestId("code-fallback").waitFor();
  return { sandpit, held, editorRequests };
}

test("a page left alone loads the editor once Python has started, not while it loads", async () => {
  const { sandpit, held, editorRequests } = await openHeld();
  try {
    // Before, the editor loaded as soon as the app was on screen, well within this.
    await sandpit.page.waitForTimeout(1_500);
    assert.equal(await sandpit.runtimeState(), "loading");
    assert.deepEqual(editorRequests, [], "the editor's bundle was fetched while Python loaded");
    held.release();
    await sandpit.waitReady();
    await sandpit.page.getByTestId("code").waitFor();
    assert.equal(editorRequests.length, 1, `${editorRequests}`);
    await sandpit.assertHealthy();
  } finally {
    held.release();
    await sandpit.close();
  }
});

test("focusing the field loads the editor at once; the typing, the cursor and the focus carry over", async () => {
  const { sandpit, held, editorRequests } = await openHeld();
  try {
    const field = sandpit.page.getByTestId("code-fallback");
    await field.fill("total = 1");
    // To whichever has the focus: the editor may already have replaced the field.
    await sandpit.page.keyboard.press("ArrowLeft");
    await sandpit.page.getByTestId("code").waitFor();
    assert.equal(await sandpit.runtimeState(), "loading", "the editor came while Python was still loading");
    assert.equal(editorRequests.length, 1);
    const focused = await sandpit.page.evaluate(() => document.activeElement?.closest(".cm-content") !== null);
    assert.ok(focused, "the focus moved into the editor");
    // Typing goes on where it stopped: before the last character.
    await sandpit.page.keyboard.type("0");
    assert.equal(await sandpit.waitForCode("total = 01"), "total = 01");
    held.release();
    await sandpit.waitReady();
    const index = await sandpit.submit("total = 10\ntotal");
    assert.equal((await sandpit.result(index)).value, "10");
    await sandpit.assertHealthy();
  } finally {
    held.release();
    await sandpit.close();
  }
});
