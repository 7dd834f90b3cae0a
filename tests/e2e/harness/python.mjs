// @ts-check
// Python that several browser tests run: a probe of what the worker can
// reach, and a figure that needs no download.

/**
 * Python that walks the prototype chains of the worker's global and its
 * navigator and evaluates to the sorted list of `names` found on any of them:
 * a name removed from one object but left on a prototype is still reachable.
 */
export function reachableNamesCode(names) {
  const wanted = names.map((name) => `'${name}'`).join(", ");
  return [
    "import js",
    "from pyodide.ffi import jsnull",
    "found = []",
    "for root in (js.self, js.navigator):",
    "    o = root",
    "    while o is not None and o is not jsnull:",
    `        found += sorted(set(js.Object.getOwnPropertyNames(o)) & {${wanted}})`,
    "        o = js.Object.getPrototypeOf(o)",
    "found",
  ].join("\n");
}

/**
 * A figure as Python libraries return them: a class whose `_repr_png_`
 * gives a 4x4 red PNG (matplotlib itself downloads from the CDN, which
 * tests cannot reach). Defines `RedSquare`; show one to get the figure.
 */
export const RED_SQUARE_CLASS = [
  "import struct, zlib",
  "def chunk(kind, data):",
  "    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))",
  "class RedSquare:",
  "    def _repr_png_(self):",
  "        rows = b''.join(b'\\x00' + b'\\xff\\x00\\x00' * 4 for _ in range(4))",
  "        header = struct.pack('>IIBBBBB', 4, 4, 8, 2, 0, 0, 0)",
  "        return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')",
].join("\n");
