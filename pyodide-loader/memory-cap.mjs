// @ts-check
// The session's memory limit, enforced on the interpreter's wasm memory.

/**
 * @import { MemoryUse } from "../www/generated/protocol.js"
 */

/** WebAssembly memory grows in pages of 64 KiB. */
const WASM_PAGE = 65536;

/**
 * Caps how far the interpreter's memory grows: Emscripten grows it through
 * `WebAssembly.Memory.prototype.grow` when malloc runs out, and when that
 * throws, malloc fails and Python raises `MemoryError` where the code
 * allocated. The wasm memory's own maximum is fixed when Pyodide
 * instantiates it (4 GiB), so the cap is this check instead, set per run.
 */
export class MemoryCap {
  /**
   * The interpreter's memory (Pyodide's wasm heap, where every Python object
   * lives), once Python has started.
   *
   * @type {WebAssembly.Memory | null}
   */
  #heap = null;
  /** How large the heap may grow during the current run, in bytes (the host sends it with each run). */
  #limit = Infinity;
  /** Whether the current run asked the heap to grow past the limit. */
  #reached = false;

  /**
   * Puts the check in `grow`, for `memory` only: other memories (code may
   * make its own) are left alone, the limit is the interpreter's. It is
   * defined once, neither writable nor configurable, so code cannot remove
   * it; the original `grow` stays in this closure.
   *
   * @param {WebAssembly.Memory} memory
   */
  install(memory) {
    this.#heap = memory;
    const grow = WebAssembly.Memory.prototype.grow;
    const cap = this;
    Object.defineProperty(WebAssembly.Memory.prototype, "grow", {
      value: /** @this {WebAssembly.Memory} @param {number} pages */ function (pages) {
        if (this === cap.#heap && this.buffer.byteLength + pages * WASM_PAGE > cap.#limit) {
          cap.#reached = true;
          throw new RangeError("the session's memory limit");
        }
        return grow.call(this, pages);
      },
      writable: false,
      configurable: false,
    });
  }

  /**
   * A run begins: its limit, when it brings one (else the last one stays).
   *
   * @param {number | null | undefined} limitBytes
   */
  startRun(limitBytes) {
    if (limitBytes != null) this.#limit = limitBytes;
    this.#reached = false;
  }

  /**
   * The interpreter's memory as the current run leaves it, or null before Python has started.
   *
   * @returns {MemoryUse | null}
   */
  use() {
    if (this.#heap === null) return null;
    const limit = Number.isFinite(this.#limit) ? this.#limit : this.#heap.buffer.byteLength;
    return { peak_bytes: this.#heap.buffer.byteLength, limit_bytes: limit, limit_reached: this.#reached };
  }
}
