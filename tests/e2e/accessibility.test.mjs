// @ts-check
// axe-core (pinned in package.json) on the main page and the widget, in
// both themes, with the states a person sees: runs with output, an error,
// math, HTML, files, Settings open. Screenshots of those states go to
// tests/e2e/artifacts/ (git-ignored) for a person to look at.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { serveDemo } from "../../scripts/serve.mjs";
import { screenshot, startApp, useSandpit } from "./harness.mjs";
import { seriousViolations } from "./harness/axe.mjs";
import { READY_TIMEOUT_MS } from "./harness/timeouts.mjs";

/** @type {import("./harness/page.mjs").SandpitPage} */
let sandpit;
/** @type {{ url: string }} */
let app;
useSandpit((ready, started) => {
  sandpit = ready;
  app = started;
});

/** Pictures the page as a person sees it, scrolled to the top (the newest run is under the editor). */
async function picture(name) {
  await sandpit.page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(sandpit.page, name);
}

describe("accessibility", () => {
  test("the main page has no serious or critical axe violation, light or dark, and its states are pictured", async () => {
    await sandpit.page.setViewportSize({ width: 1280, height: 900 });
    await picture("empty");
    await sandpit.setTimeoutSeconds(0);
    const running = await sandpit.submit("import time\nprint('working…')\nwhile True:\n    time.sleep(0.01)");
    await sandpit.page.getByTestId("run-entry").nth(running).getByTestId("stdout").waitFor();
    await sandpit.page.getByTestId("run").focus();
    await picture("running");
    await sandpit.page.getByTestId("stop").click();
    await sandpit.result(running);
    await sandpit.setTimeoutSeconds(20);
    await sandpit.run("def mean(xs):\n    return sum(xs) / len(xs)\n\nmean([])");
    await sandpit.page.locator(".cm-run-error").waitFor();
    await picture("error");
    await sandpit.run(
      "import sympy\nx = sympy.symbols('x')\nclass Card:\n    def _repr_html_(self):\n        return '<table><tr><th>a</th><td>1</td></tr></table>'\ndisplay(Card())\nsympy.Integral(sympy.exp(-x**2), (x, -sympy.oo, sympy.oo))",
    );
    await sandpit.page.locator('[data-mime="text/latex"][data-state="rendered"]').first().waitFor();
    await picture("html-and-math");
    await sandpit.run("open('report.csv', 'w').write('name,score\\nada,3\\n')");
    await sandpit.page.locator('[data-testid="session-file"][data-path="report.csv"]').getByTestId("preview-file").click();
    await sandpit.page.locator('[data-kind="table"]').waitFor();
    await picture("files");

    for (const theme of ["light", "dark"]) {
      await sandpit.page.getByTestId("theme").selectOption(theme);
      await sandpit.openSettings();
      assert.deepEqual(await seriousViolations(sandpit.page), [], `${theme} theme`);
      await sandpit.page.getByTestId("settings").locator("summary").click();
    }
    await picture("dark");
    await sandpit.page.setViewportSize({ width: 390, height: 844 });
    await picture("390px-wide");
    await sandpit.page.setViewportSize({ width: 1280, height: 720 });
    await sandpit.page.getByTestId("theme").selectOption("system");
  });

  test("the widget has no serious or critical axe violation in either theme", async () => {
    const page = await sandpit.page.context().newPage();
    try {
      for (const theme of ["light", "dark"]) {
        await page.goto(new URL(`widget.html?theme=${theme}`, app.url).href);
        await page.locator('[data-testid="runtime-state"][data-state="ready"]').waitFor({ timeout: 60_000 });
        assert.deepEqual(await seriousViolations(page), [], `widget, ${theme} theme`);
      }
    } finally {
      await page.close();
    }
  });
});

describe("the widget on a page that embeds it", () => {
  /** @type {Awaited<ReturnType<typeof serveDemo>>} */
  let host;
  /** @type {Awaited<ReturnType<typeof startApp>>} */
  let embedded;
  before(async () => {
    host = await serveDemo({ files: { "/host.html": { type: "text/html", body: "<!doctype html><title>chat</title><body style=\"margin:1rem;max-width:44rem\"><p>A chat's answer, with its run:</p>" } } });
    embedded = await startApp({ embedOrigins: [new URL(host.url).origin] });
    host.setApp(embedded.url);
  });
  after(async () => {
    await embedded?.close();
    await host?.close();
  });

  test("shows a run as the page does, compactly, with no serious or critical axe violation in either theme", async () => {
    const page = await (await embedded.newPage()).page;
    try {
      for (const theme of ["light", "dark"]) {
        await page.goto(new URL("host.html", host.url).href);
        await page.evaluate(
          async ({ appUrl, theme, timeoutMs }) => {
            const { Sandpit } = await import(new URL("sandpit-client.js", appUrl).href);
            const widget = await Sandpit.create({ theme, timeoutMs });
            await widget.run("import sympy\nx = sympy.symbols('x')\nprint('integrating')\nsympy.Integral(sympy.sqrt(x), x)");
            await widget.run("def mean(xs):\n    return sum(xs) / len(xs)\n\nmean([])");
          },
          { appUrl: embedded.url, theme, timeoutMs: READY_TIMEOUT_MS },
        );
        const frame = page.frames().find((f) => f.url().includes("/widget.html"));
        assert.ok(frame, "the widget's frame");
        await frame.locator('[data-testid="run-entry"][data-phase="error"]').waitFor();
        await frame.locator('[data-mime="text/latex"][data-state="rendered"]').waitFor();
        assert.equal(await frame.locator('[data-testid="error-type"]').textContent(), "ZeroDivisionError", "the page's error view");
        assert.deepEqual(await seriousViolations(frame), [], `widget with runs, ${theme} theme`);
        await screenshot(page, `widget-${theme}`);
      }
    } finally {
      await page.context().close();
    }
  });
});
