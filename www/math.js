// @ts-check
// Math in results: `text/latex` displays rendered by KaTeX, which the build
// copies into the bundle (scripts/vendor-katex.mjs) and the page loads the
// first time a run shows math. Bound from Rust in src/ui/rich.rs.

/** Where the build puts KaTeX, relative to the app's root. */
const KATEX_DIR = "vendor/katex/";

/** @type {Promise<{ render(tex: string, element: Element, options: object): void }> | null} */
let katex = null;

/** KaTeX's module and style sheet, loaded once. */
function loadKatex() {
  katex ??= (async () => {
    const base = new URL(KATEX_DIR, document.baseURI);
    const sheet = document.createElement("link");
    sheet.rel = "stylesheet";
    sheet.href = new URL("katex.css", base).href;
    document.head.append(sheet);
    const module = await import(new URL("katex.mjs", base).href);
    return module.default;
  })();
  katex.catch(() => (katex = null));
  return katex;
}

/**
 * The TeX inside `$...$`, `$$...$$`, `\[...\]` or `\(...\)`, as IPython's
 * `_repr_latex_` writes it (sympy gives `$\displaystyle ...$`).
 *
 * @param {string} latex
 */
export function texOf(latex) {
  const text = latex.trim();
  for (const [open, close] of [["$$", "$$"], ["\\[", "\\]"], ["\\(", "\\)"], ["$", "$"]]) {
    if (text.length >= open.length + close.length && text.startsWith(open) && text.endsWith(close)) {
      return text.slice(open.length, text.length - close.length);
    }
  }
  return text;
}

/**
 * Renders `latex` into `element`. Resolves to null when it did, or to why
 * not (KaTeX refused the input or could not load): the element then keeps
 * the plain text it was given.
 *
 * @param {HTMLElement} element
 * @param {string} latex
 * @returns {Promise<string | null>}
 */
export async function renderMath(element, latex) {
  try {
    const { render } = await loadKatex();
    const target = document.createElement("div");
    render(texOf(latex), target, { displayMode: true, throwOnError: true, output: "htmlAndMathml" });
    element.replaceChildren(...target.childNodes);
    return null;
  } catch (error) {
    return String(/** @type {Error} */ (error)?.message ?? error);
  }
}
