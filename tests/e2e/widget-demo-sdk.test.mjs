// @ts-check
// The embeddable widget driven from pages on other origins: the demo chat
// page (also from another site, where the widget gets no service worker),
// the official MCP SDK client over @mcp-b/transports' iframe transport, and
// a page whose origin the deployment does not list, which is refused. The
// pages and the app are those of widget-hosts.mjs.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { RED_SQUARE_CLASS } from "./harness/python.mjs";
import { connectClient } from "./sdk-host.mjs";
import { crossSite, useWidgetHosts, widgetFrame } from "./widget-hosts.mjs";

/** The figure stand-in (harness/python.mjs), shown as the run's value. */
const RED_SQUARE = `${RED_SQUARE_CLASS}\nRedSquare()`;

let host;
let isolatedHost;
let stranger;
let app;
const { openHost, createWidget } = useWidgetHosts((ready) => {
  ({ host, isolatedHost, stranger, app } = ready);
});

describe("the demo chat page", () => {
  test("runs a pasted model reply in the widget and streams its output into the chat", async () => {
    const sandpit = await openHost(host, "");
    await sandpit.page.getByTestId("demo-state").filter({ hasText: "Connected to sandpit" }).waitFor({ timeout: 60_000 });
    await sandpit.page.getByTestId("send").click();
    const output = sandpit.page.locator('[data-testid="tool-output"][data-state="ok"]');
    await output.waitFor({ timeout: 60_000 });
    assert.equal(await output.textContent(), "pi is about 3.1416\n→ 285");
    // The widget shows the run too.
    const frame = widgetFrame(sandpit.page);
    await frame.locator('[data-testid="run-entry"][data-phase="ok"]').first().waitFor();
    assert.match(await frame.getByTestId("runs").textContent(), /pi is about 3\.1416/);

    // Stop ends a reply's run that would go on, and the session stays usable.
    const stop = sandpit.page.getByTestId("stop");
    assert.equal(await stop.isDisabled(), true, "nothing to stop");
    await sandpit.page.getByTestId("message").fill("```python\nimport time\nfor i in range(600):\n    print(i, flush=True)\n    time.sleep(0.1)\n```");
    await sandpit.page.getByTestId("send").click();
    const running = sandpit.page.locator('[data-testid="tool-output"][data-state="running"]');
    await running.filter({ hasText: "3" }).waitFor({ timeout: 60_000 });
    assert.equal(await sandpit.page.getByTestId("send").isDisabled(), true, "one reply at a time");
    await stop.click();
    await sandpit.page.locator('[data-testid="tool-output"][data-state="cancelled"]').waitFor({ timeout: 30_000 });
    assert.equal(await stop.isDisabled(), true);
    assert.equal(await sandpit.page.getByTestId("send").isDisabled(), false);
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});

describe("the demo chat page on another site", () => {
  test("runs code in a widget that gets no service worker there, as a chat UI embeds it", async () => {
    const sandpit = await app.newPage();
    await sandpit.page.goto(crossSite(host));
    await sandpit.page.getByTestId("demo-state").filter({ hasText: "Connected to sandpit" }).waitFor({ timeout: 60_000 });
    const frame = widgetFrame(sandpit.page);
    assert.notEqual(new URL(frame.url()).hostname, new URL(sandpit.page.url()).hostname);
    // A third-party frame here may not use a service worker, and the widget
    // must need none; were it allowed, this test would not show that.
    const registration = await frame.evaluate(() => navigator.serviceWorker.getRegistration().then(() => "allowed", () => "refused"));
    assert.equal(registration, "refused");
    await sandpit.page.getByTestId("send").click();
    const output = sandpit.page.locator('[data-testid="tool-output"][data-state="ok"]');
    await output.waitFor({ timeout: 60_000 });
    assert.equal(await output.textContent(), "pi is about 3.1416\n→ 285");
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });
});

describe("the official MCP SDK client over postMessage", () => {
  let sandpit;
  before(async () => {
    sandpit = await openHost(host);
    await sandpit.page.waitForFunction(() => window.mcp);
  });
  after(async () => {
    assert.deepEqual(sandpit.errors, []);
    await sandpit.close();
  });

  test("lists tools and files, gets the right content blocks for text, errors, images and files, and cancels a call it gives up on", async () => {
    const out = await sandpit.page.evaluate(async ({ widgetUrl, RED_SQUARE }) => {
      const { Client, IframeParentTransport, LoggingMessageNotificationSchema } = window.mcp;
      const iframe = document.createElement("iframe");
      iframe.src = widgetUrl;
      document.body.append(iframe);
      await new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));
      const transport = new IframeParentTransport({ iframe, targetOrigin: new URL(widgetUrl).origin });
      const client = new Client({ name: "sdk-test", version: "1.0.0" });
      const logs = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => logs.push(params));
      await client.connect(transport);
      const { tools } = await client.listTools();
      const progress = [];
      const text = await client.callTool({ name: "run_python", arguments: { code: "print('hello')\n2 + 3" } }, undefined, {
        onprogress: (update) => progress.push(update),
      });
      const error = await client.callTool({ name: "run_python", arguments: { code: "1 / 0" } });
      const image = await client.callTool({ name: "run_python", arguments: { code: RED_SQUARE } });
      const file = await client.callTool({
        name: "run_python",
        arguments: { code: "open('table.csv', 'w').write('a,b\\n1,2\\n')\nopen('blob.bin', 'wb').write(bytes(range(4)))" },
      });
      const check = await client.callTool({ name: "check_python", arguments: { code: "import sympy" } });
      const unknown = await client.callTool({ name: "nope", arguments: {} }).catch((e) => e.message);
      const listed = await client.listResources();
      const templates = await client.listResourceTemplates();
      const blob = await client.readResource({ uri: "sandpit://sessions/main/files/blob.bin" });
      const pong = await client.ping();
      // A call the client gives up on: the run is cancelled, and the session goes on.
      const controller = new AbortController();
      const slow = { name: "run_python", arguments: { code: "import time\ntime.sleep(30)", session: "slow" } };
      const abandoned = client.callTool(slow, undefined, { signal: controller.signal }).catch((e) => e.message);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      controller.abort("enough");
      await abandoned;
      const next = await client.callTool({ name: "run_python", arguments: { code: "'next'", session: "slow" } });
      await client.close();
      return {
        server: client.getServerVersion(),
        ...{ tools, text, error, image, file, check, unknown, logs, progress },
        ...{ listed, templates, blob, pong, next },
      };
    }, { widgetUrl: new URL("widget.html", app.url).href, RED_SQUARE });

    assert.equal(out.server.name, "sandpit");
    assert.deepEqual(
      out.tools.map((t) => t.name),
      ["run_python", "check_python", "reset_session"],
    );
    assert.deepEqual(out.tools[0].inputSchema.required, ["code"]);

    assert.equal(out.text.isError, false);
    assert.match(out.text.content[0].text, /--- stdout ---\nhello\n--- value ---\n5/);
    assert.equal(out.text.structuredContent.value.repr, "5");
    assert.ok(
      out.logs.some((log) => log.logger === "stdout" && log.data.text === "hello\n"),
      `stdout was streamed as a log notification: ${JSON.stringify(out.logs)}`,
    );
    // And, as logging is on its way out of MCP, in progress notifications' messages:
    // status without a stream, output with its stream in _meta, counting up.
    const streamed = out.progress.filter((update) => update._meta?.["sandpit/stream"]);
    assert.deepEqual(
      streamed.map((update) => [update._meta["sandpit/stream"], update.message]),
      [["stdout", "hello\n"]],
      JSON.stringify(out.progress),
    );
    assert.ok(out.progress.some((update) => update.message === "running" && !update._meta));
    const counts = out.progress.map((update) => update.progress);
    assert.deepEqual(counts, [...counts].sort((a, b) => a - b));
    assert.equal(new Set(counts).size, counts.length, "progress increases with every notification");

    assert.equal(out.error.isError, true);
    assert.match(out.error.content[0].text, /ZeroDivisionError: division by zero/);
    assert.equal(out.error.structuredContent.error.line, 1);

    const picture = out.image.content.find((block) => block.type === "image");
    assert.equal(picture?.mimeType, "image/png");
    assert.ok(Buffer.from(picture.data, "base64").subarray(1, 4).toString() === "PNG", "a real PNG");

    const resources = out.file.content.filter((block) => block.type === "resource").map((block) => block.resource);
    const csv = resources.find((r) => r.uri.endsWith("/table.csv"));
    assert.equal(csv.text, "a,b\n1,2\n");
    assert.equal(csv.uri, "sandpit://sessions/main/files/table.csv");
    assert.equal(resources.find((r) => r.uri.endsWith("/blob.bin")).blob, "AAECAw==");

    assert.equal(out.check.isError, false);
    assert.equal(out.check.structuredContent.imports[0].module, "sympy");
    assert.match(out.unknown, /no tool "nope"/);

    const listed = Object.fromEntries(out.listed.resources.map((r) => [r.name, r]));
    assert.deepEqual(listed["table.csv"], {
      uri: "sandpit://sessions/main/files/table.csv",
      name: "table.csv",
      title: "table.csv (session main)",
      size: 8,
    });
    assert.equal(out.templates.resourceTemplates[0].uriTemplate, "sandpit://sessions/{session}/files/{path}");
    assert.deepEqual(out.blob.contents, [
      { uri: "sandpit://sessions/main/files/blob.bin", mimeType: "application/octet-stream", blob: "AAECAw==" },
    ]);
    assert.deepEqual(out.pong, {});
    assert.equal(out.next.structuredContent.value.repr, "'next'");
    const frame = widgetFrame(sandpit.page);
    await frame.locator('[data-testid="run-entry"][data-phase="cancelled"]').waitFor({ timeout: 5_000 });
  });
});

