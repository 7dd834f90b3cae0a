// @ts-check
// The start-up snapshot (pyodide-loader/snapshot.mjs): a first visit stores
// Python's memory after start-up, made by a worker that runs no user code;
// a return visit restores it instead of starting Python from scratch. Each
// test starts its own server and browser, so every context starts empty.
import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";

import { SNAPSHOT_CACHE, SNAPSHOT_ENTRY } from "../../www/generated/names.js";
import { startApp } from "./harness.mjs";
import { reachableNamesCode } from "./harness/python.mjs";

/** The snapshot's entry relative to the page: the app serves Pyodide from `pyodide/`. */
const ENTRY = `pyodide/${SNAPSHOT_ENTRY}`;

let app;
afterEach(async () => {
  await app?.close();
  app = null;
});

/** Opens the app in a fresh context and waits for Python. */
async function openApp() {
  app = await startApp();
  return (await (await app.newPage()).open()).waitReady();
}

/** How the active worker's start used the snapshot (`used`, `absent`, `rejected`) and the status line's explanation. */
async function snapshotUse(sandpit) {
  const state = sandpit.page.locator('[data-testid="runtime-state"][data-state="ready"]');
  return { status: await state.getAttribute("data-snapshot"), title: await state.getAttribute("title") };
}

/** Worker messages of this document so far, in order. */
const messages = (sandpit) => sandpit.page.evaluate(() => window.__sandpitMessages.map(({ from, kind, data }) => ({ from, kind, data })));

/** Waits until the snapshot maker of this document reported that it stored the snapshot. */
async function waitStored(sandpit) {
  await sandpit.page.waitForFunction(
    () => window.__sandpitMessages.some(({ kind }) => kind === "snapshot_stored"),
    null,
    { timeout: 90_000, polling: 100 },
  );
}

/**
 * Waits until `count` Python workers of this document are ready: after the
 * snapshot is stored, the warm spare starts from it, and a snapshot changed
 * before then would be the spare's to reject (and delete).
 */
async function waitWorkersReady(sandpit, count) {
  await sandpit.page.waitForFunction(
    (count) => window.__sandpitMessages.filter(({ from, kind }) => from === "worker" && kind === "ready").length >= count,
    count,
    { timeout: 90_000, polling: 100 },
  );
}

/**
 * The stored snapshot as the page sees it: its headers and the sha256 of its
 * bytes, or null when there is none.
 */
function storedSnapshot(sandpit) {
  return sandpit.page.evaluate(
    async ({ name, entry }) => {
      const response = await (await caches.open(name)).match(new URL(entry, document.baseURI));
      if (!response) return null;
      const digest = await crypto.subtle.digest("SHA-256", await response.arrayBuffer());
      return {
        key: response.headers.get("X-Snapshot-Key"),
        declared: response.headers.get("X-Snapshot-Sha256"),
        actual: Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join(""),
      };
    },
    { name: SNAPSHOT_CACHE, entry: ENTRY },
  );
}

/**
 * Rewrites the stored snapshot from the page: `edit` names what to change
 * (`flip`: one byte of the memory, headers kept, as disk corruption would;
 * `build`: Pyodide's build id in the snapshot's header, with a matching
 * sha256, as a snapshot of another Pyodide would be; `key`: the bundle key,
 * as a snapshot from another deployment would be; `js`: a well-formed
 * snapshot, with a matching sha256, that would hand Python the worker's
 * `caches` while it is restored).
 */
function tamperSnapshot(sandpit, edit) {
  return sandpit.page.evaluate(
    async ({ name, entry, edit }) => {
      const cache = await caches.open(name);
      const url = new URL(entry, document.baseURI);
      const response = await cache.match(url);
      const bytes = new Uint8Array(await response.arrayBuffer());
      const headers = Object.fromEntries(response.headers);
      if (edit === "flip") bytes[bytes.length - 4096] ^= 0xff;
      if (edit === "build") bytes[16] ^= 0xff;
      if (edit === "key") headers["x-snapshot-key"] = "0".repeat(64);
      if (edit === "js") {
        // Pyodide's header: the JSON of the JS objects Python holds starts at byte 48, its length is the third word.
        const json = new TextEncoder().encode('{"hiwireKeys":[{"path":["caches"]}],"immortalKeys":[]}');
        bytes.set(json, 48);
        new Uint32Array(bytes.buffer, 0, 3)[2] = json.length;
      }
      if (edit === "build" || edit === "js") {
        const digest = await crypto.subtle.digest("SHA-256", bytes);
        headers["x-snapshot-sha256"] = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
      }
      await cache.put(url, new Response(bytes, { headers }));
    },
    { name: SNAPSHOT_CACHE, entry: ENTRY, edit },
  );
}

