// @ts-check
// Accessibility checks with axe-core, run inside the page under test.
import { createRequire } from "node:module";

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
