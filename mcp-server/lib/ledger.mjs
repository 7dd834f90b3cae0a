// @ts-check
// Each session's ledger of runs, as the runtime's scheduler keeps one
// (src/runtime/scheduler.rs): every run_python call that succeeded is kept,
// without its timeout or output wishes; a view starts a fresh interpreter,
// so it replays the ledger, in order, before the call it claimed. A reset
// drops the session's ledger; an entry whose replay failed is dropped (its
// effects are lost anyway) and reported in the call's `restored.lost`.

/**
 * What a run left that a replay rebuilds: the scheduler's `LedgerEntry`.
 *
 * @typedef {{ seq: number, code: string, packages: string[], files: object[], tests: string | null }} Entry
 */

/**
 * A replay as the view runs it: the entry's number and run_python's arguments.
 *
 * @typedef {{ seq: number, arguments: Record<string, any> }} Replay
 */

/**
 * One earlier run that could not be replayed: the protocol's `LostRun`.
 *
 * @typedef {{ session: string, code_start: string, reason: string }} LostRun
 */

export class Ledger {
  /** @type {Map<string, Entry[]>} */
  #sessions = new Map();
  #nextSeq = 0;

  /**
   * Keeps what a finished call means for its session's ledger.
   *
   * @param {string} tool
   * @param {Record<string, any>} args
   * @param {import("./calls.mjs").CallToolResult} result
   */
  record(tool, args, result) {
    const session = sessionOf(args);
    if (tool === "reset_session" && !result.isError) this.#sessions.delete(session);
    if (tool !== "run_python" || result.structuredContent?.status !== "ok") return;
    this.#nextSeq += 1;
    const entry = {
      seq: this.#nextSeq,
      code: String(args.code),
      packages: Array.isArray(args.packages) ? args.packages : [],
      files: Array.isArray(args.files) ? args.files : [],
      tests: typeof args.tests === "string" ? args.tests : null,
    };
    this.#sessions.set(session, [...(this.#sessions.get(session) ?? []), entry]);
  }

  /**
   * The runs to replay, oldest first, before a call of `tool` with `args`
   * runs in a fresh interpreter: the session's ledger for run_python, nothing
   * for a tool that needs no session state.
   *
   * @param {string} tool
   * @param {Record<string, any>} args
   * @returns {Replay[]}
   */
  replays(tool, args) {
    if (tool !== "run_python") return [];
    const session = sessionOf(args);
    return (this.#sessions.get(session) ?? []).map(({ seq, code, packages, files, tests }) => ({
      seq,
      arguments: { code, session, packages, files, ...(tests === null ? {} : { tests }) },
    }));
  }

  /**
   * Drops the entries whose replay failed, so later replays skip them, and
   * says what was lost.
   *
   * @param {Record<string, any>} args the arguments of the call they were replayed for
   * @param {{ seq: number, reason: string }[]} failed
   * @returns {LostRun[]}
   */
  lose(args, failed) {
    const session = sessionOf(args);
    const entries = this.#sessions.get(session) ?? [];
    /** @type {LostRun[]} */
    const lost = [];
    for (const { seq, reason } of failed) {
      const entry = entries.find((kept) => kept.seq === seq);
      if (entry) lost.push({ session, code_start: entry.code.split("\n")[0], reason });
    }
    const gone = new Set(failed.map(({ seq }) => seq));
    this.#sessions.set(session, entries.filter((kept) => !gone.has(kept.seq)));
    return lost;
  }
}

/**
 * The session a call names.
 *
 * @param {Record<string, any>} args
 */
function sessionOf(args) {
  return typeof args.session === "string" && args.session !== "" ? args.session : "main";
}
