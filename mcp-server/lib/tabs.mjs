// @ts-check
// Sandpit tabs connected over a loopback WebSocket: the page's `?relay` mode,
// in the wire format of @mcp-b/webmcp-local-relay (server-hello, hello,
// tools/list, invoke, result, ping), plus two messages of Sandpit's own that
// the relay does not have: `output` (a call's output as it is written) and
// `cancel` (the client gave up on a call). A tab is taken only when its page's
// origin is allowed and its hello carries the pairing token this server made.
import { timingSafeEqual } from "node:crypto";

import { WebSocketServer } from "ws";

/** The subprotocol the page asks for. */
const SUBPROTOCOL = "webmcp.v1";
/**
 * A tab's results are capped far below this (the runner's limits on output,
 * figures and files); a larger message is not ours, and closes the socket (1009).
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * @typedef {import("./calls.mjs").CallToolResult} CallToolResult
 * @typedef {import("./calls.mjs").OnOutput} OnOutput
 * @typedef {{ finish: (result: CallToolResult) => void, onOutput: OnOutput }} TabCall
 * @typedef {{ send: (message: object) => void, pending: Map<string, TabCall> }} Tab
 */

export class Tabs {
  /** @type {Tab[]} */
  #tabs = [];
  /** @type {Set<() => void>} */
  #waiting = new Set();
  #nextCall = 1;
  #sockets = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });

  /**
   * @param {{ origins: string[], token: string, log: (line: string) => void }} options
   */
  constructor({ origins, token, log }) {
    this.origins = origins;
    this.token = token;
    this.log = log;
  }

  /** How many paired tabs are connected. */
  get count() {
    return this.#tabs.length;
  }

  /**
   * Takes an HTTP upgrade: refuses a page whose origin is not allowed before
   * the handshake, and a tab whose hello lacks the pairing token after it.
   *
   * @param {import("node:http").IncomingMessage} request
   * @param {import("node:stream").Duplex} stream
   * @param {Buffer} head
   */
  upgrade(request, stream, head) {
    const origin = String(request.headers.origin ?? "");
    if (!this.origins.includes(origin)) {
      this.log(`refused a tab from ${origin || "a client without an Origin"}: not an allowed origin`);
      stream.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
      return;
    }
    // Each call is a small message each way: sent at once, not held back to be coalesced (Nagle).
    /** @type {import("node:net").Socket} */ (stream).setNoDelay(true);
    this.#sockets.handleUpgrade(request, stream, head, (socket) => this.#take(socket, origin));
  }

  /**
   * A connected socket: a tab once its hello carries the pairing token.
   *
   * @param {import("ws").WebSocket} socket
   * @param {string} origin
   */
  #take(socket, origin) {
    const send = (/** @type {object} */ message) => socket.send(JSON.stringify(message));
    /** @type {Tab | null} */
    let tab = null;
    socket.on("error", (error) => this.log(`a tab's connection failed: ${error.message}`));
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      let message;
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      if (tab === null) {
        if (message?.type !== "hello") return;
        if (!sameToken(message.token, this.token)) {
          this.log(`refused a tab from ${origin}: wrong or missing pairing token`);
          socket.close(4001, "wrong pairing token: open the page with the URL this server gives");
          return;
        }
        tab = { send, pending: new Map() };
        this.#tabs.push(tab);
        this.log(`a Sandpit tab connected from ${origin}`);
        for (const wake of this.#waiting) wake();
        return;
      }
      if (message?.type === "result" && typeof message.callId === "string") {
        tab.pending.get(message.callId)?.finish(message.result);
        tab.pending.delete(message.callId);
      }
      if (message?.type === "output" && typeof message.text === "string") {
        const stream = message.stream === "stderr" ? "stderr" : "stdout";
        tab.pending.get(message.callId)?.onOutput(stream, message.text);
      }
    });
    socket.on("close", () => {
      if (tab === null) return;
      const closed = tab;
      this.#tabs = this.#tabs.filter((t) => t !== closed);
      for (const { finish } of closed.pending.values()) {
        finish(failure("The Sandpit tab closed before the run finished."));
      }
      this.log(`a Sandpit tab disconnected`);
    });
    send({ type: "server-hello" });
  }

  /**
   * Resolves once a tab is connected, or to false when `signal` ends the wait.
   *
   * @param {AbortSignal} signal
   * @returns {Promise<boolean>}
   */
  waitForTab(signal) {
    if (this.#tabs.length > 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (/** @type {boolean} */ found) => {
        this.#waiting.delete(wake);
        signal.removeEventListener("abort", stop);
        resolve(found);
      };
      const wake = () => done(true);
      const stop = () => done(false);
      if (signal.aborted) return stop();
      this.#waiting.add(wake);
      signal.addEventListener("abort", stop);
    });
  }

  /**
   * Runs a tool call in the most recently connected tab; `onOutput` hears its
   * output as it is written, and `signal` cancels the run in the tab.
   *
   * @param {string} tool
   * @param {object} args
   * @param {{ onOutput: OnOutput, signal: AbortSignal }} options
   * @returns {Promise<CallToolResult>}
   */
  invoke(tool, args, { onOutput, signal }) {
    const tab = this.#tabs.at(-1);
    if (!tab) return Promise.resolve(failure("No Sandpit tab is connected."));
    const callId = `c${this.#nextCall++}`;
    return new Promise((resolve) => {
      const cancel = () => tab.send({ type: "cancel", callId });
      signal.addEventListener("abort", cancel, { once: true });
      const finish = (/** @type {CallToolResult} */ result) => {
        signal.removeEventListener("abort", cancel);
        resolve(result);
      };
      tab.pending.set(callId, { finish, onOutput });
      tab.send({ type: "invoke", callId, toolName: tool, args });
    });
  }

  /** Disconnects every tab. */
  close() {
    for (const socket of this.#sockets.clients) socket.terminate();
    this.#sockets.close();
  }
}

/**
 * Compares tokens in constant time.
 *
 * @param {unknown} given
 * @param {string} expected
 */
function sameToken(given, expected) {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A failed call, as every surface reports one.
 *
 * @param {string} text
 * @returns {CallToolResult}
 */
export function failure(text) {
  return { content: [{ type: "text", text }], isError: true };
}
