// @ts-check
// The Ask panel's requests to a model's API, from the page's main thread
// (src/surfaces/ask.rs binds this module). The Python worker never sees
// them: its own CSP allows no endpoint, and the key is only ever here.

/** Characters of an error body kept: enough for the API's message. */
const ERROR_BODY_CHARS = 4000;

/**
 * How a request came back: a body to read as it streams, or an error status
 * with its `Retry-After` and the start of its body.
 */
export class Opened {
  /**
   * @param {number} status
   * @param {string | null} retryAfter
   * @param {string} errorBody
   * @param {ReadableStreamDefaultReader<string> | null} reader
   */
  constructor(status, retryAfter, errorBody, reader) {
    this.status = status;
    this.retryAfter = retryAfter;
    this.errorBody = errorBody;
    /** @type {ReadableStreamDefaultReader<string> | null} */
    this.reader = reader;
  }

  /** The next piece of the body's text, or null at its end. */
  async next() {
    if (this.reader === null) return null;
    const { done, value } = await this.reader.read();
    return done ? null : value;
  }
}

/**
 * POSTs `body` as JSON to `url` with `headers` (`[name, value]` pairs),
 * abortable with `signal`. Rejects only when nothing came back (network,
 * CORS, aborted); an error status resolves with its body.
 *
 * @param {string} url
 * @param {[string, string][]} headers
 * @param {unknown} body
 * @param {AbortSignal} signal
 * @returns {Promise<Opened>}
 */
export async function open(url, headers, body, signal) {
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    signal,
    // The key goes in a header we set, never with cookies; the page's own
    // address is nobody's business.
    credentials: "omit",
    referrerPolicy: "no-referrer",
    cache: "no-store",
  });
  if (!response.ok || response.body === null) {
    const text = await response.text().catch(() => "");
    return new Opened(response.status, response.headers.get("retry-after"), text.slice(0, ERROR_BODY_CHARS), null);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  return new Opened(response.status, null, "", reader);
}
