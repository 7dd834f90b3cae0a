// @ts-check
// The embedding client as a chat-UI developer installs it: the tarball
// `make client` packs (npm pack of client/), unpacked as npm would, its
// exports and types used by a TypeScript consumer, and its module imported by
// a chat page on another origin, which `make run EMBED=<that origin>` (the
// server started exactly as make run starts it) lets drive the widget.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { serveDemo } from "../../scripts/serve.mjs";
import { DIST, ROOT } from "./harness.mjs";
import { launchChromium } from "./harness/browser.mjs";
import { RUN_TIMEOUT_MS } from "./harness/timeouts.mjs";

const { version } = JSON.parse(await readFile(join(ROOT, "client", "package.json"), "utf8"));
const TARBALL = join(ROOT, "target", `sandpit-client-${version}.tgz`);

/** Where the chat page serves the package's module (the file its exports name). */
const CLIENT_MODULE = "/sandpit-client.js";

/** The chat page. */
const HOST_PAGE = `<!doctype html><meta charset="utf-8"><title>chat</title>
<body><main><ol id="messages"></ol><section id="sandpit"></section></main></body>`;

/** @type {string} */
let unpacked;
/** @type {Record<string, any>} */
let manifest;
/** @type {Awaited<ReturnType<typeof serveDemo>>} */
let chat;
/** @type {Awaited<ReturnType<typeof serveDemo>>} */
let stranger;
/** @type {{ url: string, demo: string, stop: () => Promise<void> }} */
let app;
/** @type {import("playwright-core").Browser} */
let browser;

/**
 * `node scripts/serve.mjs dist 0 <origins>`, as `make run EMBED="<origins>"`
 * runs it (port 0: a free one, the demo on another); resolves once it listens.
 *
 * @param {string[]} origins
 */
function makeRun(origins) {
  const child = spawn(process.execPath, [join(ROOT, "scripts", "serve.mjs"), DIST, "0", origins.join(" ")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let printed = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      printed += chunk;
      const url = printed.match(/Sandpit is at (http:\S+);/)?.[1];
      const demo = printed.match(/embedding it is at (http:\S+) /)?.[1];
      if (url && demo && printed.includes("may drive its widget too")) {
        resolve({
          url,
          demo,
          stop: async () => {
            child.kill("SIGTERM");
            await exited;
          },
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`serve.mjs exited (${code}): ${printed}`)));
  });
}

before(async () => {
  assert.ok(existsSync(TARBALL), `${TARBALL} is missing: run \`make client\` first`);
  unpacked = await mkdtemp(join(tmpdir(), "sandpit-client-package-"));
  // Where npm puts an installed package.
  const installed = join(unpacked, "node_modules", "sandpit-client");
  await mkdir(installed, { recursive: true });
  execFileSync("tar", ["-xzf", TARBALL, "-C", installed, "--strip-components=1"]);
  manifest = JSON.parse(await readFile(join(installed, "package.json"), "utf8"));
  const entry = join(installed, manifest.exports["."].default);
  const files = {
    "/chat.html": { type: "text/html", body: HOST_PAGE },
    [CLIENT_MODULE]: { type: "text/javascript", body: await readFile(entry, "utf8") },
  };
  chat = await serveDemo({ files });
  stranger = await serveDemo({ files });
  app = await makeRun([new URL(chat.url).origin]);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  await chat?.close();
  await stranger?.close();
  if (unpacked) await rm(unpacked, { recursive: true, force: true });
});

