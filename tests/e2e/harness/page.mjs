// @ts-check
// The page object of the browser tests: the app as a user sees it, by its
// `data-testid` hooks. Each page records the messages between the app and
// its worker and collects console and page errors, so each test can fail on
// a message outside the protocol or on any error.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

// The code editor's bundle: its `EditorView` is CodeMirror's own, so a test
// reaches the page's editor with CodeMirror's `EditorView.findFromDOM`.
import { EDITOR_MODULE } from "../../../www/generated/names.js";
import { assertInProtocol, recordWorkerMessages } from "./protocol.mjs";
import { READY_TIMEOUT_MS, RUN_TIMEOUT_MS } from "./timeouts.mjs";

/**
 * Where code is typed: the editor, or the plain field that stands in for it
 * until its bundle has loaded (once Python has started, or when the field is focused).
 */
const CODE_FIELD = '[data-testid="code"], [data-testid="code-fallback"]';

/** The app as a user sees it, by its `data-testid` hooks. */
export class SandpitPage {
  constructor(page, url) {
    this.page = page;
    this.url = url;
    this.errors = [];
    /** Console warnings, which `assertHealthy` lets pass: tests that care read them. */
    this.warnings = [];
    this.checkedMessages = 0;
    page.on("console", (message) => {
      const logged = `console: ${message.text()} (${message.location().url})`;
      if (message.type() === "error") this.errors.push(logged);
      if (message.type() === "warning") this.warnings.push(logged);
    });
    page.on("pageerror", (error) => this.errors.push(`page: ${error.message}`));
  }

  async open() {
    await this.page.addInitScript(recordWorkerMessages);
    await this.page.goto(this.url);
    await this.page.locator(CODE_FIELD).first().waitFor();
    return this;
  }

  async waitReady() {
    await this.page
      .locator('[data-testid="runtime-state"][data-state="ready"]')
      .waitFor({ timeout: READY_TIMEOUT_MS });
    return this;
  }

  /** Waits until the service worker controls the page: the whole app is cached. */
  async waitOfflineReady() {
    await this.page
      .locator('[data-testid="offline-state"][data-state="ready"]')
      .waitFor({ state: "attached", timeout: READY_TIMEOUT_MS });
    return this.page.getByTestId("offline-state").getAttribute("data-version");
  }

  /**
   * Reloads through `action` (default: a plain reload), after checking the
   * page so far; the new document's worker messages are checked from zero.
   */
  async reload(action = () => this.page.reload()) {
    await this.assertHealthy();
    const loaded = this.page.waitForEvent("load");
    await action();
    await loaded;
    this.checkedMessages = 0;
    await this.page.locator(CODE_FIELD).first().waitFor();
    return this;
  }

  /**
   * The editor's text: CodeMirror's document, not its DOM, which holds
   * only the lines in view; the standing-in field's before the editor has loaded.
   */
  async code() {
    return this.page.evaluate(async (module) => {
      const editor = document.querySelector('[data-testid="code"]');
      if (!editor) return /** @type {HTMLTextAreaElement} */ (document.querySelector('[data-testid="code-fallback"]')).value;
      const { EditorView } = await import(new URL(module, document.baseURI).href);
      return EditorView.findFromDOM(editor).state.doc.toString();
    }, EDITOR_MODULE);
  }

  /** Where the editor's cursor is, as `[line, column]` (both from 1), once the editor has loaded. */
  async cursor() {
    await this.page.getByTestId("code").waitFor();
    return this.page.evaluate(async (module) => {
      const { EditorView } = await import(new URL(module, document.baseURI).href);
      const { state } = EditorView.findFromDOM(document.querySelector('[data-testid="code"]'));
      const head = state.selection.main.head;
      const line = state.doc.lineAt(head);
      return [line.number, head - line.from + 1];
    }, EDITOR_MODULE);
  }

