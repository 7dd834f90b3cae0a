// @ts-check
// Download progress, counted in bytes as responses arrive.

/** Minimum time between two progress reports, so a fast download does not flood the host. */
export const PROGRESS_INTERVAL_MS = 50;

/**
 * Counts the bytes of every response fetched while `body` runs, by wrapping
 * `fetch` (Pyodide calls the global at request time), and reports
 * `(loaded, seen)` at most every `interval` ms and once at each end;
 * `seen` is the sum of the Content-Length of the responses so far.
 *
 * @template T
 * @param {(loaded: number, seen: number) => void} report
 * @param {() => Promise<T>} body
 * @param {number} [interval]
 */
export async function countingDownloads(report, body, interval = PROGRESS_INTERVAL_MS) {
  const realFetch = globalThis.fetch;
  let loaded = 0;
  let seen = 0;
  let lastSent = 0;
  /** @param {boolean} force */
  const tick = (force) => {
    const now = performance.now();
    if (!force && now - lastSent < interval) return;
    lastSent = now;
    report(loaded, seen);
  };
  globalThis.fetch = async (input, init) => {
    // A failed request says which file it was for: the browser's error does not.
    const response = await realFetch(input, init).catch((/** @type {Error} */ error) => {
      const url = input instanceof Request ? input.url : String(input);
      const offline = globalThis.navigator?.onLine === false ? " (the browser is offline)" : "";
      throw new TypeError(`could not fetch ${url}: ${error?.message ?? error}${offline}`);
    });
    if (!response.body) return response;
    seen += Number(response.headers.get("content-length")) || 0;
    const counted = response.body.pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          loaded += chunk.byteLength;
          tick(false);
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  tick(true);
  try {
    return await body();
  } finally {
    globalThis.fetch = realFetch;
    tick(true);
  }
}
