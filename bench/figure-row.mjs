// @ts-check
// One figure's row (see figures.mjs), and the targets rows are judged by.
import { quantile } from "./stats.mjs";

/** The median of `values`. */
export const median = (values) => quantile(values, 0.5);

/** What a row is judged by: its text in the report, and whether the statistics meet it (null: no target). */
export const targets = {
  none: { text: "—", met: () => null },
  ratioAtMost: (limit) => ({ text: `≤ ${limit.toFixed(2)}× raw`, met: (s, r) => s.value <= limit * r.value }),
  ratioAtLeast: (limit) => ({ text: `≥ ${limit.toFixed(2)}× raw`, met: (s, r) => s.value >= limit * r.value }),
  overheadUnder: (ms) => ({ text: `< ${ms} ms over raw`, met: (s, r) => s.value - r.value < ms }),
  under: (limit, text) => ({ text, met: (s) => s.value < limit }),
};

/**
 * One figure's row: both targets' statistic, their ratio unless given, and whether the target was met.
 *
 * @param {{
 *   id: string,
 *   figure: string,
 *   title: string,
 *   unit: string,
 *   sandpit: { value: number, min?: number, max?: number, n?: number },
 *   raw: { value: number, min?: number, max?: number, n?: number } | null,
 *   ratio?: number | null,
 *   target: { text: string, met: (sandpit: any, raw: any) => boolean | null },
 *   note?: () => string,
 *   stat?: string,
 * }} figure
 */
export function row({ id, figure, title, unit, sandpit, raw, ratio, target, note, stat = "median" }) {
  const met = target.met(sandpit, raw);
  return {
    id,
    figure,
    title,
    unit,
    stat,
    sandpit,
    raw,
    // No ratio to nothing: both return visits may transfer no bytes at all.
    ratio: ratio !== undefined ? ratio : raw?.value ? sandpit.value / raw.value : null,
    target: { text: target.text, met },
    note: met === false && note ? note() : null,
  };
}
