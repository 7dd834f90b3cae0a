// @ts-check
// The page as a person uses it: results as a notebook shows them (math,
// HTML sized to its content, images at their size), themes, stopping a run,
// resetting a session, a phone-sized screen. One app and page for the file.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { useSandpit } from "./harness.mjs";

/** @type {import("./harness.mjs").SandpitPage} */
let sandpit;
useSandpit((ready) => {
  sandpit = ready;
});

/** The entry of run `index`. */
const entry = (index) => sandpit.page.getByTestId("run-entry").nth(index);

describe("results", () => {
  test("sympy's LaTeX renders with KaTeX, and what KaTeX refuses stays as its text", async () => {
    const index = await sandpit.submit("import sympy\nx = sympy.symbols('x')\nsympy.Integral(sympy.sqrt(x), x)");
    const math = entry(index).locator('[data-mime="text/latex"]');
    await math.and(sandpit.page.locator('[data-state="rendered"]')).waitFor();
    assert.equal(await math.locator(".katex").count() > 0, true, "KaTeX's markup is in the result");
    assert.match(await math.locator("annotation").textContent(), /\\int \\sqrt\{x\}\\, dx/);
    assert.equal(await entry(index).getByTestId("value").count(), 0, "the value is not printed again as text");

    const refused = await sandpit.submit(
      "class Broken:\n    def __repr__(self):\n        return 'broken formula'\n    def _repr_latex_(self):\n        return r'$\\frac{1}{$'\nBroken()",
    );
    const plain = entry(refused).locator('[data-mime="text/latex"]');
    await plain.and(sandpit.page.locator('[data-state="plain"]')).waitFor();
    assert.equal(await plain.textContent(), "broken formula");
    assert.match((await plain.getAttribute("title")) ?? "", /Shown as text: .*KaTeX/);
  });

  test("an HTML display's frame is as tall as its content, up to a cap, and isolated as before", async () => {
    const short = await sandpit.submit("class Card:\n    def _repr_html_(self):\n        return '<p>one line</p>'\nCard()");
    const tall = await sandpit.submit(
      "class Tall:\n    def _repr_html_(self):\n        return '<div style=\"height:2000px\">tall</div>'\nTall()",
    );
    const height = (index) =>
      entry(index)
        .locator("iframe.display-html")
        .evaluate((frame) => frame.getBoundingClientRect().height);
    await sandpit.page.waitForFunction(() => {
      const frames = [...document.querySelectorAll("iframe.display-html")];
      return frames.length >= 2 && frames.every((frame) => frame.style.height !== "");
    });
    const [shortHeight, tallHeight] = [await height(short), await height(tall)];
    assert.ok(shortHeight < 120, `a one-line card gets a small frame (${shortHeight}px)`);
    assert.equal(Math.round(tallHeight), 640, "a tall one is capped, and scrolls");
    assert.equal(await entry(short).getByTestId("value").count(), 0, "no `<__main__.Card object at ...>` under the card");
    assert.equal(await entry(short).locator("iframe").getAttribute("sandbox"), "allow-scripts");
  });

  test("an SVG keeps its own size", async () => {
    const index = await sandpit.submit(
      "class Badge:\n    def _repr_svg_(self):\n        return '<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"160\" height=\"80\"><rect width=\"160\" height=\"80\"/></svg>'\nBadge()",
    );
    const image = entry(index).locator('img[data-mime="image/svg+xml"]');
    await image.waitFor();
    const box = await image.evaluate((img) => img.getBoundingClientRect().toJSON());
    assert.deepEqual([Math.round(box.width), Math.round(box.height)], [160, 80]);
  });
});

describe("stopping and resetting", () => {
  test("Esc stops a run, which then reads as stopped, not as an error", async () => {
    await sandpit.setTimeoutSeconds(0);
    const index = await sandpit.submit("import time\nkept = 1\nwhile True:\n    time.sleep(0.01)");
    await entry(index).and(sandpit.page.locator('[data-phase="running"]')).waitFor();
    await sandpit.page.locator("body").press("Escape");
    const stopped = await sandpit.result(index);
    assert.equal(stopped.phase, "cancelled");
    assert.match(await entry(index).getByTestId("stopped").textContent(), /^Stopped at line \d; variables kept\.$/);
    assert.equal(await entry(index).getByTestId("error").count(), 0, "no red error block");
    assert.equal((await sandpit.run("kept")).value, "1");
    await sandpit.setTimeoutSeconds(20);
  });

  test("Reset asks first, naming the files that go; Cancel keeps everything", async () => {
    await sandpit.run("open('notes.txt', 'w').write('keep me')\nstay = 2");
    await sandpit.page.getByTestId("reset-session").click();
    const warning = sandpit.page.getByTestId("confirm-clear");
    assert.match(await warning.textContent(), /Reset session “main”\? Its variables and its file notes\.txt are deleted/);
    await sandpit.page.getByTestId("cancel-clear-session").click();
    assert.equal(await warning.count(), 0);
    assert.equal((await sandpit.run("stay")).value, "2", "nothing was reset");
    await sandpit.clearSession("reset-session");
    assert.equal((await sandpit.run("import os\nos.path.exists('notes.txt')")).value, "False");
  });
});

describe("themes", () => {
  test("the switch picks light or dark over the system's, keeps it across a reload, and HTML frames follow", async () => {
    const theme = () => sandpit.page.evaluate(() => document.documentElement.dataset.theme);
    await sandpit.page.emulateMedia({ colorScheme: "dark" });
    await sandpit.page.getByTestId("theme").selectOption("system");
    assert.equal(await theme(), "dark", "System follows the system");
    await sandpit.page.emulateMedia({ colorScheme: "light" });
    await sandpit.page.waitForFunction(() => document.documentElement.dataset.theme === "light");

    await sandpit.page.getByTestId("theme").selectOption("dark");
    assert.equal(await theme(), "dark");
    const background = await sandpit.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, "rgb(23, 23, 26)");
    const index = await sandpit.submit("class Card:\n    def _repr_html_(self):\n        return '<p>dark card</p>'\nCard()");
    const frame = entry(index).locator("iframe.display-html");
    await frame.waitFor();
    const scheme = await frame.evaluate((element) => /** @type {HTMLIFrameElement} */ (element).srcdoc.match(/name="color-scheme" content="(\w+)"/)?.[1]);
    assert.equal(scheme, "dark", "the frame's document takes the page's theme (no white box)");

    await sandpit.reload();
    await sandpit.waitReady();
    assert.equal(await theme(), "dark", "kept across a reload, from the first paint");
    assert.equal(await sandpit.page.getByTestId("theme").inputValue(), "dark");
    await sandpit.page.getByTestId("theme").selectOption("system");
    assert.equal(await theme(), "light");
  });
});

describe("a phone-sized screen", () => {
  test("at 390 px nothing is wider than the screen, and a new run scrolls into view", async () => {
    await sandpit.page.setViewportSize({ width: 390, height: 700 });
    try {
      const width = await sandpit.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide`);
      await sandpit.page.evaluate(() => window.scrollTo(0, 0));
      const index = await sandpit.submit("print('seen')");
      await sandpit.result(index);
      const box = await entry(index).evaluate((element) => element.getBoundingClientRect().toJSON());
      assert.ok(box.top < 700 && box.bottom > 0, `the new run is on screen (top ${box.top})`);
    } finally {
      await sandpit.page.setViewportSize({ width: 1280, height: 720 });
    }
  });
});
