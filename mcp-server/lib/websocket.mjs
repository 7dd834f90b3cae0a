// @ts-check
// The server side of WebSocket (RFC 6455), as much as a Sandpit tab needs:
// text messages both ways, ping, close. Small enough to keep here rather
// than depend on a WebSocket package for one loopback connection.
import { createHash } from "node:crypto";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** A tab's results are capped far below this; anything larger is not ours. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * One accepted connection.
 *
 * @typedef {{
 *   send(text: string): void,
 *   close(code?: number, reason?: string): void,
 *   onmessage: (text: string) => void,
 *   onclose: () => void,
 * }} Socket
 */

/**
 * Completes the opening handshake of an HTTP upgrade request and returns the
 * socket; `protocol` is echoed when the client offered it.
 *
 * @param {import("node:http").IncomingMessage} request
 * @param {import("node:stream").Duplex} stream
 * @param {string} [protocol]
 * @returns {Socket}
 */
export function accept(request, stream, protocol) {
  const key = String(request.headers["sec-websocket-key"] ?? "");
  const digest = createHash("sha1").update(key + GUID).digest("base64");
  const offered = String(request.headers["sec-websocket-protocol"] ?? "")
    .split(",")
    .map((p) => p.trim());
  const lines = [
    "HTTP/1.1 101 Switching Protocols",
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Accept: ${digest}`,
  ];
  if (protocol && offered.includes(protocol)) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
  stream.write(lines.join("\r\n") + "\r\n\r\n");

  let closed = false;
  /** @type {Buffer} */
  let buffered = Buffer.alloc(0);
  /** @type {Buffer[]} */
  let fragments = [];
  /** @type {Socket} */
  const socket = {
    send(text) {
      if (!closed) stream.write(frame(0x1, Buffer.from(text, "utf8")));
    },
    close(code = 1000, reason = "") {
      if (closed) return;
      const body = Buffer.alloc(2 + Buffer.byteLength(reason));
      body.writeUInt16BE(code, 0);
      body.write(reason, 2);
      stream.write(frame(0x8, body));
      finish();
      stream.end();
    },
    onmessage: () => {},
    onclose: () => {},
  };
  const finish = () => {
    if (closed) return;
    closed = true;
    socket.onclose();
  };
  stream.on("data", (/** @type {Buffer} */ chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const parsed = parse(buffered);
      if (parsed === null) break;
      if (parsed === "too large") {
        socket.close(1009, "message too large");
        return;
      }
      buffered = buffered.subarray(parsed.length);
      const { fin, opcode, payload } = parsed;
      if (opcode === 0x8) {
        socket.close();
        return;
      }
      if (opcode === 0x9) stream.write(frame(0xa, payload));
      if (opcode === 0x1 || opcode === 0x0) {
        fragments.push(payload);
        if (fin) {
          const text = Buffer.concat(fragments).toString("utf8");
          fragments = [];
          socket.onmessage(text);
        }
      }
    }
  });
  stream.on("close", finish);
  stream.on("error", finish);
  return socket;
}

/**
 * One frame from the start of `data`: null when incomplete.
 *
 * @param {Buffer} data
 * @returns {{ fin: boolean, opcode: number, payload: Buffer, length: number } | null | "too large"}
 */
function parse(data) {
  if (data.length < 2) return null;
  const fin = (data[0] & 0x80) !== 0;
  const opcode = data[0] & 0x0f;
  const masked = (data[1] & 0x80) !== 0;
  let size = data[1] & 0x7f;
  let offset = 2;
  if (size === 126) {
    if (data.length < 4) return null;
    size = data.readUInt16BE(2);
    offset = 4;
  } else if (size === 127) {
    if (data.length < 10) return null;
    const big = data.readBigUInt64BE(2);
    if (big > BigInt(MAX_MESSAGE_BYTES)) return "too large";
    size = Number(big);
    offset = 10;
  }
  if (size > MAX_MESSAGE_BYTES) return "too large";
  const maskAt = offset;
  if (masked) offset += 4;
  if (data.length < offset + size) return null;
  const payload = Buffer.from(data.subarray(offset, offset + size));
  if (masked) {
    for (let i = 0; i < payload.length; i++) payload[i] ^= data[maskAt + (i % 4)];
  }
  return { fin, opcode, payload, length: offset + size };
}

/**
 * A server frame (never masked).
 *
 * @param {number} opcode
 * @param {Buffer} payload
 */
function frame(opcode, payload) {
  const size = payload.length;
  const head = size < 126 ? Buffer.alloc(2) : size < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (size < 126) head[1] = size;
  else if (size < 65536) {
    head[1] = 126;
    head.writeUInt16BE(size, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(size), 2);
  }
  return Buffer.concat([head, payload]);
}
