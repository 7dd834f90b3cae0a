// @ts-check
// Sessions beyond the cores, as a chat page drives them through the
// embedding client: the pool keeps every session's worker while memory
// allows and runs as many at once as there are cores, so six sessions under
// load stay correct and none is parked; and when memory does run out (a
// deployment that allows two workers), a parked session comes back by
// replay, and its next result says what that cost and what it could not
// bring back.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { serveDemo } from "../../scripts/serve.mjs";
import { embedHeadless } from "./harness.mjs";

/** The sessions a chat page uses at once here: more than the two cores. */
const SESSIONS = 6;
/** The calls fired at once, round robin over the sessions. */
const CALLS = 120;

/** A chat page that embeds the headless widget; `sessions`: the deployment's pool settings, if any. */
async function embedded(sessions) {
  const host = await serveDemo({
    isolated: true,
    files: { "/host.html": { type: "text/html", body: "<!doctype html><title>chat</title>" } },
  });
  const { app, sandpit } = await embedHeadless(host, sessions);
  return {
    page: sandpit.page,
    async close() {
      await app.close();
      await host.close();
    },
  };
}

describe("six sessions on two cores, memory to spare", () => {
  /** @type {Awaited<ReturnType<typeof embedded>>} */
  let chat;
  before(async () => {
    chat = await embedded(undefined);
  });
  after(async () => {
    await chat?.close();
  });

  test("calls fired at once over six sessions all come back right, each session's in order, and none is parked", async () => {
    const outcome = await chat.page.evaluate(
      async ({ sessions, calls }) => {
        const names = Array.from({ length: sessions }, (_, k) => `chat-${k}`);
        for (const session of names) await window.sandpit.run("count = 0", { session });
        /** Every state the sessions were seen in while the calls ran. */
        const seen = [];
        let polling = true;
        const poll = (async () => {
          while (polling) {
            seen.push(await window.sandpit.sessions());
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();
        const fired = Array.from({ length: calls }, (_, k) => {
          const session = names[k % sessions];
          return window.sandpit.run("count += 1\n(count, sum(range(1000)))", { session }).then((result) => ({ session, result }));
        });
        const results = await Promise.all(fired);
        polling = false;
        await poll;
        return { results, seen, after: await window.sandpit.sessions() };
      },
      { sessions: SESSIONS, calls: CALLS },
    );
    for (const { session, result } of outcome.results) {
      assert.equal(result.status, "ok", `${session}: ${JSON.stringify(result.error)}`);
      assert.equal(result.restored, null, `${session} was never restored`);
    }
    // Each session counted its own calls, in the order they were sent.
    for (let k = 0; k < SESSIONS; k++) {
      const counts = outcome.results.filter((r) => r.session === `chat-${k}`).map((r) => r.result.value.json);
      assert.deepEqual(
        counts,
        counts.map((_, n) => [n + 1, 499500]),
      );
    }
    const states = outcome.seen.flat();
    assert.ok(outcome.seen.length > 0);
    assert.ok(!states.some((s) => s.phase === "parked" || s.phase === "waiting" || !s.resident), JSON.stringify(states.filter((s) => !s.resident)));
    for (const snapshot of outcome.seen) {
      const running = snapshot.filter((s) => s.phase === "running" || s.phase === "restoring").length;
      assert.ok(running <= 2, `no more run at once than the machine has cores: ${JSON.stringify(snapshot)}`);
    }
    const queued = states.find((s) => s.phase === "queued");
    if (queued) assert.match(queued.why, /^Waiting for a core: 2 calls run at once/);
    const chats = outcome.after.filter((s) => s.name.startsWith("chat-"));
    assert.equal(chats.length, SESSIONS);
    assert.ok(chats.every((s) => s.phase === "idle" && s.resident && s.queued === 0), JSON.stringify(chats));
  });
});

describe("memory for two workers: a parked session comes back", () => {
  /** @type {Awaited<ReturnType<typeof embedded>>} */
  let chat;
  before(async () => {
    chat = await embedded({ max_workers: 2 });
  });
  after(async () => {
    await chat?.close();
  });

  test("the restore note says what was replayed, what it cost, what failed and what was skipped", async () => {
    const outcome = await chat.page.evaluate(async () => {
      const run = (code, session = "long") => window.sandpit.run(code, { session });
      const before = [];
      before.push(await run("n = 0\nopen('notes.txt', 'w').write('kept')"));
      for (let k = 0; k < 20; k++) before.push(await run("n += 1"));
      // A run that fails: never replayed, so what it changed before failing is gone.
      before.push(await run("n += 100\n1 / 0"));
      // A run that succeeds now but not when replayed later: the clock has moved on.
      const deadline = Date.now() / 1000 + 1;
      before.push(await run(`import time\nassert time.time() < ${deadline}\nlate = True`));
      const live = await run("n");
      const pause = () => new Promise((resolve) => setTimeout(resolve, 1_200));
      await pause();
      await run("1", "other");
      await pause();
      await run("1", "third");
      const parked = (await window.sandpit.sessions()).find((s) => s.name === "long");
      const started = performance.now();
      const back = await run("n, open('notes.txt').read(), 'late' in globals()");
      const wall = performance.now() - started;
      const next = await run("n");
      const resident = (await window.sandpit.sessions()).find((s) => s.name === "long");
      return { before, live, parked, back, wall, next, resident };
    });
    assert.ok(
      outcome.before.slice(0, 21).every((r) => r.status === "ok"),
      JSON.stringify(outcome.before.map((r) => r.status)),
    );
    assert.equal(outcome.before[21].status, "error");
    assert.equal(outcome.before[22].status, "ok");
    assert.equal(outcome.live.value.json, 120, "live, the failed run's change stays");

    assert.equal(outcome.parked.phase, "parked");
    assert.equal(outcome.parked.resident, false);
    assert.match(outcome.parked.why, /^Parked to make room for session "third" \(the memory budget holds 2 workers/);

    const { back } = outcome;
    assert.equal(back.status, "ok", JSON.stringify(back.error));
    // Replayed: the first run, the 20 increments and the run that read `n`; the
    // failed run's +100 is not back, and the late run fails its replay.
    assert.deepEqual(back.value.json, [20, "kept", false]);
    const restored = back.restored;
    assert.ok(restored, "the result says the session was restored");
    assert.equal(restored.before_run, true);
    assert.equal(restored.replayed, 22, JSON.stringify(restored));
    assert.equal(restored.skipped, 1, "the run that failed");
    assert.equal(restored.lost.length, 1, JSON.stringify(restored.lost));
    assert.equal(restored.lost[0].session, "long");
    assert.equal(restored.lost[0].code_start, "import time");
    assert.match(restored.lost[0].reason, /^AssertionError/);
    assert.ok(Number.isInteger(restored.ms) && restored.ms > 0, `what it cost: ${restored.ms}`);
    assert.ok(restored.ms <= outcome.wall, `within the call's own round trip (${outcome.wall} ms): ${restored.ms}`);

    assert.equal(outcome.next.restored, null, "said once, with the first run after the restore");
    assert.equal(outcome.next.value.json, 20);
    assert.equal(outcome.resident.phase, "idle");
    assert.equal(outcome.resident.resident, true);
  });
});