describe("a page the deployment does not list", () => {
  test("is refused with a clear error, by the JS client and the SDK alike", async () => {
    const sandpit = await openHost(stranger);
    await sandpit.page.waitForFunction(() => window.mcp);
    const refusal = await createWidget(sandpit.page).then(
      () => "connected",
      (error) => error.message,
    );
    const origin = new URL(stranger.url).origin;
    assert.match(refusal, new RegExp(`refuses requests from ${origin}.*embed\\.allow`));
    // It names the file and the exact entry that would let this page in.
    const listed = [host, isolatedHost].map((server) => `"${new URL(server.url).origin}"`);
    assert.ok(refusal.includes("sandpit.config.json"), refusal);
    assert.ok(
      refusal.includes(`"embed": { "allow": [${[...listed, `"${new URL(crossSite(host)).origin}"`, `"${origin}"`].join(", ")}] }`),
      refusal,
    );
    const code = await sandpit.page.evaluate(
      (appUrl) =>
        import(new URL("sandpit-client.js", appUrl).href).then(({ Sandpit }) =>
          Sandpit.create({ timeoutMs: 60_000 }).then(
            () => null,
            (error) => error.code,
          ),
        ),
      app.url,
    );
    assert.equal(code, -32001);
    const sdk = await connectClient(sandpit.page, new URL("widget.html", app.url).href, "stranger");
    assert.match(sdk, /refuses requests from/);
    const frame = widgetFrame(sandpit.page);
    assert.match(await frame.getByTestId("widget-refused").textContent(), new RegExp(origin));
    assert.equal(await frame.locator('[data-testid="run-entry"]').count(), 0, "nothing ran");
    await sandpit.close();
  });
});
