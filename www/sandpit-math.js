// @ts-check
// Math with KaTeX, which the build copies into the bundle
// (scripts/vendor-katex.mjs) and which loads the first time something shows
// math: `text/latex` displays, and the formulas between `$` signs in the
// messages of `sandpit.verify`'s failed checks. Bound from Rust in
// src/ui/rich.rs for the page and the widget; the embedding client's
// rendering (sandpit-render.js) loads KaTeX from the widget's deployment.

import { KATEX_DIR } from "./generated/names.js";

/** @typedef {{ render(tex: string, element: Element, options: object): void }} KatexModule */

/** KaTeX's module and style sheet, loaded once, on first use; tried again after a failure. */
export class Katex {
  /** @type {Promise<KatexModule> | null} */
  #loaded = null;
  /** @type {string | URL | null} */
  #base;

  /**
   * @param {string | URL | null} base a page of the deployment KaTeX comes
   *   from (null: the document's own)
   */
  constructor(base = null) {
    this.#base = base;
  }

  /** @returns {Promise<KatexModule>} */
  load() {
    this.#loaded ??= (async () => {
      const base = new URL(KATEX_DIR, this.#base ?? document.baseURI);
      const sheet = document.createElement("link");
      sheet.rel = "stylesheet";
      sheet.href = new URL("katex.css", base).href;
      document.head.append(sheet);
      const module = await import(new URL("katex.mjs", base).href);
      return module.default;
    })();
    this.#loaded.catch(() => (this.#loaded = null));
    return this.#loaded;
  }
}

/** The page's own KaTeX, from the app's deployment. */
const PAGE_KATEX = new Katex();

/**
 * The TeX inside `$...$`, `$$...$$`, `\[...\]` or `\(...\)`, as IPython's
 * `_repr_latex_` writes it (sympy gives `$\displaystyle ...$`).
 *
 * @param {string} latex
 */
function texOf(latex) {
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
    const { render } = await PAGE_KATEX.load();
    const target = document.createElement("div");
    render(texOf(latex), target, { displayMode: true, throwOnError: true, output: "htmlAndMathml" });
    element.replaceChildren(...target.childNodes);
    return null;
  } catch (error) {
    return String(/** @type {Error} */ (error)?.message ?? error);
  }
}

/**
 * `text` cut into plain text and the formulas between single `$` signs:
 * `"$x^2$ and $y$"` gives `[{ tex: "x^2" }, { text: " and " }, { tex: "y" }]`.
 *
 * @param {string} text
 * @returns {({ text: string, tex?: undefined } | { tex: string, text?: undefined })[]}
 */
export function formulaParts(text) {
  return text
    .split(/\$([^$]+)\$/)
    .map((piece, index) => (index % 2 === 1 ? { tex: piece } : { text: piece }))
    .filter((part) => part.tex !== undefined || part.text !== "");
}

/**
 * Shows `text` in `element` with its formulas (see `formulaParts`) rendered
 * inline by `katex` (default: the page's). Resolves to null when it did, or
 * to why not: KaTeX could not load, and `element` keeps what it held. A
 * formula KaTeX refuses stays as its text.
 *
 * @param {HTMLElement} element
 * @param {string} text
 * @param {Katex} [katex]
 * @returns {Promise<string | null>}
 */
export async function renderFormulas(element, text, katex = PAGE_KATEX) {
  const parts = formulaParts(text);
  if (parts.every((part) => part.tex === undefined)) return null;
  try {
    const { render } = await katex.load();
    const doc = element.ownerDocument;
    element.replaceChildren(
      ...parts.map((part) => {
        if (part.tex === undefined) return doc.createTextNode(part.text);
        const formula = doc.createElement("span");
        try {
          render(part.tex, formula, { throwOnError: true, output: "htmlAndMathml" });
        } catch {
          formula.textContent = `$${part.tex}$`;
        }
        return formula;
      }),
    );
    return null;
  } catch (error) {
    return String(/** @type {Error} */ (error)?.message ?? error);
  }
}
