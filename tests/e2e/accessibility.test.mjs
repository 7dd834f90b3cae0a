// @ts-check
// axe-core (pinned in package.json) on the main page and the widget, in
// both themes, with the states a person sees: runs with output, an error,
// math, HTML, files, Settings open. Screenshots of those states go to
// tests/e2e/artifacts/ (git-ignored) for a person to look at.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";

import { ROOT, seriousViolations, useSandpit } from "./harness.mjs";

const ARTIFACTS = join(ROOT, "tests", "e2e", "artifacts");

/** @type {import("./harness.mjs").SandpitPage} */
let sandpit;
/** @type {{ url: string }} */
let app;
useSandpit((ready, started) => {
  sandpit = ready;
  app = started;
});

/** @param {string} name */
async function screenshot(name) {
  await mkdir(ARTIFACTS, { recursive: true });
  await sandpit.page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

describe("accessibility", () => {
  test("the main page has no serious or critical axe violation, light or dark, and its states are pictured", async () => {
    await screenshot("empty");
    await sandpit.setTimeoutSeconds(0);
    const running = await sandpit.submit("import time\nprint('working…')\nwhile True:\n    time.sleep(0.01)");
    await sandpit.page.getByTestId("run-entry").nth(running).getByTestId("stdout").waitFor();
    await screenshot("running");
    await sandpit.page.getByTestId("stop").click();
    await sandpit.result(running);
    await sandpit.setTimeoutSeconds(20);
    await sandpit.run("def mean(xs):\n    return sum(xs) / len(xs)\n\nmean([])");
    await screenshot("error");
    await sandpit.run(
      "import sympy\nx = sympy.symbols('x')\nclass Card:\n    def _repr_html_(self):\n        return '<table><tr><th>a</th><td>1</td></tr></table>'\ndisplay(Card())\nsympy.Integral(sympy.exp(-x**2), (x, -sympy.oo, sympy.oo))",
    );
    await sandpit.page.locator('[data-mime="text/latex"][data-state="rendered"]').first().waitFor();
    await screenshot("html-and-math");
    await sandpit.run("open('report.csv', 'w').write('name,score\\nada,3\\n')");
    await sandpit.page.locator('[data-testid="session-file"][data-path="report.csv"]').getByTestId("preview-file").click();
    await sandpit.page.locator('[data-kind="table"]').waitFor();
    await screenshot("files");

    for (const theme of ["light", "dark"]) {
      await sandpit.page.getByTestId("theme").selectOption(theme);
      await sandpit.openSettings();
      assert.deepEqual(await seriousViolations(sandpit.page), [], `${theme} theme`);
      await sandpit.page.getByTestId("settings").locator("summary").click();
    }
    await screenshot("dark");
    await sandpit.page.setViewportSize({ width: 390, height: 800 });
    await screenshot("390px-wide");
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
