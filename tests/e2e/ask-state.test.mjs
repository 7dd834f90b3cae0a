// @ts-check
// The Ask panel's state and secrets: Anthropic's Messages API and a key sent
// only to the endpoint it was confirmed for, the conversation kept across a
// reload mid-loop and deleted with its session, and the API key out of
// Python's reach. The model is the stub server of ask-panel.mjs; everything
// else is the real app, its worker and Python. One app and one page for the
// file.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";

import { KEY, runCall, toolMessages, useAskPanel } from "./ask-panel.mjs";
import { reachableNamesCode } from "./harness/python.mjs";

/** @type {Awaited<ReturnType<typeof import("./model-stub.mjs").startModelStub>>} */
let stub;
/** @type {import("./harness/page.mjs").SandpitPage} */
let sandpit;
const { settings, panel, fresh, ask, settled } = useAskPanel((ready) => {
  ({ stub, sandpit } = ready);
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
