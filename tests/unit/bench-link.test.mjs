// @ts-check
// Figure 15's emulated link (bench/link.mjs): what crosses it takes as long
// as its bandwidth says, parallel downloads share one budget, every request
// waits its latency, and nothing but loopback is reached through it.
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import { after, before, test } from "node:test";

import { startEmulatedLink } from "../../bench/link.mjs";

const BODY_BYTES = 200_000;
/** 8 Mbit/s: a megabyte a second, so 200 KB take 200 ms. */
const LINK = { downBitsPerSecond: 8e6, upBitsPerSecond: 8e6, latencyMs: 50 };

/** @type {import("node:http").Server} */
let origin;
let originUrl = "";

before(async () => {
  origin = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": BODY_BYTES });
    response.end(Buffer.alloc(BODY_BYTES));
  });
  await new Promise((listening) => origin.listen(0, "127.0.0.1", () => listening(undefined)));
  const { port } = /** @type {import("node:net").AddressInfo} */ (origin.address());
  originUrl = `http://127.0.0.1:${port}/file.bin`;
});

after(() => new Promise((closed) => origin.close(() => closed(undefined))));

/** GETs `url` through the proxy at `proxy`: resolves to the status and the body's length. */
function get(proxy, url) {
  const { hostname, port } = new URL(proxy);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, path: url, headers: { host: new URL(url).host } }, (response) => {
      let bytes = 0;
      response.on("data", (chunk) => (bytes += chunk.length));
      response.on("end", () => resolve({ status: response.statusCode, bytes }));
    });
    sent.on("error", reject);
    sent.end();
  });
}

test("a download takes as long as the link's bandwidth and latency say, and is counted", async () => {
  const link = await startEmulatedLink(LINK);
  try {
    const started = performance.now();
    const { status, bytes } = await get(link.proxy, originUrl);
    const took = performance.now() - started;
    assert.equal(status, 200);
    assert.equal(bytes, BODY_BYTES);
    assert.ok(took >= 200 + LINK.latencyMs - 5, `took ${took} ms`);
    assert.equal(link.carried.requests, 1);
    assert.ok(link.carried.bytes > BODY_BYTES && link.carried.bytes < BODY_BYTES + 1_000, `carried ${link.carried.bytes}`);
    assert.equal(link.carried.byPath.get("/file.bin"), link.carried.bytes);
  } finally {
    await link.close();
  }
});

test("parallel downloads share one budget", async () => {
  const link = await startEmulatedLink(LINK);
  try {
    const started = performance.now();
    await Promise.all([get(link.proxy, originUrl), get(link.proxy, originUrl), get(link.proxy, originUrl)]);
    const took = performance.now() - started;
    assert.ok(took >= 600 + LINK.latencyMs - 5, `three downloads took ${took} ms`);
  } finally {
    await link.close();
  }
});

test("nothing but loopback is reached through the link", async () => {
  const link = await startEmulatedLink(LINK);
  try {
    const { status } = await get(link.proxy, "http://example.invalid/file.bin");
    assert.equal(status, 502);
    assert.equal(link.carried.requests, 0);
  } finally {
    await link.close();
  }
});
