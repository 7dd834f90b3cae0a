// @ts-check
// Download progress (pyodide-loader/downloads.mjs), counted over real
// responses from a local server while the counting `fetch` is in place.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import { countingDownloads } from "../../pyodide-loader/downloads.mjs";

/** @type {import("node:http").Server} */
let server;
let base = "";

before(async () => {
  server = createServer((request, response) => {
    const body = Buffer.alloc(request.url === "/big" ? 300_000 : 1000, 1);
    // Without a length, as a chunked response comes.
    if (request.url === "/unsized") response.writeHead(200, { "Content-Type": "application/octet-stream" });
    else response.writeHead(200, { "Content-Length": body.length });
    response.end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  base = `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}`;
});

after(() => new Promise((resolve) => server.close(() => resolve(undefined))));

test("counts every byte read and every announced length, first and last reports included", async () => {
  const realFetch = globalThis.fetch;
  /** @type {[number, number][]} */
  const reports = [];
  const result = await countingDownloads(
    (loaded, seen) => reports.push([loaded, seen]),
    async () => {
      const sizes = [];
      for (const path of ["/big", "/small", "/unsized"]) sizes.push((await (await fetch(`${base}${path}`)).arrayBuffer()).byteLength);
      return sizes;
    },
  );
  assert.deepEqual(result, [300_000, 1000, 1000], "the body's bytes arrive whole");
  assert.deepEqual(reports[0], [0, 0]);
  assert.deepEqual(reports.at(-1), [302_000, 301_000], "an unsized response counts when it arrives, not in advance");
  assert.equal(globalThis.fetch, realFetch, "the real fetch is back");
});

test("reports at most once per interval in between, and puts fetch back after a failure", async () => {
  const realFetch = globalThis.fetch;
  /** @type {number[]} */
  const reports = [];
  await assert.rejects(
    countingDownloads(
      (loaded) => reports.push(loaded),
      async () => {
        await (await fetch(`${base}/big`)).arrayBuffer();
        throw new Error("the load failed");
      },
      60_000,
    ),
    /the load failed/,
  );
  assert.deepEqual(reports, [0, 300_000], "only the first and last report within one long interval");
  assert.equal(globalThis.fetch, realFetch);
});

test("a request that fails says which file it was for", async () => {
  await assert.rejects(
    countingDownloads(
      () => {},
      () => fetch("http://127.0.0.1:9/pyodide/tabulate-0.9.0-py3-none-any.whl"),
    ),
    (error) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /^could not fetch http:\/\/127\.0\.0\.1:9\/pyodide\/tabulate-0\.9\.0-py3-none-any\.whl: /);
      return true;
    },
  );
});
