// @ts-check
// The MCP server's calls and ledger, without a browser: what a view is handed
// to replay, what a failed replay does to the ledger, what the call's result
// says about it, and when a call nobody takes ends. No tab ever connects here.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Calls } from "../../mcp-server/lib/calls.mjs";
import { Ledger } from "../../mcp-server/lib/ledger.mjs";
import { Tabs } from "../../mcp-server/lib/tabs.mjs";

const OPEN = "http://127.0.0.1:1/?relay=1&pair=t";
const ok = { content: [], structuredContent: { status: "ok" } };
const raised = { content: [], structuredContent: { status: "error" }, isError: true };

describe("the ledger", () => {
  test("keeps a session's runs that succeeded, in order, for a fresh interpreter to replay", () => {
    const ledger = new Ledger();
    ledger.record("run_python", { code: "a = 1", timeout_seconds: 5, memory_limit_mb: 64 }, ok);
    ledger.record("run_python", { code: "b = a + x", session: "main" }, raised);
    ledger.record("run_python", { code: "b = 2", packages: ["sympy"], tests: "assert b == 2" }, ok);
    ledger.record("run_python", { code: "other = 3", session: "s" }, ok);
    ledger.record("check_python", { code: "c = 3" }, ok);
    assert.deepEqual(ledger.replays("run_python", { code: "b", session: null }), [
      { seq: 1, arguments: { code: "a = 1", session: "main", packages: [], files: [] } },
      { seq: 2, arguments: { code: "b = 2", session: "main", packages: ["sympy"], files: [], tests: "assert b == 2" } },
    ]);
    assert.deepEqual(ledger.replays("check_python", { code: "b" }), [], "a check needs no session state");
    assert.equal(ledger.replays("run_python", { code: "", session: "s" }).length, 1, "sessions keep their own ledgers");
  });

  test("a reset empties its session's ledger; a failed reset does not", () => {
    const ledger = new Ledger();
    ledger.record("run_python", { code: "a = 1", session: "s" }, ok);
    ledger.record("reset_session", { session: "s" }, raised);
    assert.equal(ledger.replays("run_python", { code: "", session: "s" }).length, 1);
    ledger.record("reset_session", { session: "s" }, { content: [] });
    assert.deepEqual(ledger.replays("run_python", { code: "", session: "s" }), []);
  });

  test("an entry whose replay failed is dropped, and said to be lost", () => {
    const ledger = new Ledger();
    ledger.record("run_python", { code: "import time\nstarted = time.time()" }, ok);
    ledger.record("run_python", { code: "kept = 1" }, ok);
    const lost = ledger.lose({ code: "next" }, [{ seq: 1, reason: "ValueError: bad" }, { seq: 99, reason: "not ours" }]);
    assert.deepEqual(lost, [{ session: "main", code_start: "import time", reason: "ValueError: bad" }]);
    assert.deepEqual(
      ledger.replays("run_python", { code: "next" }).map((replay) => replay.seq),
      [2],
    );
  });
});

describe("calls", () => {
  const calls = () => new Calls({ tabs: new Tabs({ origins: [], token: "t", log: () => {} }), openUrl: () => OPEN, waitSeconds: 1 });

  test("a view claims a call with the session's ledger, and its result says what came back", async () => {
    const c = calls();
    const signal = new AbortController().signal;
    const first = c.call("run_python", { code: "a = 1" }, { views: true, signal, onOutput: () => {} });
    const claimed = c.claim("run_python", { code: "a = 1" });
    assert.ok(claimed);
    assert.deepEqual(claimed.replay, []);
    assert.equal(c.claim("run_python", { code: "a = 1" }), null, "a call is claimed once");
    assert.ok(c.complete(claimed.call, ok, []));
    assert.deepEqual(await first, ok, "nothing replayed: the result as the view gave it");

    const second = c.call("run_python", { code: "a + 1" }, { views: true, signal, onOutput: () => {} });
    const again = c.claim("run_python", { code: "a + 1" });
    assert.deepEqual(again?.replay, [{ seq: 1, arguments: { code: "a = 1", session: "main", packages: [], files: [] } }]);
    assert.ok(c.complete(String(again?.call), ok, [{ seq: 1, reason: "NameError: x" }]));
    const result = await second;
    assert.deepEqual(result.structuredContent?.restored, {
      replayed: 0,
      lost: [{ session: "main", code_start: "a = 1", reason: "NameError: x" }],
      before_run: true,
    });
    assert.equal(c.complete(String(again?.call), ok, []), false, "a finished call takes no second result");
  });

  test("a call nobody takes ends at its wait and names the URL to open; a cancel ends it at once", async () => {
    const c = calls();
    const result = await c.call("run_python", { code: "1" }, { views: false, signal: new AbortController().signal, onOutput: () => {} });
    assert.equal(result.isError, true);
    assert.match(/** @type {any} */ (result.content[0]).text, /nothing took this call within 1 s/);
    assert.ok(/** @type {any} */ (result.content[0]).text.includes(OPEN));

    const cancel = new AbortController();
    const waiting = c.call("run_python", { code: "1", timeout_seconds: 600 }, { views: true, signal: cancel.signal, onOutput: () => {} });
    cancel.abort();
    assert.match(/** @type {any} */ ((await waiting).content[0]).text, /cancelled/);
    assert.equal(c.claim("run_python", { code: "1", timeout_seconds: 600 }), null, "a cancelled call is not there to claim");
  });
});
