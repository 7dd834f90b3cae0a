// @ts-check
// Sessions are boundaries: each has a worker of its own from a pool. Code in
// one finds nothing of another (variables, modules, frames, files, output,
// interpreter-wide settings); sessions run at the same time; a crash in one
// leaves the others running; past the pool's cap the least recently used
// idle session is parked and its next run restores it by replay, files
// included; and each session's interpreter has a memory limit.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";

import { startApp } from "./harness.mjs";

/** What Pyodide logs when its interpreter dies: expected in the crash test only. */
const PYODIDE_CRASH_LOGS = [/Aborted\(\)/, /Pyodide has suffered a fatal error/, /The cause of the fatal error was/, /RuntimeError: unreachable/];

/** The deployment's memory limit per session in these tests, in MiB. */
const MEMORY_LIMIT_MB = 128;

/** A marker no code of the probing session contains: it is built from parts at run time. */
const SECRET = "alice-secret-7f3a";

/**
 * Looks for SECRET everywhere Python can see: objects the garbage collector
 * tracks, module attributes, the frames up the stack, files anywhere on the
 * file system (by name, and by content where files are small); and reads
 * the interpreter-wide settings the other session changed.
 */
const PROBE = `
import gc, os, sys, warnings
marker = "alice-" + "secret-" + "7f3a"
# Another copy of the marker: this probe's own \`marker\` does not count.
copy = lambda values: any(type(v) is str and v == marker and v is not marker for v in values)
found = []
for o in gc.get_objects():
    try:
        if isinstance(o, dict) and copy(o.values()):
            found.append("a dict the collector tracks")
        elif isinstance(o, (list, tuple, set)) and copy(o):
            found.append("a collection the collector tracks")
    except Exception:
        pass
for name, module in list(sys.modules.items()):
    if getattr(module, "alice_mark", None) == marker:
        found.append("module " + name)
frame = sys._getframe()
while frame is not None:
    if copy(frame.f_globals.values()) or copy(frame.f_locals.values()):
        found.append("a frame")
    frame = frame.f_back
for root, dirs, files in os.walk("/"):
    dirs[:] = [d for d in dirs if os.path.join(root, d) not in ("/proc", "/dev", "/lib", "/sys")]
    for name in files:
        path = os.path.join(root, name)
        if name == "alice.txt":
            found.append("file " + path)
        try:
            if os.path.getsize(path) < 1_000_000 and marker in open(path, errors="ignore").read():
                found.append("the content of " + path)
        except OSError:
            pass
with warnings.catch_warnings(record=True) as caught:
    warnings.warn("careful")
(found, sys.getrecursionlimit() > 100, len(caught))
`;

