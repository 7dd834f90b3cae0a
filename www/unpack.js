// @ts-check
// The bundle ships its largest files of its own gzipped (`<name>.gz`, see
// scripts/gzip-files.mjs), since a static host may send them uncompressed:
// the page's wasm and the worker's Python. The page's loader has this
// function written into it (its source, by scripts/gzip-files.mjs); the
// worker imports it.

/**
 * The file `response` brings, gzipped by the build, as a response of
 * `type` whose body is decompressed as it arrives. A host that sent it
 * with `Content-Encoding: gzip` had the browser decompress it already, which
 * a frame with an opaque origin cannot read from the headers: its first
 * bytes then are not gzip's, and it passes through as it is.
 *
 * @param {Response} response
 * @param {string} type
 * @returns {Promise<Response>}
 */
export async function unpacked(response, type) {
  if (!response.ok || response.body === null) throw new Error(`${response.url} could not be fetched (HTTP ${response.status})`);
  const [peek, body] = response.body.tee();
  const reader = peek.getReader();
  const { value } = await reader.read();
  void reader.cancel();
  const gzipped = value !== undefined && value[0] === 0x1f && value[1] === 0x8b;
  const content = gzipped ? body.pipeThrough(new DecompressionStream("gzip")) : body;
  return new Response(content, { headers: { "Content-Type": type } });
}
