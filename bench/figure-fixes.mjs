// @ts-check
// Figure 12's rows: how many failing model-style programs come back with a
// fix Sandpit proved, and what proving it cost.
import { median, row, targets } from "./figure-row.mjs";

/** The corpus file whose programs have no mechanical fix. */
const NO_FIX_FILE = "no_mechanical_fix";
import { exactly, summarise } from "./stats.mjs";

/** @param {{ passes: { status: string, verified: boolean, trialMs: number | null, summary: string | null }[][], names: string[] }} fixes */
export function fixRows(fixes) {
  const count = fixes.names.length;
  // bench/failing/no_mechanical_fix.py: programs where any fix would be a guess.
  const mechanical = fixes.names.filter((name) => !name.startsWith(`${NO_FIX_FILE}/`)).length;
  const verifiedIn = (pass) => pass.filter((p) => p.verified).length;
  const fewest = Math.min(...fixes.passes.map(verifiedIn));
  const guessesProved = fixes.passes.some((pass) =>
    pass.some((p, i) => p.verified && fixes.names[i].startsWith(`${NO_FIX_FILE}/`)),
  );
  const trialMs = fixes.passes.flatMap((pass) => pass.filter((p) => p.verified).map((p) => p.trialMs ?? 0));
  return [
    row({
      id: "fixes_verified",
      figure: "12",
      title: `Failing model-style programs (bench/failing/, ${count}) whose result carries a fix Sandpit ran and proved (the fewest over the passes)`,
      unit: "programs",
      sandpit: exactly(fewest),
      raw: null,
      target: {
        text: `all ${mechanical} with a mechanical fix, none of the ${count - mechanical} without`,
        met: (s) => s.value >= mechanical && !guessesProved,
      },
      note: () => notProved(fixes),
    }),
    row({
      id: "fixes_trial_ms",
      figure: "12",
      title: "What proving a fix added to its run's answer: the trials' time per verified fix (p50)",
      unit: "ms",
      sandpit: summarise(trialMs, 0.5),
      raw: null,
      target: targets.none,
    }),
  ];
}

/** The programs that came back without a verified fix in the last pass, and what they had instead. */
function notProved(fixes) {
  const last = fixes.passes.at(-1) ?? [];
  const missing = last
    .map((p, i) => ({ ...p, name: fixes.names[i] }))
    .filter((p) => !p.verified)
    .map((p) => `${p.name} (${p.summary ? `unproved: ${p.summary}` : "no fix"})`);
  return `Without a verified fix: ${missing.join(", ")}. The corpus holds programs with no mechanical fix (a wrong result, an error raised on purpose, runaway recursion): a fix offered there would be a guess. Median trial time over ${median(last.filter((p) => p.verified).map((p) => p.trialMs ?? 0)).toFixed(0)} ms in the last pass.`;
}
