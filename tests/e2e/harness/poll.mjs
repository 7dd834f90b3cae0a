// @ts-check
// Waiting on a page for something only an async function can tell.
// Playwright's waitForFunction takes the Promise such a function returns
// as a truthy answer at once, so it cannot be used for these.

/**
 * Calls `check(arg)` in `target` (a page or a frame) every `polling` ms
 * until it resolves to something other than null, undefined or false, and
 * returns that; fails after `timeout` ms with `what` in the message.
 *
 * @template A, T
 * @param {{ evaluate: (fn: (arg: A) => Promise<T>, arg: A) => Promise<T> }} target
 * @param {(arg: A) => Promise<T>} check
 * @param {A} arg
 * @param {{ what: string, timeout: number, polling?: number }} options
 * @returns {Promise<NonNullable<T>>}
 */
export async function pollUntil(target, check, arg, { what, timeout, polling = 200 }) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const answer = await target.evaluate(check, arg);
    if (answer !== null && answer !== undefined && answer !== false) return /** @type {NonNullable<T>} */ (answer);
    if (Date.now() > deadline) throw new Error(`waited ${timeout} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, polling));
  }
}
