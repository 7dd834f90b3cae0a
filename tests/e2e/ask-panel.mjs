// @ts-check
// What the Ask panel's suites (ask-*.test.mjs) share: a stub model server on
// loopback (model-stub.mjs: a test double, since a model's API is an outside
// service we cannot run here) that speaks OpenAI's Chat Completions and
// Anthropic's Messages with scripted, streamed answers; one app and one page
// for the file, set up for the stub; and the steps a test takes in the panel.
import { createHash } from "node:crypto";
import { after, before } from "node:test";

import { useSandpit } from "./harness.mjs";
import { startModelStub } from "./model-stub.mjs";

/** The key entered in Settings: the search from Python must never find it. */
export const KEY = `sk-sandpit-${createHash("sha256").update(String(Math.random())).digest("hex").slice(0, 24)}`;
export const MODEL = "stub-model";

/**
 * The hooks of an Ask suite: the stub, and one ready page whose model
 * settings point at the stub's OpenAI endpoint with `MODEL` and `KEY`.
 * `ready({ stub, sandpit })` hands both to the suite once they are set up.
 * Returns the panel's steps, bound to that page and stub.
 */
export function useAskPanel(ready) {
  /** @type {Awaited<ReturnType<typeof startModelStub>>} */
  let stub;
  /** @type {import("./harness/page.mjs").SandpitPage} */
  let sandpit;

  before(async () => {
    stub = await startModelStub();
  });
  after(async () => {
    await stub?.close();
  });
  useSandpit(
    async (page) => {
      sandpit = page;
      await settings({ endpoint: `${stub.url}/openai/v1`, model: MODEL, key: KEY });
      ready({ stub, sandpit });
    },
    // The browser logs every failed request; these the tests make on purpose.
    { allow: [/Failed to load resource: (the server responded with a status of (401|404|429)|net::ERR_CONNECTION_REFUSED)/] },
  );

  /** Sets fields of the model's settings (each applies when it changes). */
  async function settings({ provider = undefined, endpoint = undefined, model = undefined, key = undefined, steps = undefined }) {
    const page = sandpit.page;
    const panel = page.getByTestId("settings");
    if (!(await panel.evaluate((details) => /** @type {HTMLDetailsElement} */ (details).open))) {
      await panel.locator("summary").click();
    }
    if (provider !== undefined) await page.getByTestId("model-provider").selectOption(provider);
    /** @param {string} id @param {string | number | undefined} value */
    const set = async (id, value) => {
      if (value === undefined) return;
      const field = page.getByTestId(id);
      await field.fill(String(value));
      await field.dispatchEvent("change");
    };
    await set("model-endpoint", endpoint);
    await set("model-name", model);
    await set("model-key", key);
    await set("model-steps", steps);
    await panel.locator("summary").click();
  }

  const panel = () => sandpit.page.getByTestId("ask-panel");

  /** Starts a new conversation with nothing scripted or recorded. */
  async function fresh() {
    stub.reset();
    const clear = sandpit.page.getByTestId("ask-clear");
    if (await clear.isEnabled()) await clear.click();
    await sandpit.page.waitForFunction(() => document.querySelectorAll('[data-testid="ask-log"] > li').length === 0);
  }

  /** Asks `text` with Enter, then waits until the loop has ended. */
  async function ask(text) {
    const input = sandpit.page.getByTestId("ask-input");
    await input.fill(text);
    await input.press("Enter");
    await settled();
  }

  /** Waits until the loop is idle and has ended with a final answer or a note. */
  async function settled() {
    await sandpit.page.waitForFunction(
      () => {
        const panel = document.querySelector('[data-testid="ask-panel"]');
        const last = document.querySelector('[data-testid="ask-log"] > li:last-child');
        const ended =
          last?.matches('[data-testid="ask-note"]:not([data-kind="waiting"])') ||
          (last?.matches('[data-testid="ask-answer"][data-end="complete"]') && last.querySelector('[data-testid="ask-verdict"]'));
        return panel?.getAttribute("data-phase") === "idle" && ended;
      },
      null,
      { timeout: 60_000 },
    );
  }

  /** The notes shown, `[kind, text]`. */
  const notes = () =>
    sandpit.page.getByTestId("ask-note").evaluateAll((nodes) => nodes.map((n) => [/** @type {HTMLElement} */ (n).dataset.kind, n.textContent]));

  return { settings, panel, fresh, ask, settled, notes };
}

/** The content of each `tool` message of a recorded OpenAI request. */
export const toolMessages = (request) => request.body.messages.filter((m) => m.role === "tool").map((m) => m.content);

/** A `run_python` call as the stub streams it. */
export const runCall = (id, code, tests) => ({ id, name: "run_python", args: JSON.stringify(tests === undefined ? { code } : { code, tests }) });
