// @ts-check
// Sandpit's Python worker: a module worker (Pyodide 314 refuses classic
// workers) that loads Pyodide once, installs the runner, locks itself down,
// then runs one job at a time.
//
// Message shapes are defined in Rust (src/protocol/). The worker builds
// them by hand, type-checked against the declarations generated from those
// types (www/generated/protocol.d.ts), and the browser tests validate every
// message it sends against the JSON Schema generated from them too.
//
// What Python may reach is decided here and by this script's own CSP (see
// SECURITY.md): after start-up the worker's storage APIs, its postMessage and
// its ways to start more workers are removed (lockdown.mjs), and the host is
// reached only through a MessagePort that lives in this module's scope
// (host-channel.mjs).
//
// The modules beside this one, each one concern: starting Python
// (startup.mjs, from the start-up snapshot of snapshot.mjs when one is
// stored; the snapshot is made by a worker started for nothing else, which
// never takes a run, so no user code ever touches what later starts
// restore), installing the runner (runner-install.mjs), the jobs
// (message-loop.mjs) with their packages (packages.mjs), memory limit
// (memory-cap.mjs) and, where this script runs on a page's thread instead of
// a worker (THREAD_PAGE), the valve that stops a run at its timeout
// (page-valve.mjs).
import { SNAPSHOT_MAKER_NAME } from "../www/generated/names.js";
import { HostChannel } from "./host-channel.mjs";
import { MessageLoop } from "./message-loop.mjs";
import { makeSnapshot, startEarly, startFetches } from "./startup.mjs";

const host = new HostChannel();
const fetches = startFetches();
/** Python starting; null for the snapshot maker, which starts its own way at `init`. */
const starting = self.name === SNAPSHOT_MAKER_NAME ? null : startEarly(fetches, import.meta.url, (body) => host.progress(body));
// Its failure is reported by `init`, not as unhandled meanwhile.
starting?.catch(() => {});
const loop = new MessageLoop(host, starting);

// The first (and only) message on the worker itself: `init`, carrying the port.
// On a page, only from the page that framed it.
self.onmessage = (event) => {
  if (event.source !== null && event.source !== Reflect.get(self, "parent")) return;
  const message = event.data?.init;
  if (message === undefined || host.connected || !event.ports[0]) {
    console.warn("sandpit worker: ignored a message that is not the first init");
    return;
  }
  if (message.config?.make_snapshot) {
    // This worker only makes the snapshot: it listens to nothing from the host.
    host.connect(event.ports[0], null);
    loop.job(() => makeSnapshot(fetches, host));
    return;
  }
  host.connect(event.ports[0], (data) => loop.onHostMessage(data));
  loop.job(() => loop.init(message.config));
};

// After a crash Pyodide rethrows; the host already knows, so the error must
// not also surface on the page as an uncaught one.
for (const type of ["error", "unhandledrejection"]) {
  self.addEventListener(type, (event) => {
    const error = /** @type {ErrorEvent} */ (event).error ?? /** @type {PromiseRejectionEvent} */ (event).reason;
    if (loop.uncaught(error)) event.preventDefault();
  });
}

// The browser reports what the CSP refused; the run's result lists it.
self.addEventListener("securitypolicyviolation", (event) => loop.refused(/** @type {SecurityPolicyViolationEvent} */ (event)));

// Code that closes the worker (`js.close()`) would otherwise leave the host
// waiting for a run that can never finish.
const realClose = self.close.bind(self);
self.close = () => {
  loop.reportCrash("the worker was closed by the code");
  realClose();
};
