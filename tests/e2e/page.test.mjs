// @ts-check
// The page as a person uses it: results as a notebook shows them (math,
// HTML sized to its content, images at their size), themes, stopping a run,
// resetting a session, a phone-sized screen. One app and page for the file.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { useSandpit } from "./harness.mjs";

/** @type {import("./harness/page.mjs").SandpitPage} */
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

describe("the Files panel", () => {
  test("shows the working directory as a tree with previews, and deletes after asking", async () => {
    await sandpit.selectSession("main");
    const made = await sandpit.run(
      "import base64, os\nos.makedirs('data', exist_ok=True)\n" +
        "open('data/people.csv', 'w').write('name,age\\n\"Doe, J\",41\\nAda,36\\n')\n" +
        "open('notes.txt', 'w').write('first line\\nsecond line')\n" +
        "open('dot.png', 'wb').write(base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='))",
    );
    assert.equal(made.phase, "ok", JSON.stringify(made.json?.error));
    const file = (path) => sandpit.page.locator(`[data-testid="session-file"][data-path="${path}"]`);
    await file("data/people.csv").waitFor();
    assert.match(await sandpit.page.locator(".file-dir").first().textContent(), /^data\/$/);

    await file("data/people.csv").getByTestId("preview-file").click();
    const table = file("data/people.csv").locator('[data-kind="table"]');
    await table.waitFor();
    assert.deepEqual(await table.locator("th").allTextContents(), ["name", "age"]);
    assert.deepEqual(await table.locator("tbody tr").first().locator("td").allTextContents(), ["Doe, J", "41"]);

    await file("notes.txt").getByTestId("preview-file").click();
    assert.equal(await file("notes.txt").locator('[data-kind="text"] pre').textContent(), "first line\nsecond line");
    await file("dot.png").getByTestId("preview-file").click();
    const image = file("dot.png").locator('[data-kind="image"] img');
    await image.waitFor();
    assert.equal(await image.evaluate((img) => /** @type {HTMLImageElement} */ (img).naturalWidth), 1, "the PNG decoded");

    const before = await sandpit.entryCount();
    await file("notes.txt").getByTestId("delete-file").click();
    assert.match(await file("notes.txt").getByTestId("confirm-delete-file").textContent(), /Delete notes\.txt\?/);
    await file("notes.txt").getByTestId("confirm-delete").click();
    const deleted = await sandpit.result(before);
    assert.equal(deleted.phase, "ok");
    await file("notes.txt").waitFor({ state: "detached" });
    assert.equal((await sandpit.run("import os\nos.path.exists('notes.txt')")).value, "False");
  });
});

describe("examples", () => {
  test("each example opens in its own session and runs as it says; the person's code stays", async () => {
    const mine = "print('my own code')";
    await sandpit.setCode(mine);
    const options = await sandpit.page
      .getByTestId("examples")
      .locator("option")
      .evaluateAll((all) => all.map((option) => /** @type {HTMLOptionElement} */ (option).value).filter(Boolean));
    assert.ok(options.length >= 10, `${options.length} examples`);
    let previous = mine;
    for (const slug of options) {
      // matplotlib's wasm wheel cannot be had on this machine (no reachable
      // registry has it): its example is opened, not run.
      const runs = slug !== "example-plot";
      await sandpit.page.getByTestId("examples").selectOption(slug);
      await sandpit.page.waitForFunction((name) => /** @type {HTMLSelectElement | null} */ (document.querySelector('select[data-testid="session"]'))?.value === name, slug);
      const code = await sandpit.waitForCode((text) => text !== previous);
      previous = code;
      assert.notEqual(code, mine, `${slug} shows its own code`);
      if (!runs) {
        assert.match(code, /downloads it/);
        continue;
      }
      const index = await sandpit.entryCount();
      await sandpit.page.getByTestId("run").click();
      const result = await sandpit.result(index);
      if (slug === "example-error") {
        assert.equal(result.phase, "error", slug);
        assert.equal(result.errorLine, "3");
        assert.equal(result.hint, "input_unsupported", "with a repair hint");
      } else {
        assert.equal(result.phase, "ok", `${slug}: ${JSON.stringify(result.json?.error)}`);
      }
    }
    await sandpit.selectSession("main");
    await sandpit.waitForCode(mine);
  });
});

describe("stopping and resetting", () => {
  test("Esc stops a run, which then reads as stopped, not as an error", async () => {
    await sandpit.selectSession("main");
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
    await sandpit.selectSession("main");
    await sandpit.run("open('notes.txt', 'w').write('keep me')\nstay = 2");
    await sandpit.page.getByTestId("reset-session").click();
    const warning = sandpit.page.getByTestId("confirm-clear");
    assert.match(await warning.textContent(), /Reset session “main”\? Its variables and its (file notes\.txt|\d files \(.*notes\.txt.*\)) are deleted; its code and run history stay/);
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
    const inFrame = async () => {
      const content = await (await frame.elementHandle())?.contentFrame();
      assert.ok(content, "the frame has a document");
      await content.locator("p").waitFor();
      return content.evaluate(() => getComputedStyle(document.body).color);
    };
    // The frame's document follows the page's theme (no white box, light text), also after a switch.
    assert.deepEqual(await inFrame(), "rgb(255, 255, 255)");
    await sandpit.page.getByTestId("theme").selectOption("light");
    await sandpit.page.waitForFunction(() => document.documentElement.dataset.theme === "light");
    assert.deepEqual(await inFrame(), "rgb(0, 0, 0)");
    await sandpit.page.getByTestId("theme").selectOption("dark");

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
      // A long line scrolls inside the editor; nothing around it grows past the screen.
      await sandpit.setCode(`rows = ${JSON.stringify(Array.from({ length: 40 }, (_, i) => `row-${i}`))}`);
      const width = await sandpit.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide`);
      const overflowing = await sandpit.page.evaluate(() =>
        [".code-editor", '[data-testid="run"]', '[data-testid="ask-panel"]', '[data-testid="ask-input"]', '[data-testid="session"]'].flatMap((selector) => {
          const right = document.querySelector(selector)?.getBoundingClientRect().right;
          return right === undefined || right > 390 ? [`${selector}: ${right}`] : [];
        }),
      );
      assert.deepEqual(overflowing, [], "each control is within the screen");
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
