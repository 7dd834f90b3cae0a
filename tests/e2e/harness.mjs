// @ts-check
// Shared set-up for the browser tests: the built bundle served on loopback,
// Debian's headless Chromium driven by playwright-core, and a page object.
//
// Every page records the messages between the app and its worker (a spy on
// `Worker`, nothing replaced) so each test can check them against the JSON
// Schema generated from src/protocol.rs, and collects console and page
// errors so each test can fail on them.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { after, afterEach, before } from "node:test";

import Ajv2020 from "ajv/dist/2020.js";
import { chromium } from "playwright-core";

import { serve, serveMakeRun } from "../../scripts/serve.mjs";
// The code editor's bundle: its `EditorView` is CodeMirror's own, so a test
// reaches the page's editor with CodeMirror's `EditorView.findFromDOM`.
import { EDITOR_MODULE } from "../../www/generated/names.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The built bundle the tests serve. */
export const DIST = join(ROOT, "dist");

/**
 * Python that walks the prototype chains of the worker's global and its
 * navigator and evaluates to the sorted list of `names` found on any of them:
 * a name removed from one object but left on a prototype is still reachable.
 */
export function reachableNamesCode(names) {
  const wanted = names.map((name) => `'${name}'`).join(", ");
  return [
    "import js",
    "from pyodide.ffi import jsnull",
    "found = []",
    "for root in (js.self, js.navigator):",
    "    o = root",
    "    while o is not None and o is not jsnull:",
    `        found += sorted(set(js.Object.getOwnPropertyNames(o)) & {${wanted}})`,
    "        o = js.Object.getPrototypeOf(o)",
    "found",
  ].join("\n");
}

/** Where tests save screenshots of the page's states, for a person to look at (git-ignored). */
export const ARTIFACTS = join(ROOT, "tests", "e2e", "artifacts");

/**
 * Saves what `page` shows now as ARTIFACTS/`name`.png: the viewport, as a
 * person sees it (a full-page picture would show the runs out of view
 * blank, since the browser skips drawing them).
 */
