// @ts-check
// Files in and out: attached files land in the session's working directory,
// files the run creates or changes come back as artifacts.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, test } from "node:test";

import { useSandpit } from "./harness.mjs";

const decode = (base64) => Buffer.from(base64, "base64").toString("utf8");

describe("files", () => {
  let sandpit;

  useSandpit((page) => {
    sandpit = page;
  });

  test("a CSV goes in by the picker, is read with csv, and a processed file comes out", async () => {
    const csv = "name,score\nada,3\nbob,5\n";
    await sandpit.page
      .getByTestId("file-input")
      .setInputFiles({ name: "scores.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await sandpit.page.getByTestId("attached").filter({ hasText: "scores.csv" }).waitFor();
    const result = await sandpit.run(
      [
        "import csv",
        "with open('scores.csv') as f:",
        "    rows = list(csv.DictReader(f))",
        "with open('doubled.csv', 'w', newline='') as f:",
        "    out = csv.writer(f)",
        "    out.writerow(['name', 'double'])",
        "    for row in rows:",
        "        out.writerow([row['name'], int(row['score']) * 2])",
        "len(rows)",
      ].join("\n"),
    );
    assert.equal(result.phase, "ok", JSON.stringify(result.json.error));
    assert.equal(result.value, "2");
    const artifacts = result.json.artifacts;
    assert.deepEqual(
      artifacts.map((a) => [a.path, a.mime, a.size]),
      [["doubled.csv", "text/csv", 28]],
      "only the new file, not the input",
    );
    assert.equal(decode(artifacts[0].content_base64), "name,double\r\nada,6\r\nbob,10\r\n");
    const link = sandpit.page.getByTestId("artifact").last().locator("a");
    assert.equal(await link.getAttribute("download"), "doubled.csv");
    assert.match(await link.getAttribute("href"), /^data:text\/csv;base64,/);
    assert.equal(await sandpit.page.getByTestId("attached").locator("li").count(), 0, "sent, so no longer attached");
    const listed = await sandpit.page.getByTestId("session-files").textContent();
    assert.match(listed, /doubled\.csv/);
    assert.match(listed, /scores\.csv/);
  });

  test("files can be dropped onto the page", async () => {
    await sandpit.page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(["dropped text"], "note.txt", { type: "text/plain" }));
      const drop = new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
      document.querySelector('[data-testid="drop-zone"]').dispatchEvent(drop);
    });
    await sandpit.page.getByTestId("attached").filter({ hasText: "note.txt" }).waitFor();
    const result = await sandpit.run("open('note.txt').read()");
    assert.equal(result.value, "'dropped text'");
  });

  test("only files created or changed by the run are reported", async () => {
    await sandpit.run("open('a.txt', 'w').write('a')\nopen('b.txt', 'w').write('b')");
    const result = await sandpit.run(
      "open('b.txt', 'w').write('bb')\nimport os\nos.makedirs('out', exist_ok=True)\nopen('out/c.txt', 'w').write('c')",
    );
    assert.deepEqual(
      result.json.artifacts.map((a) => [a.path, decode(a.content_base64)]),
      [
        ["b.txt", "bb"],
        ["out/c.txt", "c"],
      ],
    );
  });

  test("files under __pycache__ and in linked directories are not reported; a linked file is", async () => {
    const result = await sandpit.run(
      [
        "import os",
        "os.makedirs('__pycache__', exist_ok=True)",
        "open('__pycache__/m.pyc', 'wb').write(b'x')",
        "os.makedirs('real', exist_ok=True)",
        "open('real/r.txt', 'w').write('r')",
        "os.symlink('real', 'linked')",
        "os.symlink('real/r.txt', 'alias.txt')",
      ].join("\n"),
    );
    assert.equal(result.phase, "ok", JSON.stringify(result.json.error));
    assert.deepEqual(
      result.json.artifacts.map((a) => [a.path, decode(a.content_base64)]),
      [
        ["alias.txt", "r"],
        ["real/r.txt", "r"],
      ],
    );
  });

  test("a run is compared with what the session's previous run left: changes made in between come with the next run", async () => {
    const quiet = await sandpit.run("1");
    assert.deepEqual(quiet.json.artifacts, [], "nothing changed since the run before");
    // Code the session left scheduled writes a file after its run has ended.
    await sandpit.run("import asyncio\nasyncio.get_event_loop().call_later(0.05, lambda: open('later.txt', 'w').write('hi'))");
    await sandpit.page.waitForTimeout(300);
    const next = await sandpit.run("2");
    assert.deepEqual(
      next.json.artifacts.map((a) => [a.path, decode(a.content_base64)]),
      [["later.txt", "hi"]],
    );
    const after = await sandpit.run("3");
    assert.deepEqual(after.json.artifacts, [], "reported once, with the run that first saw it");
  });

  test("each session has its own working directory; reset empties it", async () => {
    await sandpit.newSession("other");
    const other = await sandpit.run("import os\nsorted(os.listdir('.'))");
    assert.equal(other.value, "[]");
    await sandpit.selectSession("main");
    const main = await sandpit.run("import os\n'a.txt' in os.listdir('.')");
    assert.equal(main.value, "True");
    await sandpit.clearSession("reset-session");
    const cleared = await sandpit.run("import os\nsorted(os.listdir('.'))");
    assert.equal(cleared.value, "[]");
  });

  test("a run that leaves its directory, or removes it, does not move the next run out of the session's", async () => {
    await sandpit.newSession("wanderer");
    const left = await sandpit.run("import os\nopen('kept.txt', 'w').write('k')\nos.chdir('/tmp')\nos.getcwd()");
    assert.equal(left.value, "'/tmp'");
    assert.deepEqual(left.json.files.map((f) => f.path), ["kept.txt"], "the session's files, not /tmp's");
    const back = await sandpit.run("import os, shutil\nhere = os.getcwd()\nos.chdir('..')\nshutil.rmtree(here)\nhere");
    assert.equal(back.phase, "ok", JSON.stringify(back.json.error));
    assert.match(back.value, /sessions\/wanderer'$/);
    const again = await sandpit.run("import os\nopen('new.txt', 'w').write('n')\n(os.getcwd(), sorted(os.listdir('.')))");
    assert.equal(again.phase, "ok", JSON.stringify(again.json.error));
    assert.match(again.value, /sessions\/wanderer', \['new\.txt'\]\)$/);
    await sandpit.selectSession("main");
  });

  test("an artifact over the inline limit is listed by size and downloads from the session", async () => {
    const result = await sandpit.run("open('big.bin', 'wb').write(bytes(range(256)) * 20_000)");
    const [artifact] = result.json.artifacts;
    assert.deepEqual(
      [artifact.path, artifact.size, artifact.content_base64],
      ["big.bin", 5_120_000, null],
      "over 4 MiB: no bytes in the result",
    );
    const [download] = await Promise.all([
      sandpit.page.waitForEvent("download"),
      sandpit.page.getByTestId("download").last().click(),
    ]);
    assert.equal(download.suggestedFilename(), "big.bin");
    const bytes = await readFile(await download.path());
    assert.equal(bytes.length, 5_120_000);
    assert.deepEqual([bytes[0], bytes[255], bytes[256], bytes.at(-1)], [0, 255, 0, 255]);
  });

  test("input files over the size limit give a clear error and nothing runs", async () => {
    const big = Buffer.alloc(33 * 1024 * 1024, 120);
    await sandpit.page
      .getByTestId("file-input")
      .setInputFiles({ name: "huge.bin", mimeType: "application/octet-stream", buffer: big });
    await sandpit.page.getByTestId("attached").filter({ hasText: "huge.bin" }).waitFor();
    const result = await sandpit.run("open('never-written.txt', 'w').write('ran')");
    assert.equal(result.phase, "failed");
    assert.match(result.failure, /input files are 34\.6 MB in all, over the limit of 33\.6 MB/);
    const check = await sandpit.run("import os\nos.path.exists('never-written.txt'), os.path.exists('huge.bin')");
    assert.equal(check.value, "(False, False)");
  });
});
