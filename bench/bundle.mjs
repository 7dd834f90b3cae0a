// @ts-check
// What is measured: a snapshot of dist/ taken when the bench starts, so a
// rebuild while it runs (minutes) cannot mix two builds into one report, and
// the raw baseline next to it, using the snapshot's Pyodide files.
import { cp, mkdir, mkdtemp, readdir, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";

import { listFiles } from "./size.mjs";

const ATTEMPTS = 3;
const RETRY_AFTER_MS = 10_000;

/**
 * Copies `dist` (a finished build: it must not change while being copied)
 * and `raw` into a temporary directory. Resolves to `{ dist, raw, remove }`.
 */
export async function snapshotBundle({ dist, raw }) {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const before = await fingerprint(dist);
    if (!before.includes('"index.html"')) throw new Error("dist/ is missing: run `make build` first");
    const dir = await mkdtemp(join(tmpdir(), "sandpit-bench-"));
    const remove = () => rm(dir, { recursive: true, force: true });
    try {
      const copy = { dist: join(dir, "dist"), raw: join(dir, "raw"), remove };
      // Hidden entries are Trunk's staging area for the next build, not the app.
      await cp(dist, copy.dist, {
        recursive: true,
        preserveTimestamps: true,
        filter: (path) => !basename(path).startsWith("."),
      });
      await mkdir(copy.raw);
      for (const name of await readdir(raw)) await cp(join(raw, name), join(copy.raw, name));
      await symlink(join("..", "dist", "pyodide"), join(copy.raw, "pyodide"));
      if ((await fingerprint(dist)) === before) return copy;
    } catch (error) {
      await remove();
      throw error;
    }
    await remove();
    await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
  }
  throw new Error("dist/ kept changing while it was copied: measure when no build is running");
}

/** Names, sizes and modification times of a directory's files. */
async function fingerprint(dir) {
  const files = await Promise.all(
    (await listFiles(dir).catch(() => [])).map(async (path) => {
      const { size, mtimeMs } = await stat(path);
      return [relative(dir, path), size, mtimeMs];
    }),
  );
  return JSON.stringify(files.sort());
}
