// @ts-check
// A loopback HTTP server that records every request it receives: the
// security tests fail if anything from the sandbox reaches it. With
// `cors: true` it is instead a data server that an allowlisted sandbox may read.
import { createServer } from "node:http";

export async function startCanary({ cors = false } = {}) {
  const requests = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const headers = { "Content-Type": "text/plain" };
    if (cors) {
      headers["Access-Control-Allow-Origin"] = "*";
      headers["Cross-Origin-Resource-Policy"] = "cross-origin";
    }
    response.writeHead(200, headers).end("canary data");
  });
  // WebSocket upgrades are requests too.
  server.on("upgrade", (request, socket) => {
    requests.push(`UPGRADE ${request.url}`);
    socket.destroy();
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(undefined)));
  const origin = `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise((/** @type {(value?: unknown) => void} */ ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
