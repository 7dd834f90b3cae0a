// @ts-check
// Renders the app icons (www/icons/*.png) from www/favicon.svg with the
// test Chromium. Run by hand when the icon changes; the PNGs are committed,
// so the build does not need a browser.
//   node scripts/make-icons.mjs
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const ICONS = join(ROOT, "www", "icons");

/**
 * The maskable variant: full-bleed background, sun and dune kept inside the
 * central safe zone (a circle of 40% radius), sand running to the edges so
 * any mask shape looks whole.
 */
const MASKABLE = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
<rect width="64" height="64" fill="#c2571a"/>
<path d="M0 42c9-9 17-9 23-4s15 6 23-3c7-7 13-6 18-3V64H0z" fill="#f3d9a4"/>
<circle cx="39" cy="24" r="6" fill="#fff"/></svg>`;

/**
 * @param {import("playwright-core").Page} page
 * @param {string} svg
 * @param {number} size
 * @param {string} file
 */
async function render(page, svg, size, file) {
  await page.setViewportSize({ width: size, height: size });
  const body = `<body style="margin:0;background:transparent">${svg.replace(
    "<svg ",
    `<svg width="${size}" height="${size}" style="display:block" `,
  )}</body>`;
  await page.setContent(body);
  await writeFile(join(ICONS, file), await page.screenshot({ omitBackground: true }));
  console.log(`make-icons: wrote www/icons/${file}`);
}

const favicon = await readFile(join(ROOT, "www", "favicon.svg"), "utf8");
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  const page = await browser.newPage();
  for (const size of [192, 512]) {
    await render(page, favicon, size, `icon-${size}.png`);
    await render(page, MASKABLE, size, `maskable-${size}.png`);
  }
} finally {
  await browser.close();
}
