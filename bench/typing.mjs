// @ts-check
// Figure 4's typing row: typing in a 2,000-line file, in Sandpit's editor
// (CodeMirror) on the UI page. Each key is pressed through the DevTools
// protocol, as a person's would arrive, at a person's pace; for each the
// page notes when it was pressed and when the frame showing the change was
// painted, and the page's main thread is traced meanwhile, so each key's
// time splits into the page's work and the wait for the display's next frame.
import { EDITOR_MODULE } from "../www/generated/names.js";
import { newContext } from "./browser.mjs";
import { traceMainThread } from "./cdp.mjs";
import { typeIntoLongFile } from "./page-scripts.mjs";
import { paintTimes } from "./session.mjs";

/** Lines in the file typed into. */
export const FILE_LINES = 2000;
/** A person's pace: a key every this many milliseconds. */
const KEY_GAP_MS = 120;
/** Typed at the end of the middle line, again and again: code, a newline (which indents), more code. */
const TYPED = "\ntotal = sum(value * 2 for value in (values or []))";
/** How long the editor may settle after the file is in (Python's check of it, its first paint). */
const SETTLE_MS = 2000;

/** `lines` lines of Python as people write it: functions, loops, strings, comments. */
export function longFile(lines = FILE_LINES) {
  const block = [
    "def scale(values, factor=2):",
    '    """Each value times factor, skipping None."""',
    "    out = []",
    "    for value in values:",
    "        if value is None:",
    "            continue  # nothing to scale",
    "        out.append(value * factor)",
    '    return out  # e.g. [2, 4, "x"]',
    "",
    "",
  ];
  return Array.from({ length: lines }, (_, i) => block[i % block.length]).join("\n");
}

/**
 * Types `keys` keys into the middle of a `FILE_LINES`-line file in `target`'s
 * editor; resolves to `{ work, latency }`, one sample per key (see `paintTimes`).
 *
 * @param {import("playwright-core").Browser} browser
 * @param {{ prepare: Function, url: Function, settled: Function }} target
 * @param {number} keys
 */
export async function measureTyping(browser, target, keys) {
  const context = await newContext(browser);
  try {
    const page = await context.newPage();
    await target.prepare(context);
    await page.goto(target.url());
    await target.settled(page);
    await page.evaluate(typeIntoLongFile, { editorModule: EDITOR_MODULE, code: longFile(), line: FILE_LINES / 2 });
    await page.waitForTimeout(SETTLE_MS);
    const typing = () =>
      (async () => {
        for (let i = 0; i < keys; i++) {
          const key = TYPED[i % TYPED.length];
          await page.keyboard.press(key === "\n" ? "Enter" : key);
          await page.waitForTimeout(KEY_GAP_MS);
        }
        // The last key's frame.
        await page.waitForTimeout(100);
      })();
    const { busy } = await traceMainThread(page, typing);
    const typed = await page.evaluate(() => window.__benchTyping);
    if (typed.length < keys * 0.9) throw new Error(`only ${typed.length} of ${keys} keys changed the editor`);
    return paintTimes(typed, busy);
  } finally {
    await context.close();
  }
}
