// @ts-check
// Figure 15's emulated link: an HTTP proxy on loopback that a visit's
// browser sends every request through, loopback's included, so a widget on
// another site, its worker, its service worker and the page share one link,
// as they would share a user's connection. DevTools' network emulation is set
// per target, with a budget of its own for each, and does not reach a
// widget's frame in a process of its own from its first request.
import { Agent, createServer, request as forward } from "node:http";
import { Transform, pipeline } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";

/** The link's bandwidth each way and the latency added to every request. */
export const EMULATED_LINK = { downBitsPerSecond: 20e6, upBitsPerSecond: 5e6, latencyMs: 40 };

/** The link's conditions in words, for the report. */
export const EMULATED_LINK_WORDS = "a throttling proxy every request crosses: 20 Mbit/s down, 5 Mbit/s up, 40 ms added to each request";

/** How much one stream sends before others get their turn, so parallel downloads share the link. */
const SLICE_BYTES = 16 * 1024;

/** Headers that concern one hop, not the request or response. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization"]);

/** One direction of the link: bytes leave in the order they were offered, at its rate. */
class Pipe {
  /** @param {number} bitsPerSecond */
  constructor(bitsPerSecond) {
    this.bytesPerMs = bitsPerSecond / 8 / 1000;
    this.freeAt = 0;
  }

  /** Resolves once `bytes` offered now have crossed. */
  async send(bytes) {
    const now = performance.now();
    this.freeAt = Math.max(now, this.freeAt) + bytes / this.bytesPerMs;
    await sleep(this.freeAt - now);
  }

  /** A stream that passes what it is given at the link's pace, telling `crossed` each slice's bytes. */
  throttle(crossed = (/** @type {number} */ _bytes) => {}) {
    return new Transform({
      transform: (chunk, _encoding, done) => {
        const pass = async () => {
          for (let at = 0; at < chunk.length; at += SLICE_BYTES) {
            const slice = chunk.subarray(at, at + SLICE_BYTES);
            await this.send(slice.length);
            crossed(slice.length);
          }
          return chunk;
        };
        pass().then((passed) => done(null, passed), done);
      },
    });
  }
}

/** The bytes of an HTTP message's start line and headers as they go on the wire. */
function headBytes(startLine, rawHeaders) {
  let bytes = startLine.length + 4;
  for (let i = 0; i < rawHeaders.length; i += 2) bytes += rawHeaders[i].length + rawHeaders[i + 1].length + 4;
  return bytes;
}

/** `headers` without the hop-by-hop ones. */
const endToEnd = (headers) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

/**
 * Starts the emulated link: `{ proxy, carried, close }`, where `proxy` is
 * the URL to give the browser as its proxy, and `carried` counts the
 * requests that went through and the bytes that came down (heads and
 * bodies), in all and by path. Only loopback is reached; anything else,
 * and tunnels, are refused.
 */
export async function startEmulatedLink(link = EMULATED_LINK) {
  const down = new Pipe(link.downBitsPerSecond);
  const up = new Pipe(link.upBitsPerSecond);
  const carried = { requests: 0, bytes: 0, byPath: new Map() };
  const agent = new Agent({ keepAlive: true });
  const server = createServer((request, response) => {
    const target = URL.canParse(request.url ?? "") ? new URL(request.url ?? "") : null;
    if (target?.hostname !== "127.0.0.1" || target.protocol !== "http:") {
      response.writeHead(502).end();
      return;
    }
    carried.requests += 1;
    const onPath = (bytes) => {
      carried.bytes += bytes;
      carried.byPath.set(target.pathname, (carried.byPath.get(target.pathname) ?? 0) + bytes);
    };
    onPath(0);
    const relay = async () => {
      await up.send(headBytes(`${request.method} ${request.url} HTTP/1.1`, request.rawHeaders));
      await sleep(link.latencyMs);
      if (response.destroyed) return;
      const upstream = forward(
        { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, method: request.method, headers: endToEnd(request.headers) },
        async (answer) => {
          const head = headBytes(`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}`, answer.rawHeaders);
          await down.send(head);
          onPath(head);
          response.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
          // A browser that goes away mid-answer ends the upstream request too.
          pipeline(answer, down.throttle(onPath), response, (error) => error && upstream.destroy());
        },
      );
      upstream.on("error", () => (response.headersSent ? response.destroy() : response.writeHead(502).end()));
      pipeline(request, up.throttle(), upstream, (error) => error && response.destroy());
    };
    relay().catch(() => response.destroy());
  });
  server.on("connect", (_request, socket) => socket.destroy());
  await new Promise((listening) => server.listen(0, "127.0.0.1", () => listening(undefined)));
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    proxy: `http://127.0.0.1:${port}`,
    carried,
    async close() {
      server.closeAllConnections();
      await new Promise((closed) => server.close(() => closed(undefined)));
      agent.destroy();
    },
  };
}
