// @ts-check
// The user's work across reloads: code, sessions and run history (the latest
// 100 on the page, older ones browsed), a run kept when the page is left as
// it ends, and files attached or written by Python, with those that could
// not be kept named; Clear data and a deleted session remove them. Each test
// starts its own server and browser and stops both (pwa-app.mjs).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { screenshot } from "./harness.mjs";
import { sha256, useAppPerTest } from "./pwa-app.mjs";

const app = useAppPerTest();

describe("the user's work", () => {

  test("code, sessions and run history survive a reload; Clear data removes them", async () => {
    const sandpit = await app.open();
    const first = await sandpit.run("x = 6 * 7\nx");
    assert.equal(first.value, "42");
    await sandpit.newSession("second");
    await sandpit.setCode("print('a draft in second')");
    await sandpit.waitSaved();

    await sandpit.reload();
    assert.deepEqual(await sandpit.sessionNames(), ["main", "second"]);
    assert.equal(await sandpit.page.getByTestId("session").inputValue(), "second");
    assert.equal(await sandpit.code(), "print('a draft in second')");
    assert.equal(await sandpit.entryCount(1), 1);
    const earlier = await sandpit.result(0);
    assert.equal(earlier.value, "42");
    assert.equal(
      await sandpit.page.getByTestId("run-entry").first().getAttribute("data-earlier"),
      "true",
    );
    await sandpit.selectSession("main");
    await sandpit.waitForCode("x = 6 * 7\nx");
    await sandpit.waitReady();

    await sandpit.openSettings();
    assert.match(await sandpit.page.getByTestId("storage-usage").textContent(), /Storage: .* used of /);
    await sandpit.page.getByTestId("clear-data").click();
    await sandpit.reload(() => sandpit.page.getByTestId("confirm-clear-data").click());
    assert.deepEqual(await sandpit.sessionNames(), ["main"]);
    assert.equal(await sandpit.entryCount(), 0);
    assert.match(await sandpit.code(), /Hello from Python/);
    await sandpit.waitReady();
    await sandpit.assertHealthy();
  });

  test("a reload brings back the latest 100 runs, and the older ones can be browsed", async () => {
    const sandpit = await app.open();
    await sandpit.waitReady();
    // 105 runs, queued at once: the page lets the five oldest go, the history keeps them.
    await sandpit.runRepeatedly("n = globals().get('n', 0) + 1\nn", 105, 100);
    await sandpit.waitSaved();
    await sandpit.reload();
    const values = await sandpit.runValues();
    assert.equal(values.length, 100);
    assert.equal(values[0], "6", "the page shows the latest 100");
    assert.equal(values.at(-1), "105");
    assert.match(await sandpit.page.getByTestId("runs-capped").textContent(), /shows the latest 100 runs; this browser keeps 105 \(up to 1000\)/);

    await sandpit.page.getByTestId("history-toggle").click();
    const lines = sandpit.page.getByTestId("history-run");
    await lines.nth(99).waitFor();
    assert.equal(await lines.count(), 100, "a page of 100, newest first");
    await sandpit.page.getByTestId("history-older").click();
    await lines.nth(104).waitFor();
    assert.equal(await sandpit.page.getByTestId("history-older").count(), 0, "nothing older");
    const oldest = lines.nth(104);
    assert.match(await oldest.textContent(), /^main · ok · n = globals/);
    await oldest.locator("button").click();
    assert.equal(await oldest.getByTestId("value").textContent(), "→ 1", "the oldest run, as the page showed it");
    await oldest.scrollIntoViewIfNeeded();
    await screenshot(sandpit.page, "history");
    await sandpit.waitReady();
    await sandpit.assertHealthy();
  });

  test("a finished run and the code are kept when the page is left the moment the run ends", async () => {
    // Runs and the workspace are written in batches; leaving the page writes the batch at once.
    const sandpit = await app.open();
    await sandpit.setCode("'left at once'");
    await sandpit.reload(() =>
      sandpit.page.evaluate(() => {
        const runs = document.querySelector('[data-testid="runs"]');
        new MutationObserver(() => {
          if (runs.querySelector('[data-testid="run-entry"][data-phase="ok"]')) location.reload();
        }).observe(runs, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-phase"] });
        document.querySelector('[data-testid="run"]').click();
      }),
    );
    assert.equal(await sandpit.code(), "'left at once'");
    assert.equal(await sandpit.entryCount(1), 1);
    assert.equal((await sandpit.result(0)).value, "'left at once'");
    await sandpit.waitReady();
    await sandpit.assertHealthy();
  });
});

describe("the user's files", () => {
  /** What `repr()` of a list of sha256 hex digests looks like. */
  const digests = (...buffers) => `[${buffers.map((b) => `'${sha256(b)}'`).join(", ")}]`;
  const HASH_FILES = "import hashlib\n[hashlib.sha256(open(p, 'rb').read()).hexdigest() for p in PATHS]";

  test("Code and files survive a reload", async () => {
    const sandpit = await app.open();
    const attached = Buffer.from(Array.from({ length: 256 }, (_, n) => n));
    const written = Buffer.from("written by Python, é\n", "utf8");
    await sandpit.page
      .getByTestId("file-input")
      .setInputFiles({ name: "data.bin", mimeType: "application/octet-stream", buffer: attached });
    await sandpit.page.getByTestId("attached").filter({ hasText: "data.bin" }).waitFor();
    const code = "open('notes.txt', 'w').write('written by Python, é\\n')\nlen(open('data.bin', 'rb').read())";
    assert.equal((await sandpit.run(code)).value, "256");
    await sandpit.waitSaved();
    const kept = [
      ["data.bin", "kept"],
      ["notes.txt", "kept"],
    ];
    assert.deepEqual(await sandpit.sessionFiles(), kept);

    await sandpit.reload();
    assert.equal(await sandpit.code(), code);
    assert.deepEqual(await sandpit.sessionFiles(), kept, "listed again, before Python is back");
    assert.deepEqual(await sandpit.downloadSessionFile("data.bin"), attached);
    assert.deepEqual(await sandpit.downloadSessionFile("notes.txt"), written);
    await sandpit.waitReady();
    const read = await sandpit.run(HASH_FILES.replace("PATHS", "('data.bin', 'notes.txt')"));
    assert.equal(read.value, digests(attached, written), "Python finds both on disk, byte for byte");

    await sandpit.openSettings();
    await sandpit.page.getByTestId("clear-data").click();
    await sandpit.reload(() => sandpit.page.getByTestId("confirm-clear-data").click());
    assert.deepEqual(await sandpit.sessionFiles(), []);
    await sandpit.waitReady();
    assert.equal((await sandpit.run("import os\nsorted(os.listdir('.'))")).value, "[]");
    await sandpit.assertHealthy();
  });

  test("a file whose keeping failed on an earlier visit is named with the reason after a reload", async () => {
    const sandpit = await app.open();
    // Written as the app stores such a file (StoredFile in src/store/records.rs), as
    // a failed write would have left it: the bytes are rarely refused on demand.
    const reason = "the browser's storage refused the write (QuotaExceededError)";
    await sandpit.page.evaluate(
      (message) =>
        new Promise((/** @type {(value?: unknown) => void} */ resolve, reject) => {
          const opening = indexedDB.open("sandpit");
          opening.onerror = () => reject(opening.error);
          opening.onsuccess = () => {
            const record = { session: "main", path: "report.csv", size: 12, kept: { refused: { kind: "failed", message } } };
            const tx = opening.result.transaction("files", "readwrite");
            tx.objectStore("files").put(record, ["main", "report.csv"]);
            tx.oncomplete = () => {
              opening.result.close();
              resolve();
            };
            tx.onerror = () => reject(tx.error);
          };
        }),
      reason,
    );
    await sandpit.reload();
    assert.deepEqual(await sandpit.sessionFiles(), [["report.csv", "lost"]]);
    const note = sandpit.page.locator('[data-testid="session-file"][data-path="report.csv"] [data-testid="file-note"]');
    assert.equal(await note.textContent(), `not kept from the earlier visit: ${reason}`);
    await sandpit.assertHealthy();
  });

  test("a file too large to keep is named, before and after a reload; deleting a session deletes its files", async () => {
    const sandpit = await app.open();
    await sandpit.newSession("big");
    const large = Buffer.alloc(5_120_000).map((_, n) => n % 256);
    const run = await sandpit.run(
      [
        "open('large.bin', 'wb').write(bytes(range(256)) * 20_000)",
        "open('huge.bin', 'wb').write(b'x' * 16_000_001)",
        "open('small.txt', 'w').write('small')",
      ].join("\n"),
    );
    assert.equal(run.phase, "ok");
    await sandpit.waitSaved();
    assert.deepEqual(await sandpit.sessionFiles(), [
      ["huge.bin", "not-kept"],
      ["large.bin", "kept"],
      ["small.txt", "kept"],
    ]);
    const note = sandpit.page.locator('[data-testid="session-file"][data-path="huge.bin"] [data-testid="file-note"]');
    assert.equal(await note.textContent(), "not kept across reloads: larger than the 16.0 MB kept per file");

    await sandpit.reload();
    assert.deepEqual(await sandpit.sessionFiles(), [
      ["huge.bin", "lost"],
      ["large.bin", "kept"],
      ["small.txt", "kept"],
    ]);
    assert.equal(await note.textContent(), "not kept from the earlier visit: larger than the 16.0 MB kept per file");
    await sandpit.waitReady();
    const read = await sandpit.run(`import os\n${HASH_FILES.replace("PATHS", "sorted(os.listdir('.'))")}`);
    assert.equal(read.value, digests(large, Buffer.from("small")), "large.bin and small.txt are back, huge.bin is not");

    await sandpit.clearSession("delete-session");
    await sandpit.waitSaved();
    await sandpit.reload();
    await sandpit.newSession("big");
    assert.deepEqual(await sandpit.sessionFiles(), []);
    await sandpit.waitReady();
    assert.equal((await sandpit.run("import os\nsorted(os.listdir('.'))")).value, "[]");
    await sandpit.assertHealthy();
  });
});
