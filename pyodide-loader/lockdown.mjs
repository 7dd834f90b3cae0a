// @ts-check
// What Python must not have in the worker, removed before any user code
// runs (see SECURITY.md): the origin's storage, every channel to the page
// but the host's port, and every way to start new code with fresh globals.

/**
 * Globals Python must not have, each removed wherever it is defined on the
 * prototype chain so no walk up the chain finds it again:
 * the origin's storage (the app's IndexedDB, Cache Storage, OPFS), every
 * channel to the page except our port, and every way to start new code with
 * fresh globals.
 *
 * @type {[() => object, string[]][]}
 */
export const LOCKED_DOWN = [
  [() => self, ["indexedDB", "caches", "postMessage", "onmessage", "onmessageerror"]],
  [() => self, ["BroadcastChannel", "Worker", "SharedWorker", "importScripts"]],
  [() => self.navigator, ["storage", "serviceWorker", "locks"]],
];

/**
 * Removes every name of `lockedDown`; throws if one survives, so the worker
 * never runs code unlocked.
 *
 * @param {[() => object, string[]][]} [lockedDown]
 */
export function lockDown(lockedDown = LOCKED_DOWN) {
  for (const [target, names] of lockedDown) {
    const root = target();
    for (const name of names) {
      for (let object = root; object; object = Object.getPrototypeOf(object)) {
        if (Object.prototype.hasOwnProperty.call(object, name)) Reflect.deleteProperty(object, name);
      }
      if (root && name in root) throw new Error(`could not remove ${name} from the worker`);
    }
  }
}