describe("the packed client", () => {
  test("declares its exports, version and types, and a TypeScript consumer type-checks against them", async () => {
    assert.equal(manifest.name, "sandpit-client");
    assert.equal(manifest.exports["."].types, manifest.types);
    for (const path of [manifest.exports["."].default, manifest.types, "README.md"]) {
      assert.ok(existsSync(join(unpacked, "node_modules", "sandpit-client", path)), `the tarball has ${path}`);
    }
    const consumer = `
      import { Sandpit, SandpitError, ERROR_CODES, VERSION, type CreateOptions, type RunOptions, type RunResult } from "sandpit-client";
      const options: CreateOptions = { url: "https://sandpit.example/widget.html", maxHeight: 300, order: "oldest-first", hideCode: true, hideJson: true };
      // @ts-expect-error: no such option
      const misspelt: CreateOptions = { maxHight: 300 };
      // @ts-expect-error: not an order
      const sideways: CreateOptions = { order: "sideways" };
      export async function use(target: HTMLElement): Promise<string> {
        const sandpit = await Sandpit.create(options);
        const run: RunOptions = { target, session: "s", timeoutSeconds: 5, files: [{ path: "a.txt", text: "a" }], signal: new AbortController().signal };
        const result: RunResult = await sandpit.run("1", run);
        const status: "ok" | "error" | "timeout" | "crashed" | "cancelled" = result.status;
        const line: number | null | undefined = result.error?.line;
        const png: string | null | undefined = result.displays[0]?.["image/png"];
        // @ts-expect-error: a RunResult has no such field
        result.stdot;
        const code: number = new SandpitError("x", ERROR_CODES.CLOSED).code;
        return [VERSION, status, line, png, code, misspelt, sideways].join();
      }
    `;
    const file = join(unpacked, "consumer.ts");
    await writeFile(file, consumer);
    const tsc = join(ROOT, "node_modules", ".bin", "tsc");
    const options = ["--target", "es2023", "--module", "esnext", "--moduleResolution", "bundler", "--lib", "es2023,dom", "--types", ""];
    let output = "";
    try {
      execFileSync(tsc, ["--ignoreConfig", "--noEmit", "--strict", ...options, file], { cwd: unpacked, encoding: "utf8" });
    } catch (error) {
      output = String(/** @type {any} */ (error).stdout);
    }
    assert.equal(output, "", "the consumer type-checks, and each @ts-expect-error is an error");
  });

  test("drives the widget from a chat page on an origin make run's EMBED allowed, with the display options", { timeout: RUN_TIMEOUT_MS * 2 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    /** @type {string[]} */
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    try {
      await page.goto(new URL("chat.html", chat.url).href);
      const out = await page.evaluate(
        async ({ widget, module }) => {
          const { Sandpit, VERSION } = await import(module);
          const sandpit = await Sandpit.create({
            url: widget,
            container: /** @type {HTMLElement} */ (document.querySelector("#sandpit")),
            maxHeight: 200,
            order: "oldest-first",
            hideCode: true,
            hideJson: true,
            timeoutMs: 60_000,
          });
          // The run of one chat message shows in that message.
          const message = document.createElement("li");
          document.querySelector("#messages")?.append(message);
          const heard = [];
          const table = "class T:\n    def _repr_html_(self):\n        return '<table><tr><td>cell</td></tr></table>'\ndisplay(T())";
          const result = await sandpit.run(`print('in the message')\n${table}\n6 * 7`, {
            target: message,
            showCode: true,
            onStdout: (text) => heard.push(text),
          });
          for (let i = 0; i < 6; i++) await sandpit.run(`print(${i})`);
          /** @type {any} */ (window).sandpit = sandpit;
          return { version: VERSION, status: result.status, heard, iframeHeight: sandpit.iframe.getBoundingClientRect().height };
        },
        { widget: new URL("widget.html", app.url).href, module: CLIENT_MODULE },
      );
      assert.equal(out.version, version);
      assert.equal(out.status, "ok");
      assert.deepEqual(out.heard, ["in the message\n"]);

      const shown = page.locator("#messages li .sandpit-run");
      assert.equal(await shown.getAttribute("data-sandpit-status"), "ok");
      assert.equal(await shown.locator('[data-sandpit-part="code"]').textContent(), "print('in the message')\nclass T:\n    def _repr_html_(self):\n        return '<table><tr><td>cell</td></tr></table>'\ndisplay(T())\n6 * 7");
      assert.equal(await shown.locator('[data-sandpit-part="output"]').textContent(), "in the message\n");
      assert.equal(await shown.locator('[data-sandpit-part="value"]').textContent(), "→ 42");
      // HTML in a frame sandboxed as the widget's are: scripts, but an opaque
      // origin that reaches nothing of the chat page, under a policy that loads nothing.
      const frame = shown.locator("iframe.sandpit-html");
      assert.equal(await frame.getAttribute("sandbox"), "allow-scripts");
      assert.match((await frame.getAttribute("srcdoc")) ?? "", /^<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
      const inner = page.frames().find((f) => f.parentFrame() === page.mainFrame() && f.url() === "about:srcdoc");
      assert.ok(inner, "the HTML output's frame");
      assert.equal(await inner.locator("td").textContent(), "cell");
      const reach = await inner.evaluate(() => {
        try {
          return parent.document.title;
        } catch (error) {
          return /** @type {Error} */ (error).name;
        }
      });
      assert.equal(reach, "SecurityError");
      await page.waitForFunction(() => {
        const html = document.querySelector("iframe.sandpit-html");
        return html instanceof HTMLIFrameElement && parseInt(html.style.height, 10) >= 24;
      });

      // The widget: capped at maxHeight (it scrolls beyond), newest run last,
      // no code listings, no JSON.
      assert.ok(out.iframeHeight <= 200, `the widget is at most 200 px: ${out.iframeHeight}`);
      const widget = /** @type {import("playwright-core").Frame} */ (page.frames().find((f) => f.url().includes("/widget.html")));
      assert.ok((await widget.evaluate(() => document.documentElement.scrollHeight)) > 200, "its content is taller");
      const main = widget.getByTestId("widget");
      assert.equal(await main.getAttribute("data-order"), "oldest-first");
      const entries = widget.getByTestId("run-entry");
      await entries.nth(6).waitFor();
      const [first, last] = [await entries.first().boundingBox(), await entries.last().boundingBox()];
      assert.ok(first && last && first.y < last.y, "the newest run is at the bottom");
      assert.equal(await widget.locator(".code-listing").first().isVisible(), false);
      assert.equal(await widget.getByTestId("result-json-toggle").first().isVisible(), false);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test("a page make run's EMBED did not name is refused with the line to add, and a code", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(new URL("chat.html", stranger.url).href);
      const refused = await page.evaluate(async ({ widget, module }) => {
        const { Sandpit, ERROR_CODES } = await import(module);
        return Sandpit.create({ url: widget, timeoutMs: 60_000 }).then(
          () => null,
          (error) => ({ code: error.code, refused: ERROR_CODES.REFUSED, message: error.message }),
        );
      }, { widget: new URL("widget.html", app.url).href, module: CLIENT_MODULE });
      assert.ok(refused, "refused");
      assert.equal(refused.code, refused.refused);
      const [demo, allowed, refusedOrigin] = [app.demo, chat.url, stranger.url].map((url) => new URL(url).origin);
      assert.ok(refused.message.includes(`add "${refusedOrigin}" to that list`), refused.message);
      assert.ok(refused.message.includes("sandpit.config.json"), refused.message);
      assert.ok(refused.message.includes(`"embed": { "allow": ["${demo}", "${allowed}", "${refusedOrigin}"] }`), refused.message);
    } finally {
      await context.close();
    }
  });
});
