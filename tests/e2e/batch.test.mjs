// @ts-check
// Batch evaluation through the embedding client: runMany runs independent
// programs, each in a fresh namespace, spread over the widget's session
// workers, and hands back their results in input order with progress on
// the way; a failing or timed-out program is a result like the others.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { serveDemo } from "../../scripts/serve.mjs";
import { embedHeadless } from "./harness.mjs";

/** The pool's size the deployment sets here, whatever the machine's cores and memory. */
const WORKERS = 2;

describe("runMany", () => {
  let app;
  let host;
  /** @type {import("./harness/page.mjs").SandpitPage} */
  let sandpit;

  before(async () => {
    host = await serveDemo({
      isolated: true,
      files: { "/host.html": { type: "text/html", body: "<!doctype html><title>grader</title>" } },
    });
    ({ app, sandpit } = await embedHeadless(host, { max_workers: WORKERS }));
  });
  after(async () => {
    await app?.close();
    await host?.close();
  });

  /** Runs `programs` through runMany in the page; its results and the progress it reported. */
  const runMany = (programs, options = {}) =>
    sandpit.page.evaluate(
      async ([programs, options]) => {
        const progress = [];
        const results = await window.sandpit.runMany(programs, {
          ...options,
          onProgress: ({ done, total, index }) => progress.push({ done, total, index }),
        });
        return { results, progress, workers: window.sandpit.server.capabilities.experimental?.["sandpit/pool"]?.maxWorkers };
      },
      /** @type {[string[], object]} */ ([programs, options]),
    );

  test("a failing program among passing ones: results in input order, each in a fresh namespace", async () => {
    // The counter lives on a module, which a fresh namespace does not
    // reset: it counts the programs each worker ran.
    const count = "import json\njson.count = getattr(json, 'count', 0) + 1\n";
    const programs = [
      `${count}leaked = 'yes'\n(0, json.count)`,
      `${count}assert 'leaked' not in globals(), 'a namespace leaked'\nopen('own.txt', 'w').write('1')\n(1, json.count)`,
      `${count}assert 1 + 1 == 3, 'wrong answer'`,
      `${count}import os\n(3, json.count, os.path.exists('own.txt'))`,
      `${count}(4, json.count)`,
      `${count}(5, json.count)`,
    ];
    const { results, progress, workers } = await runMany(programs);
    assert.equal(workers, WORKERS, "the widget says how many sessions it runs at once: the deployment's pool");
    assert.deepEqual(
      results.map((r) => r.status),
      ["ok", "ok", "error", "ok", "ok", "ok"],
      JSON.stringify(results.map((r) => r.error)),
    );
    assert.equal(results[2].error.type, "AssertionError");
    assert.equal(results[2].error.message, "wrong answer");
    assert.deepEqual(results[0].value.json, [0, results[0].value.json[1]]);
    assert.equal(results[3].value.json[2], false, "files do not leak from one program to the next");
    const counts = results.filter((r) => r.status === "ok").map((r) => r.value.json[1]);
    assert.equal(counts.filter((c) => c === 1).length, WORKERS, `${WORKERS} workers shared the programs: ${counts}`);
    assert.deepEqual(
      progress.map((p) => p.done),
      [1, 2, 3, 4, 5, 6],
    );
    assert.deepEqual(
      progress.map((p) => p.index).sort(),
      [0, 1, 2, 3, 4, 5],
    );
    assert.ok(progress.every((p) => p.total === 6));
    // The client sees the batch's sessions, each with a worker of its own, idle now.
    const states = await sandpit.page.evaluate(() => window.sandpit.sessions());
    const lanes = states.filter((s) => s.name.startsWith("batch-"));
    assert.equal(lanes.length, WORKERS, JSON.stringify(states));
    assert.ok(lanes.every((s) => s.phase === "idle" && s.queued === 0), JSON.stringify(states));
  });

  test("a program that runs past its timeout is a timeout result; the others finish", async () => {
    const { results } = await runMany(["'before'", "while True:\n    pass", "'after'"], { timeoutSeconds: 1 });
    assert.deepEqual(
      results.map((r) => r.status),
      ["ok", "timeout", "ok"],
    );
    assert.equal(results[1].error.hint.code, "timed_out");
    assert.equal(results[2].value.json, "after");
    // One lane: the programs after the stuck one already wait in its worker;
    // stopping it ends that worker, and they run in the session's next one.
    const lined = await runMany(["while True:\n    pass", "'a'", "'b'"], { timeoutSeconds: 1, concurrency: 1 });
    assert.deepEqual(
      lined.results.map((r) => r.status),
      ["timeout", "ok", "ok"],
      JSON.stringify(lined.results.map((r) => r.error)),
    );
    assert.deepEqual(
      lined.results.slice(1).map((r) => r.value.json),
      ["a", "b"],
    );
    // A user's session beside the batch's: still its own.
    const mine = await sandpit.page.evaluate(() => window.sandpit.run("'leaked' in globals(), 'mine'", { session: "user" }));
    assert.deepEqual(mine.value.json, [false, "mine"]);
  });
});
