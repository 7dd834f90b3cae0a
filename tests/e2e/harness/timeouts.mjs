// @ts-check
// How long the browser tests wait for Python; also used by bench/.

/** How long Python may take to load in a test (cold wasm compile on a busy 2-core machine). */
export const READY_TIMEOUT_MS = 60_000;
/** How long one run may take in a test. */
export const RUN_TIMEOUT_MS = 60_000;
