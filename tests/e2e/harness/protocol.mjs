// @ts-check
// The protocol between the app and its Python worker as the browser tests
// see it: a spy on `Worker` that records every message (nothing replaced),
// and a check of those messages against the JSON Schema generated from the
// message types (`HostMessage` and `WorkerMessage`, src/protocol/messages.rs).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import Ajv2020 from "ajv/dist/2020.js";

const schema = JSON.parse(readFileSync(new URL("../../fixtures/protocol.schema.json", import.meta.url), "utf8"));
/** The numeric formats schemars writes for Rust's number types, checked for real. */
const NUMBER_FORMATS = {
  int32: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  uint32: (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32,
  uint64: (n) => Number.isSafeInteger(n) && n >= 0,
  uint: (n) => Number.isSafeInteger(n) && n >= 0,
  double: (n) => Number.isFinite(n),
};
const ajv = new Ajv2020({ allErrors: true, strict: true });
for (const [name, validate] of Object.entries(NUMBER_FORMATS)) {
  ajv.addFormat(name, { type: "number", validate });
}
ajv.addSchema(schema, "protocol");
const validHostMessage = ajv.getSchema("protocol#/$defs/HostMessage");
const validWorkerMessage = ajv.getSchema("protocol#/$defs/WorkerMessage");

/**
 * Installed before any page script: records what crosses the worker boundary,
 * both `init` on the worker itself and everything on the private channel,
 * as `{ from, kind, data }`: each message is an object with one field, named
 * for its kind (`{ done: { id, result } }`), and `kind` is that name.
 */
export function recordWorkerMessages() {
  window.__sandpitMessages = [];
  const record = (from, data) =>
    window.__sandpitMessages.push({ from, kind: Object.keys(data ?? {})[0], data });
  // Only channels whose other end went to a Worker carry the protocol (the
  // page also talks to its service worker over channels of its own).
  const peers = new WeakMap();
  const protocolPorts = new WeakSet();
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    /**
     * @param {string | URL} url
     * @param {WorkerOptions} [options]
     */
    constructor(url, options) {
      super(url, options);
      // The clock worker (pyodide-loader/clock.mjs) keeps timers: not the Python protocol.
      this.python = String(url).endsWith("pyodide-loader/worker.mjs");
    }

    /**
     * @param {any} data
     * @param {any} transfer
     * @param {[]} rest
     */
    postMessage(data, transfer, ...rest) {
      if (!this.python) return super.postMessage(data, transfer, ...rest);
      record("host", data);
      for (const port of Array.isArray(transfer) ? transfer : []) {
        if (peers.has(port)) protocolPorts.add(peers.get(port));
      }
      return super.postMessage(data, transfer, ...rest);
    }
  };
  const NativeChannel = window.MessageChannel;
  window.MessageChannel = class extends NativeChannel {
    constructor() {
      super();
      const mine = this.port1;
      peers.set(this.port2, mine);
      // port1 stays with the page: what arrives on it comes from the worker.
      mine.addEventListener("message", (event) => {
        if (protocolPorts.has(mine)) record("worker", event.data);
      });
      const send = mine.postMessage.bind(mine);
      mine.postMessage = (data, ...rest) => {
        if (protocolPorts.has(mine)) record("host", data);
        return send(data, ...rest);
      };
    }
  };
}

/**
 * Fails on a recorded message (`{ from, data }`, as `recordWorkerMessages`
 * keeps them) that the protocol does not define.
 */
export function assertInProtocol(messages) {
  for (const { from, data } of messages) {
    const validate = from === "host" ? validHostMessage : validWorkerMessage;
    assert.ok(
      validate(data),
      `${from} sent a message outside the protocol: ${JSON.stringify(data).slice(0, 300)}\n` +
        ajv.errorsText(validate.errors),
    );
  }
}