describe("sessions as boundaries", () => {
  let app;
  /** @type {import("./harness/page.mjs").SandpitPage} */
  let sandpit;

  before(async () => {
    // Two workers at most, whatever the machine: parking is then certain.
    app = await startApp({ sessions: { max_workers: 2, memory_limit_mb: MEMORY_LIMIT_MB } });
    sandpit = await (await app.newPage()).open();
    await sandpit.waitReady();
    await sandpit.setTimeoutSeconds(30);
  });
  afterEach(async () => {
    await sandpit.assertHealthy({ allow: PYODIDE_CRASH_LOGS });
  });
  after(async () => {
    await app?.close();
  });

  /** Waits until the session bar shows the picked session as `wanted` (it draws at most ten times a second). */
  const phaseBecomes = (wanted) => sandpit.page.locator(`[data-testid="session-state"][data-phase="${wanted}"]`).waitFor();

  test("code in one session finds nothing of another's: globals, modules, frames, files, output, settings", async () => {
    await sandpit.newSession("alice");
    const alice = await sandpit.run(
      [
        `secret = "${SECRET}"`,
        "import json, sys, warnings",
        "json.alice_mark = secret",
        "keep = [secret]",
        "open('alice.txt', 'w').write(secret)",
        "sys.setrecursionlimit(60)",
        "warnings.simplefilter('error')",
        "print(secret)",
      ].join("\n"),
    );
    assert.equal(alice.phase, "ok", JSON.stringify(alice.json.error));
    await phaseBecomes("idle");

    await sandpit.newSession("bob");
    const bob = await sandpit.run(PROBE);
    assert.equal(bob.phase, "ok", JSON.stringify(bob.json.error));
    assert.deepEqual(bob.json.value.json, [[], true, 1], "bob finds nothing, and alice's settings are hers");
    assert.ok(!JSON.stringify(bob.json).includes(SECRET), "nothing of alice's comes back in bob's result");

    // The probe itself works: run in alice's own session it finds everything.
    await sandpit.selectSession("alice");
    const self = await sandpit.run(PROBE.replace('warnings.warn("careful")', "pass"));
    const [found] = self.json.value.json;
    for (const where of ["a dict the collector tracks", "module json", "file /home/pyodide/sessions/alice/alice.txt"]) {
      assert.ok(found.includes(where), `the probe finds ${where} in alice's own session: ${JSON.stringify(found)}`);
    }
  });

  test("a run in one session finishes while another session is busy in a loop", async () => {
    await sandpit.setTimeoutSeconds(0);
    await sandpit.newSession("looper");
    const loop = await sandpit.submit("while True:\n    pass");
    await sandpit.page.getByTestId("run-entry").nth(loop).and(sandpit.page.locator('[data-phase="running"]')).waitFor();
    await sandpit.newSession("quick");
    const quick = await sandpit.run("6 * 7");
    assert.equal(quick.value, "42");
    assert.equal(await sandpit.page.getByTestId("run-entry").nth(loop).getAttribute("data-phase"), "running");
    await sandpit.page.getByTestId("sessions-summary").filter({ hasText: /1 running/ }).waitFor();
    // Stop stops the loop (the picked session has nothing running); its session is kept.
    await sandpit.page.getByTestId("stop").click();
    assert.equal((await sandpit.result(loop)).phase, "cancelled");
    await sandpit.setTimeoutSeconds(30);
  });

  test("killing one session's worker leaves the others running", async () => {
    await sandpit.newSession("steady");
    await sandpit.run("before = 'kept'");
    const steady = await sandpit.submit("import time\nstart = time.time()\nwhile time.time() - start < 3:\n    pass\nbefore");
    await sandpit.newSession("doomed");
    const doomed = await sandpit.run("import os\nos.abort()");
    assert.equal(doomed.phase, "crashed");
    assert.equal(doomed.hint, "crashed");
    const survived = await sandpit.result(steady);
    assert.equal(survived.phase, "ok", JSON.stringify(survived.json.error));
    assert.equal(survived.value, "'kept'");
    assert.equal(survived.json.restored, null, "steady's worker was never touched");
  });

  test("past the pool's cap the least recently used session is parked, and its next run restores it, files kept", async () => {
    await sandpit.newSession("first");
    await sandpit.run("x = 'one'\nopen('first.txt', 'w').write(x * 2)");
    // Sessions idle this long may be parked to make room (PARK_AFTER_IDLE_MS).
    await sandpit.page.waitForTimeout(1_200);
    await sandpit.newSession("second");
    await sandpit.run("y = 2");
    await sandpit.page.waitForTimeout(1_200);
    await sandpit.newSession("third");
    await sandpit.run("z = 3");

    await sandpit.selectSession("first");
    await phaseBecomes("parked");
    const back = await sandpit.run("x, open('first.txt').read()");
    assert.equal(back.phase, "ok", JSON.stringify(back.json.error));
    assert.equal(back.value, "('one', 'oneone')");
    assert.ok(back.json.restored?.replayed >= 1, JSON.stringify(back.json.restored));
    assert.match(back.restored ?? "", /replay/);
    await phaseBecomes("idle");
  });

  test("allocating past the session's memory limit is a MemoryError; that session and the others go on", async () => {
    await sandpit.newSession("hog");
    const hog = await sandpit.run("blocks = []\nwhile True:\n    blocks.append(bytearray(1 << 20))");
    assert.equal(hog.phase, "error");
    assert.equal(hog.errorType, "MemoryError");
    assert.equal(hog.hint, "memory_limit");
    const limit = MEMORY_LIMIT_MB << 20;
    assert.deepEqual(
      [hog.json.memory.limit_bytes, hog.json.memory.limit_reached],
      [limit, true],
      JSON.stringify(hog.json.memory),
    );
    assert.ok(hog.json.memory.peak_bytes <= limit, "the heap stopped at the limit");
    assert.ok(hog.json.memory.peak_bytes > limit / 2, JSON.stringify(hog.json.memory));
    // The session goes on, what it allocated still there.
    const after = await sandpit.run("len(blocks) > 32, sum(range(10))");
    assert.equal(after.value, "(True, 45)");
    assert.equal(after.json.memory.limit_reached, false);
    // And so does another session, with its own heap.
    await sandpit.newSession("light");
    const light = await sandpit.run("len(bytearray(8 << 20))");
    assert.equal(light.value, String(8 << 20));
    assert.ok(light.json.memory.peak_bytes < hog.json.memory.peak_bytes, "its own, smaller heap");
  });
});
