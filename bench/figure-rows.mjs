// @ts-check
// The rows of the figures that have several (4, 5, 8, 9, 10; see figures.mjs).
import { batchFailures, batchNote, chatUiNote, memoryNote, recoveryNote, roundTripNote } from "./figure-notes.mjs";
import { row, targets } from "./figure-row.mjs";
import { exactly, summarise } from "./stats.mjs";

/** Figure 9: HumanEval through runMany against raw, and how many of its programs passed. */
export function batchRows(batch) {
  const count = batch.names.length;
  const rate = (runs, programs = count) => summarise(runs.map((run) => programs / (run.ms / 1000)));
  const passed = (runs) => exactly(Math.min(...runs.map((run) => run.statuses.filter((s) => s === "ok").length)));
  // Two workers can do no better than this machine lets two workers do: the target is the control's, not a fixed factor.
  const control = rate(batch.rawPair, 2 * count);
  return [
    row({
      id: "batch_humaneval",
      figure: "9",
      title: `HumanEval's ${count} canonical solutions with their tests: runMany over the widget's session workers (agent path) against raw Pyodide's one worker`,
      unit: "runs/s",
      sandpit: rate(batch.agent),
      raw: rate(batch.raw),
      target: { text: "≥ 0.90× the control row", met: (s) => s.value >= 0.9 * control.value },
      note: () => batchNote(batch),
    }),
    row({
      id: "batch_humaneval_control",
      figure: "9",
      title:
        `The control: raw Pyodide on two pages at once, each page its own worker running all ${count} (twice the work), ` +
        "in the Sandpit column, against raw's one worker: what this machine gave two workers",
      unit: "runs/s",
      sandpit: control,
      raw: rate(batch.raw),
      target: targets.none,
    }),
    row({
      id: "batch_humaneval_passed",
      figure: "9",
      title: "HumanEval programs that passed their tests (the fewest over the passes)",
      unit: "programs",
      sandpit: passed(batch.agent),
      raw: passed(batch.raw),
      target: { text: `all ${count}`, met: (s, r) => s.value === count && r.value === count },
      note: () => batchFailures(batch),
    }),
  ];
}

/**
 * Figure 10: the official SDK client over IframeParentTransport, calls from
 * the moment the widget answers `initialize` (bench/chat-ui.mjs).
 */
export function chatUiRows(chatUi, programCount) {
  const trivial = (path) => chatUi[path].trivialMs.flat();
  return [
    row({
      id: "chat_ui_first_call",
      figure: "10",
      title: "Chat-UI path (the MCP SDK's Client over IframeParentTransport): first call, sent as the widget answers `initialize` (raw: as its page opens), until its result",
      unit: "ms",
      sandpit: summarise(chatUi.sandpit.firstCallMs),
      raw: summarise(chatUi.raw.firstCallMs),
      target: targets.none,
    }),
    row({
      id: "chat_ui_round_trip_trivial_p50",
      figure: "10",
      title: "Chat-UI path: round trip p50 for a trivial run, the calls right after the first",
      unit: "ms",
      sandpit: summarise(trivial("sandpit"), 0.5),
      raw: summarise(trivial("raw"), 0.5),
      target: targets.overheadUnder(1),
      note: () => chatUiNote(chatUi),
    }),
    row({
      id: "chat_ui_throughput",
      figure: "10",
      title: `Chat-UI path: throughput over ${programCount} model-style programs, right after the first call`,
      unit: "runs/s",
      sandpit: summarise(chatUi.sandpit.runsPerSecond),
      raw: summarise(chatUi.raw.runsPerSecond),
      target: targets.ratioAtLeast(0.8),
      note: () => chatUiNote(chatUi),
    }),
  ];
}

export function roundTripRows(key, what, sessions, path) {
  const times = (s) => s[key].ms;
  const make = (stat, q, target) =>
    row({
      id: `round_trip_${key}_${stat}${path.id}`,
      figure: "4",
      title: `Round trip ${stat} for ${what}${path.title}`,
      unit: "ms",
      stat,
      sandpit: summarise(times(sessions[path.name]), q),
      raw: summarise(times(sessions.raw), q),
      target,
      note: () => roundTripNote(sessions, key, path),
    });
  // The UI path is judged by what a person sees (the paint row); the agent path by its overhead.
  const p50Target = path.id === "" ? targets.none : targets.overheadUnder(1);
  return [make("p50", 0.5, p50Target), make("p95", 0.95, targets.none)];
}

/** Figure 8 for one way into Sandpit: after 1 run, after the long session, the growth between. */
export function memoryRows(sessions, path) {
  const memory = { sandpit: sessions[path.name].memory, raw: sessions.raw.memory };
  const growth = (m) => exactly(((m.last.total - m.first.total) / m.first.total) * 100);
  const runs = memory.sandpit.runs.toLocaleString("en-US");
  return [
    row({
      id: `memory_first${path.id}`,
      figure: "8",
      title: `JS heap + wasm memory after 1 run${path.title}`,
      unit: "bytes",
      sandpit: exactly(memory.sandpit.first.total),
      raw: exactly(memory.raw.first.total),
      target: targets.none,
    }),
    row({
      id: `memory_last${path.id}`,
      figure: "8",
      title: `JS heap + wasm memory after ${runs} runs${path.title}`,
      unit: "bytes",
      sandpit: exactly(memory.sandpit.last.total),
      raw: exactly(memory.raw.last.total),
      target: targets.none,
    }),
    row({
      id: `memory_growth${path.id}`,
      figure: "8",
      title: `Memory growth from 1 to ${runs} runs${path.title}`,
      unit: "%",
      sandpit: growth(memory.sandpit),
      raw: growth(memory.raw),
      ratio: null,
      target: targets.under(10, "< 10 %"),
      note: () => memoryNote(memory),
    }),
  ];
}

/** Figure 5, once per way Sandpit stops a run, each against raw's terminate and reload. */
export function recoveryRows(recovery) {
  const make = (mode, title, limitMs) =>
    row({
      id: `recovery_${mode}`,
      figure: "5",
      title: `Recovery after a timeout until the next run can start: ${title}`,
      unit: "ms",
      sandpit: summarise(recovery[mode].map((s) => s.ms)),
      raw: summarise(recovery.raw.map((s) => s.ms)),
      target: targets.under(limitMs, `< ${limitMs} ms`),
      note: () => recoveryNote(recovery, mode),
    });
  return [
    make("interrupt", "interrupt mode (cross-origin isolated page)", 50),
    make("terminate", "terminate mode with the warm spare (page not isolated)", 300),
  ];
}
