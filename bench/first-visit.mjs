// @ts-check
// Figure 15: the first visit, as people meet Sandpit: the app page, the
// widget as an agent drives it (bench/client/), and the widget in a chat UI
// (bench/chat-ui/), each opened in a fresh browser with an empty on-disk
// profile, `print(1)` asked for at once; raw Pyodide's page opened the same
// way. On loopback, and on an emulated link (link.mjs: a throttling proxy
// every request of the visit goes through, 20 Mbit/s down, 5 up, 40 ms
// added to each request). Each visit gives the time from navigation start
// to the first result, the bytes received until then, and, on loopback, the
// bytes until everything the visit starts is over (warm spare, snapshot
// maker, offline copy): a visit downloads the same bytes on either link,
// and waiting for them on the slow one would only make the bench longer.
import { newProfileContext } from "./browser.mjs";
import { EMULATED_LINK, startEmulatedLink } from "./link.mjs";
import { FIRST_RUN, countResponseBytes, pathsOf } from "./loads.mjs";

/** The links a visit is made on: loopback as it is, and the emulated link's conditions. */
const LINKS = { loopback: null, emulated: EMULATED_LINK };

/**
 * A surface's first visit: `visit(context, page)` opens it in `page` and
 * resolves once the first result is in, to its page-clock time and
 * `settled()`, which waits for the rest of the visit.
 *
 * `origin`, for a surface embedded in another site's page: Sandpit's, whose
 * bytes count (the embedding page's own files are not Sandpit's, and a page
 * that embedded raw Pyodide would have them too).
 *
 * @typedef {{ name: string, origin?: string, visit: (context: any, page: any) => Promise<{ firstResultAt: number, settled: () => Promise<void> }> }} Surface
 */

/**
 * A first visit's times and bytes; `paths` says by path what came until the
 * first result and (on loopback) until settled, `carried` what crossed the
 * emulated link, `requests` how many requests reached the network.
 *
 * @typedef {{ firstResultAt: number, untilFirstResult: number, untilSettled: number | null, requests: number, carried?: { requests: number, bytes: number }, paths: { firstResult: Paths, settled: Paths | null } }} FirstVisit
 * @typedef {ReturnType<typeof pathsOf>} Paths
 */

/**
 * A first visit to each surface `plan` names per link, `samples` times,
 * alternating surfaces so drift hits them alike; `emulated` is the emulated
 * link's conditions (the bench's smoke test gives a faster one).
 *
 * @param {Record<keyof typeof LINKS, Surface[]>} plan
 * @param {number} samples
 * @param {(message: string) => void} log
 * @param {typeof EMULATED_LINK} [emulated]
 */
export async function measureFirstVisits(plan, samples, log, emulated = EMULATED_LINK) {
  /** @type {Record<string, Record<string, FirstVisit[]>>} */
  const out = {};
  for (const [link, conditions] of Object.entries({ ...LINKS, emulated })) {
    const surfaces = plan[/** @type {keyof typeof LINKS} */ (link)];
    out[link] = Object.fromEntries(surfaces.map((surface) => [surface.name, []]));
    for (let i = 1; i <= samples; i++) {
      for (const surface of surfaces) {
        const visit = await firstVisit(surface, conditions);
        out[link][surface.name].push(visit);
        const settled = visit.untilSettled === null ? "" : `, ${mb(visit.untilSettled)} until settled`;
        const carried = visit.carried ? `; the link carried ${visit.carried.requests} requests, ${mb(visit.carried.bytes)}` : "";
        log(
          `first visit ${i}/${samples} ${link} ${surface.name}: first result ${Math.round(visit.firstResultAt)} ms, ` +
            `${mb(visit.untilFirstResult)} until then${settled}, ${visit.requests} requests over the network${carried}`,
        );
      }
    }
  }
  return out;
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

/**
 * One first visit in a browser of its own, on loopback or through the
 * emulated link. A visit on the link is refused when it beats what the link
 * allows, or when a request reached the network without crossing the link:
 * then part of it went around the emulation.
 */
async function firstVisit(surface, conditions) {
  const link = conditions === null ? null : await startEmulatedLink(conditions);
  const browser = await newProfileContext(link?.proxy);
  try {
    const bytes = countResponseBytes(browser.context, surface.origin ?? null);
    const page = await browser.context.newPage();
    const { firstResultAt, settled } = await surface.visit(browser.context, page);
    const atFirstResult = bytes.mark();
    if (link !== null && conditions !== null) {
      const carried = { requests: link.carried.requests, bytes: link.carried.bytes };
      const first = await atFirstResult;
      const { total, requests, byPath } = first;
      const floorMs = (total * 8 * 1000) / conditions.downBitsPerSecond;
      if (firstResultAt < floorMs) {
        throw new Error(`${surface.name}: ${mb(total)} in ${Math.round(firstResultAt)} ms is faster than the emulated link allows (${Math.round(floorMs)} ms): part of the visit was not emulated`);
      }
      const around = Object.keys(byPath).filter((path) => byPath[path] > 0 && !link.carried.byPath.has(path));
      if (around.length > 0) throw new Error(`${surface.name}: ${around.join(", ")} reached the network without crossing the emulated link`);
      return { firstResultAt, untilFirstResult: total, untilSettled: null, requests, carried, paths: { firstResult: pathsOf(first), settled: null } };
    }
    await settled();
    const [first, all] = await Promise.all([atFirstResult, bytes.stop()]);
    return {
      firstResultAt,
      untilFirstResult: first.total,
      untilSettled: all.total,
      requests: all.requests,
      paths: { firstResult: pathsOf(first), settled: pathsOf(all) },
    };
  } finally {
    await browser.close();
    await link?.close();
  }
}

/**
 * The surfaces by name: the app page (`app`), the agent path (`client`), the
 * chat-UI path (`chatUi`) and raw Pyodide's page (`raw`).
 *
 * @returns {Record<"page" | "widget" | "chat-ui" | "raw", Surface>}
 */
export function firstVisitSurfaces({ app, client, chatUi, raw }) {
  const surfaces = [
    {
      name: "page",
      async visit(context, page) {
        await app.prepare(context, { firstRun: FIRST_RUN });
        await page.goto(app.url());
        const times = await app.loadTimes(page);
        if (!times.firstOk) throw new Error(`page: ${FIRST_RUN} ended as ${times.firstPhase}`);
        return { firstResultAt: times.firstResultAt, settled: () => app.settled(page) };
      },
    },
    {
      name: "widget",
      origin: client.origin,
      async visit(context, page) {
        await client.prepare(context);
        await page.goto(client.url({ firstRun: FIRST_RUN }));
        const firstResultAt = await client.firstResultAt(page);
        return { firstResultAt, settled: () => client.settled(page) };
      },
    },
    {
      name: "chat-ui",
      origin: chatUi.origin,
      async visit(context, page) {
        await chatUi.prepare(context);
        await page.goto(chatUi.url({ firstRun: FIRST_RUN }));
        const firstResultAt = await chatUi.firstResultAt(page);
        return { firstResultAt, settled: () => chatUi.settled(page) };
      },
    },
    {
      name: "raw",
      async visit(context, page) {
        await raw.prepare(context);
        await page.goto(raw.url(FIRST_RUN));
        const times = await raw.loadTimes(page);
        if (!times.firstOk) throw new Error(`raw: ${FIRST_RUN} failed`);
        return { firstResultAt: times.firstResultAt, settled: async () => {} };
      },
    },
  ];
  return /** @type {any} */ (Object.fromEntries(surfaces.map((surface) => [surface.name, surface])));
}
