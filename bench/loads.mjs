// @ts-check
// Figures 1, 2, 3 and 7a: opening the page. Each sample is a fresh browser
// with an on-disk profile (empty HTTP cache): a first visit measured cold,
// then a return visit in a new tab of the same browser, with the cache the
// first one left.
import { newProfileContext } from "./browser.mjs";

/** What an agent runs the moment it opens the page (figure 3). */
export const FIRST_RUN = "print(1)";

/** `samples` cold + warm visits per target, alternating targets so drift hits both alike. */
export async function measureLoads(targets, samples, log) {
  const loads = Object.fromEntries(targets.map((target) => [target.name, []]));
  for (let i = 1; i <= samples; i++) {
    for (const target of targets) {
      const load = await measureLoad(target);
      loads[target.name].push(load);
      // Sandpit says how Python started (restored from the start-up snapshot, or not); raw has no such thing.
      const how = (visit) => (visit.snapshot ? ` (snapshot ${visit.snapshot})` : "");
      log(
        `load ${i}/${samples} ${target.name}: ready cold ${ms(load.cold.readyAt)}${how(load.cold)}, ` +
          `warm ${ms(load.warm.readyAt)}${how(load.warm)}`,
      );
    }
  }
  return loads;
}

const ms = (value) => `${Math.round(value)} ms`;

async function measureLoad(target) {
  const browser = await newProfileContext();
  try {
    await target.prepare(browser.context, { firstRun: FIRST_RUN });
    const cold = await visit(browser.context, target);
    const warm = await visit(browser.context, target);
    return { cold, warm };
  } finally {
    await browser.close();
  }
}

/**
 * Opens `target` in a new tab of `context` and waits until it has settled
 * (its warm spare and service worker too, if any), so the bytes counted are
 * everything the visit costs.
 */
async function visit(context, target) {
  const bytes = countResponseBytes(context);
  const page = await context.newPage();
  try {
    await page.goto(target.url(FIRST_RUN));
    const times = await target.loadTimes(page);
    if (!times.firstOk) throw new Error(`${target.name}: ${FIRST_RUN} on opening the page ended as ${times.firstPhase}`);
    const untilFirstResult = bytes.mark();
    await target.settled(page);
    const serviceWorker = await page.evaluate(() => Boolean(navigator.serviceWorker?.controller));
    const first = await untilFirstResult;
    return { ...times, serviceWorker, untilFirstResult: first.total, firstResultPaths: pathsOf(first), transferred: await bytes.stop() };
  } finally {
    await page.close();
  }
}

/**
 * What a count of `countResponseBytes` says by path: the bytes received, and
 * how many times the file was downloaded whole (a 200 from the network).
 *
 * @param {{ byPath: Record<string, number>, downloads: Record<string, number> }} counted
 */
export const pathsOf = ({ byPath, downloads }) => ({ byPath, downloads });

/**
 * Bytes received over the network by every request in `context` (frames on
 * other sites, workers and service workers too) until `stop()`; `mark()`
 * gives those of the requests finished so far. Each request counts what
 * DevTools saw arrive for it, head and body: nothing for an answer from the
 * HTTP cache, the head alone for a revalidation (304). Answers a service
 * worker gave the page count nothing: what it fetched for them is counted as
 * its own request, and what it had cached cost nothing. With `origin`, only
 * the requests to that origin count (Sandpit's, on a page that embeds it).
 *
 * @param {import("playwright-core").BrowserContext} context
 * @param {string | null} [origin]
 */
export function countResponseBytes(context, origin = null) {
  const pending = [];
  const onFinished = (request) => {
    if (!request.url().startsWith("http")) return;
    if (origin !== null && new URL(request.url()).origin !== origin) return;
    const counted = Promise.all([request.response(), request.sizes()]).then(async ([response, sizes]) => {
      const path = new URL(request.url()).pathname;
      const head = sizes.responseHeadersSize + Math.min(sizes.responseBodySize, 0);
      if (!response || response.fromServiceWorker() || head <= 0) return { path, bytes: 0, downloaded: false };
      // A worker's or service worker's own script is fetched by the browser, and DevTools counts only its head;
      // a revalidation's 304 has no Content-Length, so one that is there is a body that came with the head.
      const body = sizes.responseBodySize > 0 ? sizes.responseBodySize : Number((await response.headerValue("content-length")) ?? 0);
      return { path, bytes: head + body, downloaded: body > 0 };
    });
    // A request that finishes as the browser closes fails here; only a sum that reads it fails for it.
    counted.catch(() => {});
    pending.push(counted);
  };
  context.on("requestfinished", onFinished);
  const sum = async (/** @type {Promise<{ path: string, bytes: number, downloaded: boolean }>[]} */ counted) => {
    const responses = await Promise.all(counted);
    /** @type {Record<string, number>} */
    const byPath = {};
    /** @type {Record<string, number>} */
    const downloads = {};
    for (const { path, bytes, downloaded } of responses) {
      byPath[path] = (byPath[path] ?? 0) + bytes;
      if (downloaded) downloads[path] = (downloads[path] ?? 0) + 1;
    }
    // `requests`: those that reached the network (a 304 too); cache hits and service workers' answers did not.
    return { total: responses.reduce((total, r) => total + r.bytes, 0), requests: responses.filter((r) => r.bytes > 0).length, byPath, downloads };
  };
  return {
    mark: () => sum([...pending]),
    stop() {
      context.off("requestfinished", onFinished);
      return sum(pending);
    },
  };
}