export async function screenshot(page, name) {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/** How long Python may take to load in a test (cold wasm compile on a busy 2-core machine). */
export const READY_TIMEOUT_MS = 60_000;
/** How long one run may take in a test. */
export const RUN_TIMEOUT_MS = 60_000;

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const schema = JSON.parse(readFileSync(join(ROOT, "tests/fixtures/protocol.schema.json"), "utf8"));
/** The numeric formats schemars writes for Rust's number types, checked for real. */
const NUMBER_FORMATS = {
  int32: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  uint32: (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32,
  uint64: (n) => Number.isSafeInteger(n) && n >= 0,
  uint: (n) => Number.isSafeInteger(n) && n >= 0,
  double: (n) => Number.isFinite(n),
};
const ajv = new Ajv2020({ allErrors: true, strict: true });
for (const [name, validate] of Object.entries(NUMBER_FORMATS)) {
  ajv.addFormat(name, { type: "number", validate });
}
ajv.addSchema(schema, "protocol");
const validHostMessage = ajv.getSchema("protocol#/$defs/HostMessage");
const validWorkerMessage = ajv.getSchema("protocol#/$defs/WorkerMessage");

/**
 * Installed before any page script: records what crosses the worker boundary,
 * both `init` on the worker itself and everything on the private channel,
 * as `{ from, kind, data }`: each message is an object with one field, named
 * for its kind (`{ done: { id, result } }`), and `kind` is that name.
 */
export function recordWorkerMessages() {
  window.__sandpitMessages = [];
  const record = (from, data) =>
    window.__sandpitMessages.push({ from, kind: Object.keys(data ?? {})[0], data });
  // Only channels whose other end went to a Worker carry the protocol (the
  // page also talks to its service worker over channels of its own).
  const peers = new WeakMap();
  const protocolPorts = new WeakSet();
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    /**
     * @param {string | URL} url
     * @param {WorkerOptions} [options]
     */
    constructor(url, options) {
      super(url, options);
      // The clock worker (pyodide-loader/clock.mjs) keeps timers: not the Python protocol.
      this.python = String(url).endsWith("pyodide-loader/worker.mjs");
    }

    /**
     * @param {any} data
     * @param {any} transfer
     * @param {[]} rest
     */
    postMessage(data, transfer, ...rest) {
      if (!this.python) return super.postMessage(data, transfer, ...rest);
      record("host", data);
      for (const port of Array.isArray(transfer) ? transfer : []) {
        if (peers.has(port)) protocolPorts.add(peers.get(port));
      }
      return super.postMessage(data, transfer, ...rest);
    }
  };
  const NativeChannel = window.MessageChannel;
  window.MessageChannel = class extends NativeChannel {
    constructor() {
      super();
      const mine = this.port1;
      peers.set(this.port2, mine);
      // port1 stays with the page: what arrives on it comes from the worker.
      mine.addEventListener("message", (event) => {
        if (protocolPorts.has(mine)) record("worker", event.data);
      });
      const send = mine.postMessage.bind(mine);
      mine.postMessage = (data, ...rest) => {
        if (protocolPorts.has(mine)) record("host", data);
        return send(data, ...rest);
      };
    }
  };
}

/**
 * Tests run with no network: anything not on loopback fails at once, as it
 * would offline (nothing may reach a CDN from a test).
 */
export function loopbackOnly(context) {
  return context.route(
    (url) => !["127.0.0.1", "localhost"].includes(url.hostname) && url.protocol.startsWith("http"),
    (route) => route.abort("internetdisconnected"),
  );
}

/** Debian's headless Chromium with the flags this machine kind needs (see TOOLCHAIN.md); also used by bench/. */
export function launchChromium() {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/**
 * The same Chromium as a browser of its own with a fresh on-disk profile,
 * as a user has it (incognito contexts offer no installation, and their
 * HTTP cache lives in memory); `options` go to Playwright's
 * `launchPersistentContext`. Resolves to `{ context, close }`; `close()`
 * also deletes the profile. Also used by bench/.
 */
export async function openProfile(options = {}) {
  const profile = await mkdtemp(join(tmpdir(), "sandpit-profile-"));
  const remove = () => rm(profile, { recursive: true, force: true });
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, { ...options, executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    context,
    async close() {
      await context.close();
      await remove();
    },
  };
}

/**
 * Serves dist/ (or `root`) and launches Chromium. `isolated: false` serves
 * without COOP/COEP, as a page embedded in a third-party site would be;
 * `allowOrigins` are origins the network policy lets Python fetch from;
 * `secure: false` serves no security headers, as a plain static host;
 * `embedOrigins` are pages allowed to drive the widget.
 * `server` is exposed so a test can stop it (offline) or serve another
 * deployment from the same origin (`server.setRoot`).
 *
 * `makeRun: true` serves it exactly as `make run` does (its demo page too),
 * and ignores the other options.
 *
 * @param {{ isolated?: boolean, secure?: boolean, allowOrigins?: string[], embedOrigins?: string[], root?: string, makeRun?: boolean, sessions?: object }} [options]
 */
export async function startApp({ isolated = true, secure = true, allowOrigins, embedOrigins, root = DIST, makeRun = false, sessions } = {}) {
  assert.ok(existsSync(join(root, "index.html")), `${root} is missing: run \`make build\` first`);
  const served = makeRun ? await serveMakeRun({ root, port: 0 }) : null;
  const server = served?.server ?? (await serve({ root, isolated, secure, allowOrigins, embedOrigins, sessions }));
  const browser = await launchChromium();
  const profiles = [];
  return {
    url: server.url,
    browser,
    server,
    /**
     * A fresh page object in its own (incognito) browser context; `options`
     * go to the context (`serviceWorkers: "block"` keeps every request on the
     * network, where a test can hold it).
     */
    async newPage(options = {}) {
      const context = await browser.newContext(options);
      await loopbackOnly(context);
      const page = await context.newPage();
      return new SandpitPage(page, server.url);
    },
    /**
     * A page in a browser with an on-disk profile, as a user has it: Chromium
     * offers installation only outside incognito contexts.
     */
    async newProfilePage() {
      const opened = await openProfile();
      profiles.push(opened);
      const { context } = opened;
      await loopbackOnly(context);
      const page = context.pages()[0] ?? (await context.newPage());
      return new SandpitPage(page, server.url);
    },
    async close() {
      await browser.close();
      await (served ?? server).close();
      // A persistent context is a browser of its own.
      for (const opened of profiles) await opened.close();
    },
  };
}

/**
 * A chat page of its own origin, served by `serveDemo` at `host` (with a
 * `/host.html`), that embeds the app's headless widget through
 * sandpit-client.js as `window.sandpit`; `sessions` is the deployment's
 * pool settings, if any. Returns the app and the page object.
 *
 * @param {{ url: string }} host
 * @param {object} [sessions]
 */
export async function embedHeadless(host, sessions) {
  const app = await startApp({ embedOrigins: [new URL(host.url).origin], sessions });
  const sandpit = await app.newPage();
  await sandpit.page.goto(new URL("host.html", host.url).href);
  await sandpit.page.evaluate(
    async ({ appUrl, timeoutMs }) => {
      const { Sandpit } = await import(new URL("sandpit-client.js", appUrl).href);
      window.sandpit = await Sandpit.create({ headless: true, timeoutMs });
    },
    { appUrl: app.url, timeoutMs: READY_TIMEOUT_MS },
  );
  return { app, sandpit };
}

/**
 * The usual hooks of a describe block: one app and one ready page for the
 * block, health checked after each test (console errors matching `allow`
 * excepted), everything closed at the end. `ready(sandpit, app)` receives
 * the page once it is ready, to keep it and finish setting it up.
 */
export function useSandpit(ready, { isolated = true, allow = [] } = {}) {
  let app;
  let sandpit;
  before(async () => {
    app = await startApp({ isolated });
    sandpit = await (await app.newPage()).open();
    await sandpit.waitReady();
    await ready(sandpit, app);
  });
  afterEach(async () => {
    await sandpit.assertHealthy({ allow });
  });
  after(async () => {
    await app?.close();
  });
}

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
    await this.page.getByTestId("code").waitFor();
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
    await this.page.getByTestId("code").waitFor();
    return this;
  }

  /**
   * The editor's text: CodeMirror's document, not its DOM, which holds
   * only the lines in view.
   */
  async code() {
    return this.page.evaluate(async (module) => {
      const { EditorView } = await import(new URL(module, document.baseURI).href);
      return EditorView.findFromDOM(document.querySelector('[data-testid="code"]')).state.doc.toString();
    }, EDITOR_MODULE);
  }

  /** Where the editor's cursor is, as `[line, column]` (both from 1). */
  async cursor() {
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
   */
  async setCode(code) {
    await this.page.evaluate(
      async ([module, text]) => {
        const { EditorView } = await import(new URL(module, document.baseURI).href);
        const view = EditorView.findFromDOM(document.querySelector('[data-testid="code"]'));
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

  async entryCount() {
    return this.page.getByTestId("run-entry").count();
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
      await this.page.getByTestId("code").press("Control+Enter");
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
    for (const { from, data } of messages) {
      const validate = from === "host" ? validHostMessage : validWorkerMessage;
      assert.ok(
        validate(data),
        `${from} sent a message outside the protocol: ${JSON.stringify(data).slice(0, 300)}\n` +
          ajv.errorsText(validate.errors),
      );
    }
    return messages;
  }

  async close() {
    await this.page.context().close();
  }
}

/**
 * A figure as Python libraries return them: a class whose `_repr_png_`
 * gives a 4x4 red PNG (matplotlib itself downloads from the CDN, which
 * tests cannot reach). Defines `RedSquare`; show one to get the figure.
 */
export const RED_SQUARE_CLASS = [
  "import struct, zlib",
  "def chunk(kind, data):",
  "    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))",
  "class RedSquare:",
  "    def _repr_png_(self):",
  "        rows = b''.join(b'\\x00' + b'\\xff\\x00\\x00' * 4 for _ in range(4))",
  "        header = struct.pack('>IIBBBBB', 4, 4, 8, 2, 0, 0, 0)",
  "        return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')",
].join("\n");

/** axe-core's script (pinned in package.json), to add to a page. */
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/**
 * The serious and critical violations axe finds in `page`, as lines naming
 * the rule and the elements.
 *
 * @param {import("playwright-core").Page} page
 */
export async function seriousViolations(page) {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    // @ts-expect-error axe is the global the script tag just added.
    const { violations } = await window.axe.run(document, { resultTypes: ["violations"] });
    return violations.map((/** @type {any} */ v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((/** @type {any} */ n) => n.target.join(" ")).slice(0, 5),
    }));
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.join(", ")}`);
}
