// @ts-check
// The start-up snapshot's checks (pyodide-loader/snapshot.mjs) on bytes
// shaped as Pyodide's snapshot header lays them out.
import assert from "node:assert/strict";
import { test } from "node:test";

import { snapshotProblem } from "../../pyodide-loader/snapshot.mjs";

const MAGIC = 0x706e7300;
const HEADER = 48;
const PAGE = 65536;

/**
 * A snapshot's bytes: the header, `state` as its JSON, then `pages` of memory.
 *
 * @param {unknown} state
 * @param {{ magic?: number, pages?: number }} [options]
 */
function snapshot(state, { magic = MAGIC, pages = 1 } = {}) {
  const json = new TextEncoder().encode(JSON.stringify(state));
  const offset = Math.ceil((HEADER + json.length) / 8) * 8;
  const bytes = new Uint8Array(offset + pages * PAGE);
  new Uint32Array(bytes.buffer, 0, 3).set([magic, offset, json.length]);
  bytes.set(json, HEADER);
  return bytes.buffer;
}

test("a snapshot that holds no JS object can be restored", () => {
  assert.equal(snapshotProblem(snapshot({ hiwireKeys: [null, null] })), null);
});

test("one that holds a JS object is refused: restoring would hand it to Python before the lockdown", () => {
  assert.match(String(snapshotProblem(snapshot({ hiwireKeys: [null, ["caches"]] }))), /holds JS objects/);
  assert.match(String(snapshotProblem(snapshot({}))), /holds JS objects/);
});

test("bytes of another shape are no snapshot", () => {
  assert.match(String(snapshotProblem(new ArrayBuffer(12))), /is no snapshot/);
  assert.match(String(snapshotProblem(snapshot({ hiwireKeys: [] }, { magic: 1 }))), /magic/);
  assert.match(String(snapshotProblem(snapshot({ hiwireKeys: [] }, { pages: 0 }))), /whole number of wasm pages/);
  const broken = new Uint8Array(snapshot({ hiwireKeys: [] }));
  broken[HEADER] = "}".charCodeAt(0);
  assert.match(String(snapshotProblem(broken.buffer)), /header is not Pyodide's/);
});
