// @ts-check
// What the numbers were measured on, written next to them.
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";

/** One-minute load average: how busy the machine was with other work. */
export const loadAverage = () => loadavg()[0];

/** The commit checked out, `-dirty` when the tree has changes (dist/ may have been built from them). */
export const gitDescribe = (root) =>
  execFileSync("git", ["describe", "--always", "--dirty"], { cwd: root, encoding: "utf8" }).trim();

/** `nproc`, CPU model, browser and software versions; `commit` as found when measuring started. */
export function describeMachine({ dist, browser, loadBefore, commit }) {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const manifest = JSON.parse(readFileSync(`${dist}/pyodide/manifest.json`, "utf8"));
  const nproc = availableParallelism();
  return {
    nproc,
    cpu: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? "unknown",
    chromium: browser.version(),
    node: process.version,
    pyodide: manifest.version,
    commit,
    distBuilt: statSync(`${dist}/index.html`).mtime.toISOString(),
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadAverage(),
    // Another process using half the cores or more skews absolute times.
    busy: loadBefore >= nproc / 2,
  };
}
