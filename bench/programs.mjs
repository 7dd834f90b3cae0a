// @ts-check
// The throughput set: short, independent programs of the kind models write,
// each checking itself with asserts. They live in bench/programs/*.py as
// cells that start with a `# %% name` line, so every file reads (and runs,
// `python3 bench/programs/strings.py`) as ordinary Python.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PROGRAMS_DIR = fileURLToPath(new URL("./programs/", import.meta.url));
/** The failing programs: bench/failing/, cells as here, each failing on purpose (figure 12). */
const FAILING_DIR = fileURLToPath(new URL("./failing/", import.meta.url));
const CELL_MARKER = /^# %% /m;

/** Every program as `{ name, code }`, in file then cell order. */
export function loadPrograms() {
  return loadCells(PROGRAMS_DIR);
}

/** Every failing program as `{ name, code }`, in file then cell order. */
export function loadFailingPrograms() {
  return loadCells(FAILING_DIR);
}

/** @param {string} dir */
async function loadCells(dir) {
  const files = (await readdir(dir)).filter((file) => file.endsWith(".py")).sort();
  const programs = [];
  for (const file of files) {
    const text = await readFile(join(dir, file), "utf8");
    // The part before the first marker is the file's own header comment.
    for (const cell of text.split(CELL_MARKER).slice(1)) {
      const newline = cell.indexOf("\n");
      const name = `${file.replace(/\.py$/, "")}/${cell.slice(0, newline).trim()}`;
      const code = cell.slice(newline + 1).trim();
      if (!code) throw new Error(`bench program ${name} is empty`);
      programs.push({ name, code });
    }
  }
  const names = new Set(programs.map((p) => p.name));
  if (names.size !== programs.length) throw new Error("bench program names must be unique");
  return programs;
}
