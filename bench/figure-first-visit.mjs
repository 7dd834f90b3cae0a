// @ts-check
// Figure 15's rows (see first-visit.mjs): a first visit to each surface on
// loopback and on the emulated link, against raw Pyodide's page opened the
// same way on the same link: the time to the first result, the bytes until
// then, and (loopback) the bytes until the visit is over.
import { median, row, targets } from "./figure-row.mjs";
import { formatBytes, formatMs } from "./format.mjs";
import { EMULATED_LINK_WORDS } from "./link.mjs";
import { pathsOf } from "./loads.mjs";
import { summarise } from "./stats.mjs";

/** @typedef {import("./first-visit.mjs").Paths} Paths */

/** The surfaces as the rows name them, and whether the time to the first result has a target. */
const SURFACES = [
  { name: "page", title: "the app page", timed: true },
  { name: "widget", title: "the widget, agent path (sandpit-client.js, headless widget)", timed: true },
  { name: "chat-ui", title: "the widget in a chat UI (the MCP SDK's Client over IframeParentTransport)", timed: false },
];

const LINK_TITLES = { loopback: "loopback", emulated: `an emulated link (${EMULATED_LINK_WORDS})` };

/**
 * The visits by link and surface: figures 1 to 3's cold loads give the page's
 * and raw's on loopback, `firstVisits` (first-visit.mjs) the rest; without
 * `loads` (figure 15 measured alone), `firstVisits` gives them all.
 */
export function visitsBySurface(loads, firstVisits) {
  const cold = (name) =>
    loads[name].map((l) => ({
      firstResultAt: l.cold.firstResultAt,
      untilFirstResult: l.cold.untilFirstResult,
      untilSettled: l.cold.transferred.total,
      paths: { firstResult: l.cold.firstResultPaths, settled: pathsOf(l.cold.transferred) },
    }));
  return {
    loopback: { ...(loads === null ? {} : { page: cold("sandpit"), raw: cold("raw") }), ...firstVisits.loopback },
    emulated: firstVisits.emulated,
  };
}

/**
 * What Sandpit downloaded until `moment` (`firstResult` or `settled`) that
 * raw did not, largest first: the paths behind a missed bytes target; and
 * the files downloaded more than once.
 *
 * @param {{ paths: Record<string, Paths | null> }[]} sandpit
 * @param {{ paths: Record<string, Paths | null> }[]} raw
 * @param {"firstResult" | "settled"} moment
 */
function extraBytesNote(sandpit, raw, moment) {
  const at = (visit) => /** @type {Paths} */ (visit.paths[moment]);
  const rawPaths = new Set(raw.flatMap((visit) => Object.keys(at(visit).byPath).map(fileName)));
  const first = at(sandpit[0]);
  const extra = Object.entries(first.byPath)
    .filter(([path, bytes]) => bytes > 0 && !rawPaths.has(fileName(path)))
    .sort((a, b) => b[1] - a[1]);
  const total = extra.reduce((sum, [, bytes]) => sum + bytes, 0);
  const top = extra.slice(0, 6).map(([path, bytes]) => `${path} ${formatBytes(bytes)}`);
  const again = Object.entries(first.downloads).filter(([, times]) => times > 1);
  const what = moment === "settled" ? "until settled" : "until its first result";
  return (
    `Of what Sandpit transferred ${what} (first sample), ${formatBytes(total)} were files raw Pyodide does not fetch: ${top.join(", ")}` +
    `${extra.length > top.length ? `, and ${extra.length - top.length} smaller` : ""}.` +
    (again.length ? ` Downloaded more than once: ${again.map(([path, times]) => `${path} ${times} times`).join(", ")}.` : " Every file was downloaded once.") +
    " The server does not compress, so these are the files' own sizes and their response heads."
  );
}

const fileName = (/** @type {string} */ path) => path.slice(path.lastIndexOf("/") + 1);

/** The first result's time on `link` beside raw's, for a missed time target. */
function timeNote(visits, link, name) {
  const first = (surface) => median(visits[link][surface].map((visit) => visit.firstResultAt));
  const bytes = (surface) => median(visits[link][surface].map((visit) => visit.untilFirstResult));
  return (
    `On ${LINK_TITLES[link]}, Sandpit's first result came ${formatMs(first(name) - first("raw"))} after raw's, ` +
    `with ${formatBytes(bytes(name) - bytes("raw"))} more transferred before it. ` +
    extraBytesNote(visits[link][name], visits[link].raw, "firstResult")
  );
}

/**
 * Figure 15: every surface's first visit on each link, against raw's on the
 * same link; `notes` replace the note of a missed row, by its id.
 *
 * @param {any} visits
 * @param {Record<string, () => string>} [notes]
 */
export function firstVisitRows(visits, notes = {}) {
  const rows = [];
  for (const link of /** @type {const} */ (["loopback", "emulated"])) {
    const raw = visits[link].raw;
    const stat = (/** @type {any[]} */ samples, /** @type {string} */ key) => summarise(samples.map((visit) => visit[key]));
    for (const surface of SURFACES) {
      const sandpit = visits[link][surface.name];
      const where = `${surface.title}, on ${LINK_TITLES[link]}`;
      rows.push(
        row({
          id: `first_visit_result_${link}_${surface.name}`,
          figure: "15",
          title: `First visit, empty cache: \`print(1)\` asked for on opening until its result, ${where}`,
          unit: "ms",
          sandpit: stat(sandpit, "firstResultAt"),
          raw: stat(raw, "firstResultAt"),
          target: surface.timed ? targets.ratioAtMost(1.0) : targets.none,
          note: notes[`first_visit_result_${link}_${surface.name}`] ?? (() => timeNote(visits, link, surface.name)),
        }),
        row({
          id: `first_visit_bytes_result_${link}_${surface.name}`,
          figure: "15",
          title: `First visit: bytes transferred until the first result, ${where}`,
          unit: "bytes",
          sandpit: stat(sandpit, "untilFirstResult"),
          raw: stat(raw, "untilFirstResult"),
          target: targets.ratioAtMost(1.05),
          note: () => extraBytesNote(sandpit, raw, "firstResult"),
        }),
      );
      if (link === "loopback") {
        rows.push(
          row({
            id: `first_visit_bytes_settled_${surface.name}`,
            figure: "15",
            title: `First visit: bytes transferred until everything it started is over (warm spare, start-up snapshot, offline copy), ${surface.title}`,
            unit: "bytes",
            sandpit: stat(sandpit, "untilSettled"),
            raw: stat(raw, "untilSettled"),
            target: surface.name === "page" ? targets.none : targets.ratioAtMost(1.15),
            note: () => extraBytesNote(sandpit, raw, "settled"),
          }),
        );
      }
    }
  }
  return rows;
}