/**
 * Waits for the stored snapshot, tampers with it (`edit`, as in
 * tamperSnapshot), reloads, and says how the new start used it.
 */
async function startWithTampered(sandpit, edit) {
  await waitStored(sandpit);
  await tamperSnapshot(sandpit, edit);
  await sandpit.assertHealthy();
  await sandpit.reload();
  await sandpit.waitReady();
  return snapshotUse(sandpit);
}

describe("the start-up snapshot", () => {
  test("a return visit restores Python from the snapshot the first visit stored, and its sessions start clean", async () => {
    const sandpit = await openApp();
    assert.equal((await snapshotUse(sandpit)).status, "absent", "a first visit has no snapshot");
    // User code on the first visit tries to leave state behind for later visits.
    const poison = await sandpit.run(
      "import sys, json\nsys.poisoned = True\njson.poisoned = True\nleftover = 42\nopen('/tmp/mark', 'w').write('x')",
    );
    assert.equal(poison.phase, "ok", JSON.stringify(poison.json?.error));
    await waitStored(sandpit);
    // A maker that gave way to the run (it would have taken the run's cores) stored nothing.
    const storedBy = (await messages(sandpit)).filter(({ from, kind }) => from === "worker" && kind === "snapshot_stored");
    assert.equal(storedBy.length, 1, "the snapshot was stored once");
    const stored = await storedSnapshot(sandpit);
    assert.ok(stored, "the snapshot is in Cache Storage");
    assert.equal(stored.actual, stored.declared, "stored with the sha256 of its bytes");
    await sandpit.assertHealthy();

    await sandpit.reload();
    await sandpit.waitReady();
    const used = await snapshotUse(sandpit);
    assert.equal(used.status, "used", used.title);
    assert.match(used.title, /restored from its start-up snapshot/);

    // Nothing the first visit's code did is there.
    const clean = await sandpit.run(
      "import sys, json, os\n(hasattr(sys, 'poisoned'), hasattr(json, 'poisoned'), 'leftover' in globals(), os.path.exists('/tmp/mark'))",
    );
    assert.equal(clean.value, "(False, False, False, False)");
    // The runner restored with it works: output, values, errors located in the user's code.
    const printed = await sandpit.run("print('hi')\n6 * 7");
    assert.deepEqual(printed.output, [{ stream: "stdout", text: "hi\n" }]);
    assert.equal(printed.value, "42");
    const failed = await sandpit.run("x = 1\n1 / 0");
    assert.equal(failed.errorType, "ZeroDivisionError");
    assert.equal(failed.json.error.line, 2);
    assert.ok(!failed.json.error.traceback.includes("sandpit_runner"), failed.json.error.traceback);
    // What the runner imports only when it needs it is in the snapshot all the same.
    const warmed = await sandpit.run("import sys\n'difflib' in sys.modules");
    assert.equal(warmed.value, "True");
    // A bundled package still loads.
    const six = await sandpit.run("import six\nsix.__name__");
    assert.equal(six.value, "'six'", JSON.stringify(six.json?.error));
    // The interrupt buffer is wired to the restored interpreter: a timeout keeps the session.
    await sandpit.setTimeoutSeconds(1);
    const stopped = await sandpit.run("kept = 'yes'\nwhile True:\n    pass");
    assert.equal(stopped.json.status, "timeout");
    await sandpit.setTimeoutSeconds(30);
    assert.equal((await sandpit.run("kept")).value, "'yes'");

    // Python in a restored worker cannot reach the snapshot's storage by any name.
    const reach = await sandpit.run(
      reachableNamesCode(["caches", "indexedDB", "storage"]),
    );
    assert.equal(reach.value, "[]", JSON.stringify(reach.json?.error));
    const overwrite = await sandpit.run(`import js\nawait js.caches.open("${SNAPSHOT_CACHE}")`);
    assert.equal(overwrite.errorType, "AttributeError");
    assert.deepEqual(await storedSnapshot(sandpit), stored, "the snapshot is unchanged");
    // A restored start makes no new snapshot.
    const inits = (await messages(sandpit)).filter(({ from, kind }) => from === "host" && kind === "init");
    assert.ok(inits.every(({ data }) => !data.init.config.make_snapshot), "no maker on a return visit");
    await sandpit.assertHealthy();

    await sandpit.reload();
    await sandpit.waitReady();
    assert.equal((await snapshotUse(sandpit)).status, "used");
    assert.equal((await sandpit.run("'kept' in globals()")).value, "False");
    await sandpit.assertHealthy();
  });

  test("a run waiting when Python becomes ready finishes before the snapshot maker starts", async () => {
    app = await startApp();
    const sandpit = await app.newPage();
    // Python stays loading until the run is queued, so the run is waiting at ready.
    const held = await sandpit.holdDownloads("**/pyodide/python_stdlib.zip");
    await sandpit.open();
    const index = await sandpit.submit("print(1)");
    held.release();
    assert.equal((await sandpit.result(index)).phase, "ok");
    await waitStored(sandpit);
    const order = (await messages(sandpit)).map(({ from, kind, data }) =>
      from === "host" && kind === "init" ? (data.init.config.make_snapshot ? "maker started" : "worker started") : `${from} ${kind}`,
    );
    const relevant = order.filter((step) => ["worker ready", "host run", "worker done", "maker started"].includes(step));
    assert.deepEqual(relevant.slice(0, 4), ["worker ready", "host run", "worker done", "maker started"], order.join(", "));
    await sandpit.assertHealthy();
  });

  test("a corrupted snapshot is deleted, Python starts from scratch, and a new one is stored", async () => {
    const sandpit = await openApp();
    await waitStored(sandpit);
    await waitWorkersReady(sandpit, 2);
    const good = await storedSnapshot(sandpit);
    await tamperSnapshot(sandpit, "flip");
    assert.notEqual((await storedSnapshot(sandpit)).actual, good.actual);
    await sandpit.assertHealthy();

    await sandpit.reload();
    await sandpit.waitReady();
    const rejected = await snapshotUse(sandpit);
    assert.equal(rejected.status, "rejected");
    assert.match(rejected.title, /do not match their sha256/);
    assert.equal((await sandpit.run("print(1)")).phase, "ok");
    // The maker runs again and stores a good one, which the next visit uses.
    await waitStored(sandpit);
    const remade = await storedSnapshot(sandpit);
    assert.equal(remade.actual, remade.declared);
    await sandpit.assertHealthy();
    await sandpit.reload();
    await sandpit.waitReady();
    assert.equal((await snapshotUse(sandpit)).status, "used");
    await sandpit.assertHealthy();
  });

  test("a snapshot of another deployment, of another Pyodide build, or holding JS objects is not restored", async () => {
    const sandpit = await openApp();
    const otherDeployment = await startWithTampered(sandpit, "key");
    assert.equal(otherDeployment.status, "rejected");
    assert.match(otherDeployment.title, /made for another build of the app/);
    assert.equal((await sandpit.run("print(1)")).phase, "ok");

    // Right key and sha256, but Pyodide's own build id differs: Pyodide
    // refuses it after compiling, and the worker starts from scratch.
    const otherPyodide = await startWithTampered(sandpit, "build");
    assert.equal(otherPyodide.status, "rejected");
    assert.match(otherPyodide.title, /Pyodide could not restore it: Snapshot build id mismatch/);
    assert.equal((await sandpit.run("1 + 1")).value, "2");

    // Intact and of this build, but it names a JS object (Cache Storage) for
    // Python to hold: restoring would hand it over before the lockdown.
    const holdsJs = await startWithTampered(sandpit, "js");
    assert.equal(holdsJs.status, "rejected");
    assert.match(holdsJs.title, /holds JS objects/);
    assert.equal((await sandpit.run("import js\nhasattr(js, 'caches')")).value, "False");
    await sandpit.assertHealthy();
  });
});