  /**
   * Puts `code` in the editor in place of its text, as pasting it over a
   * selection of everything would (a transaction through CodeMirror's
   * `EditorView`: the keyboard is for the tests of the editor itself).
   * Before the editor has loaded, into the field standing in, without
   * focusing it (which would load the editor).
   */
  async setCode(code) {
    await this.page.evaluate(
      async ([module, text]) => {
        const editor = document.querySelector('[data-testid="code"]');
        if (!editor) {
          const field = /** @type {HTMLTextAreaElement} */ (document.querySelector('[data-testid="code-fallback"]'));
          field.value = text;
          field.dispatchEvent(new Event("input", { bubbles: true }));
          return;
        }
        const { EditorView } = await import(new URL(module, document.baseURI).href);
        const view = EditorView.findFromDOM(editor);
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: "input.paste" });
      },
      [EDITOR_MODULE, code],
    );
  }

  /**
   * Waits until the editor holds `expected` (a string, or a test of the
   * text), and returns its text; asked every 50 ms, since CodeMirror's
   * document is read asynchronously.
   *
   * @param {string | ((code: string) => boolean)} expected
   */
  async waitForCode(expected, { timeout = 10_000 } = {}) {
    const holds = typeof expected === "string" ? (code) => code === expected : expected;
    const deadline = Date.now() + timeout;
    for (;;) {
      const seen = await this.code().catch(() => null);
      if (seen !== null && holds(seen)) return seen;
      if (Date.now() > deadline) assert.fail(`the editor never held what was expected; it holds ${JSON.stringify(seen)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits until every change so far is saved (code, sessions, run history, files). */
  async waitSaved() {
    await this.page.locator('[data-testid="save-state"][data-state="saved"]').waitFor();
  }

  /** The current session's files as the Files panel lists them: `[path, keeping]` in path order. */
  async sessionFiles() {
    return this.page
      .getByTestId("session-file")
      .evaluateAll((items) => items.map((item) => [item.dataset.path, item.dataset.keeping]));
  }

  /** Downloads `path` from the Files panel; resolves to its bytes. */
  async downloadSessionFile(path) {
    const [download] = await Promise.all([
      this.page.waitForEvent("download"),
      this.page.locator(`[data-testid="session-file"][data-path="${path}"] [data-testid="download-file"]`).click(),
    ]);
    assert.equal(download.suggestedFilename(), path.split("/").at(-1));
    return readFile(await download.path());
  }

  /** Every cache of the origin: name -> the URLs it holds, sorted. */
  async cacheContents() {
    return this.page.evaluate(async () => {
      const contents = {};
      for (const name of await caches.keys()) {
        const requests = await (await caches.open(name)).keys();
        contents[name] = requests.map((request) => request.url).sort();
      }
      return contents;
    });
  }

  /** Opens the settings panel (storage usage is read when it opens). */
  async openSettings() {
    const settings = this.page.getByTestId("settings");
    if (!(await settings.evaluate((details) => details.open))) {
      await settings.locator("summary").click();
    }
    await this.page.getByTestId("storage-usage").filter({ hasText: /Storage/ }).waitFor();
  }

  async runtimeState() {
    return this.page.getByTestId("runtime-state").getAttribute("data-state");
  }

  /**
   * How many runs the page shows; after a reload, once it shows `expected`
   * (or 10 s have passed): the runs brought back are drawn just after the
   * editor appears, not with it.
   */
  async entryCount(expected = 0) {
    const entries = this.page.getByTestId("run-entry");
    if (expected > 0) await entries.nth(expected - 1).waitFor({ timeout: 10_000 }).catch(() => {});
    return entries.count();
  }

  /**
   * Types `code` and presses Run `times` times at once (all queued), then
   * waits until `shown` runs on the page have finished ok.
   */
  async runRepeatedly(code, times, shown) {
    await this.setCode(code);
    await this.page.evaluate((n) => {
      for (let i = 0; i < n; i++) document.querySelector('[data-testid="run"]').click();
    }, times);
    await this.page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="run-entry"][data-phase="ok"]').length === n,
      shown,
      { timeout: 120_000 },
    );
  }

  /** The value shown by each run on the page, in page order (oldest first). */
  async runValues() {
    return this.page.$$eval('[data-testid="run-entry"] [data-testid="value"]', (nodes) =>
      nodes.map((node) => node.textContent.replace(/^→ /, "")),
    );
  }

  /** Types `code` and presses Run (or Ctrl+Enter); returns the index of the new run. */
  async submit(code, { keyboard = false } = {}) {
    const index = await this.entryCount();
    await this.setCode(code);
    if (keyboard) {
      await this.page.locator(CODE_FIELD).first().press("Control+Enter");
    } else {
      await this.page.getByTestId("run").click();
    }
    await this.page.getByTestId("run-entry").nth(index).waitFor();
    return index;
  }

  /** Waits for run `index` to finish and reads it back from the page. */
  async result(index) {
    await this.page.waitForFunction(
      (n) => {
        const entry = document.querySelectorAll('[data-testid="run-entry"]')[n];
        return entry && !["queued", "loading", "running"].includes(entry.dataset.phase);
      },
      index,
      { timeout: RUN_TIMEOUT_MS },
    );
    // The structured result is written out only when its panel is opened;
    // one opened here is closed again once read, as the person left it.
    const opened = await this.page.evaluate((n) => {
      const toggle = document.querySelectorAll('[data-testid="run-entry"]')[n].querySelector('[data-testid="result-json-toggle"]');
      if (toggle?.getAttribute("aria-expanded") !== "false") return false;
      toggle.click();
      return true;
    }, index);
    await this.page.waitForFunction((n) => {
      const entry = document.querySelectorAll('[data-testid="run-entry"]')[n];
      return !entry.querySelector(".result-json") || entry.querySelector('[data-testid="result-json"]');
    }, index);
    const read = await this.page.evaluate((n) => {
      const entry = document.querySelectorAll('[data-testid="run-entry"]')[n];
      const text = (id) => entry.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
      return {
        phase: entry.dataset.phase,
        output: [...entry.querySelectorAll(".output > span")].map((span) => ({
          stream: span.dataset.testid,
          text: span.textContent,
        })),
        value: text("value")?.replace(/^→ /, "") ?? null,
        errorType: text("error-type"),
        errorMessage: text("error-message"),
        errorLine: entry.querySelector('[data-testid="error-line"]')?.dataset.line ?? null,
        highlightedLine: entry.querySelector('[data-testid="code-listing"]')?.dataset.errorLine ?? null,
        truncated: text("truncated"),
        failure: text("failure"),
        hint: entry.querySelector('[data-testid="hint"]')?.dataset.code ?? null,
        restored: text("restored"),
        exitCode: text("exit-code"),
        displays: [...entry.querySelectorAll('[data-testid="display"]')].map((d) => ({
          mime: d.dataset.mime,
          tag: d.tagName.toLowerCase(),
          sandbox: d.getAttribute("sandbox"),
        })),
        /** The structured result, exactly as a model would receive it. */
        json: JSON.parse(text("result-json") ?? "null"),
      };
    }, index);
    if (opened) {
      await this.page.evaluate((n) => {
        const entry = document.querySelectorAll('[data-testid="run-entry"]')[n];
        /** @type {HTMLElement} */ (entry.querySelector('[data-testid="result-json-toggle"]')).click();
      }, index);
    }
    return read;
  }

  /** Sets the timeout field (seconds; 0 means none). */
  async setTimeoutSeconds(seconds) {
    const field = this.page.getByTestId("timeout");
    await field.fill(String(seconds));
    await field.dispatchEvent("change");
  }

  /** Holds every response matching `pattern` until `release()` is called. */
  async holdDownloads(pattern) {
    let release;
    const held = new Promise((resolve) => {
      release = resolve;
    });
    await this.page.context().route(pattern, async (route) => {
      await held;
      await route.continue();
    });
    return { release };
  }

  /** Sets the current session's packages field. */
  async setPackages(text) {
    const field = this.page.getByTestId("packages");
    await field.fill(text);
    await field.dispatchEvent("change");
  }

  /** Creates a session and switches to it. */
  async newSession(name) {
    await this.page.getByTestId("new-session-name").fill(name);
    await this.page.getByTestId("new-session").click();
    await this.page.waitForFunction(
      (n) => /** @type {HTMLSelectElement} */ (document.querySelector('[data-testid="session"]')).value === n,
      name,
    );
  }

  async selectSession(name) {
    await this.page.getByTestId("session").selectOption(name);
  }

  async sessionNames() {
    return this.page.getByTestId("session").locator("option").allTextContents();
  }

  /** Presses Reset or Delete and waits for the session notice. */
  async clearSession(button) {
    await this.page.getByTestId(button).click();
    await this.page.getByTestId("confirm-clear-session").click();
    await this.page.getByTestId("session-notice").filter({ hasText: /was (reset|deleted)/ }).waitFor();
  }

  /** Submits `code` and waits for its result. */
  async run(code, options) {
    return this.result(await this.submit(code, options));
  }

  /**
   * Fails on console errors (except those matching `allow`), page errors, or
   * a worker message the protocol does not define, since the last call.
   * Returns the messages it checked.
   */
  async assertHealthy({ allow = [] } = {}) {
    const errors = this.errors.splice(0).filter((e) => !allow.some((pattern) => pattern.test(e)));
    assert.deepEqual(errors, [], "the page logged errors");
    const messages = await this.page.evaluate(
      (from) => window.__sandpitMessages.slice(from),
      this.checkedMessages,
    );
    assert.ok(this.checkedMessages + messages.length > 0, "no worker messages were recorded");
    this.checkedMessages += messages.length;
    assertInProtocol(messages);
    return messages;
  }

  async close() {
    await this.page.context().close();
  }
}
