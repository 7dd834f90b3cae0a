// @ts-check
// The embedding client's rendering of a run into an element of the
// embedding page (`run`'s `target` in sandpit-client.js): code, output as it
// is written, then what the run came to, each display output in the form
// the widget shows it (DISPLAY_PREFERENCE: the same order as the page's
// src/ui/rich.rs), the error, then the fix Sandpit proposes, the tests and
// the warnings, drawn as the page draws them (sandpit-findings.js), the
// formulas of `sandpit.verify`'s failures rendered by KaTeX when it can be
// loaded from the widget's deployment, else left as text. The build writes
// this module and those it imports into sandpit-client.js: the client
// stays one module.
import {
  DISPLAY_PREFERENCE,
  HTML_FRAME_HEIGHT_KEY,
  HTML_FRAME_MAX_HEIGHT,
  HTML_FRAME_MIN_HEIGHT,
  HTML_OUTPUT_CSP,
  HTML_OUTPUT_SIZER,
  MIME_HTML,
  MIME_JSON,
  MIME_PNG,
  MIME_SVG,
  MIME_TEXT,
} from "./generated/names.js";
import { element, renderFindings } from "./sandpit-findings.js";

/**
 * @import { ToolCalls } from "./generated/protocol.js"
 */

/** @typedef {ToolCalls["run_python"]["result"]} RunResult */
/** @typedef {RunResult["displays"][number]} MimeBundle */
/** @typedef {import("./sandpit-math.js").Katex} Katex */

/**
 * The part of `bundle` that is shown: the first of DISPLAY_PREFERENCE it has.
 *
 * @param {MimeBundle} bundle
 * @returns {keyof MimeBundle}
 */
export function shownPart(bundle) {
  return DISPLAY_PREFERENCE.find((mime) => bundle[mime] !== undefined && bundle[mime] !== null) ?? MIME_TEXT;
}

/**
 * An HTML output frame's height for a document `reported` pixels tall: its
 * content, within the widget's bounds; null for a report that is no number.
 *
 * @param {unknown} reported
 */
export function frameHeight(reported) {
  const height = Number(reported);
  if (!Number.isFinite(height)) return null;
  return Math.min(Math.max(Math.ceil(height), HTML_FRAME_MIN_HEIGHT), HTML_FRAME_MAX_HEIGHT);
}

/**
 * HTML output frames sized to the height each reports. A report counts only
 * from a frame's own window, and only its number is read; a frame taken off
 * the page is forgotten.
 */
export class FrameSizer {
  /** @type {Set<HTMLIFrameElement>} */
  #frames = new Set();
  #listening = false;

  /** @param {MessageEvent} event */
  #onMessage = (event) => {
    for (const frame of this.#frames) {
      if (!frame.isConnected) this.#frames.delete(frame);
      if (event.source === null || frame.contentWindow !== event.source) continue;
      const height = frameHeight(event.data?.[HTML_FRAME_HEIGHT_KEY]);
      if (height !== null) frame.style.height = `${height}px`;
      return;
    }
  };

  /** @param {HTMLIFrameElement} frame */
  follow(frame) {
    if (!this.#listening) {
      this.#listening = true;
      frame.ownerDocument.defaultView?.addEventListener("message", this.#onMessage);
    }
    this.#frames.add(frame);
  }
}

/**
 * One display output in its richest safe form, as the widget shows it: HTML
 * only inside a frame sandboxed to `allow-scripts` under the widget's own
 * policy (no same origin: it reaches neither this page nor the network),
 * images as images, the rest as text.
 *
 * @param {Document} doc
 * @param {MimeBundle} bundle
 * @param {FrameSizer} sizer
 * @returns {HTMLElement}
 */
export function renderDisplay(doc, bundle, sizer) {
  const shown = shownPart(bundle);
  if (shown === MIME_HTML) {
    const frame = doc.createElement("iframe");
    frame.className = "sandpit-display sandpit-html";
    frame.dataset.sandpitPart = "display";
    frame.title = "HTML output";
    // No allow-same-origin: an opaque origin, which reaches nothing of this page.
    frame.setAttribute("sandbox", "allow-scripts");
    frame.style.border = "0";
    frame.style.width = "100%";
    frame.srcdoc = HTML_OUTPUT_CSP + HTML_OUTPUT_SIZER + bundle[MIME_HTML];
    sizer.follow(frame);
    return frame;
  }
  if (shown === MIME_SVG || shown === MIME_PNG) {
    const image = doc.createElement("img");
    image.className = "sandpit-display sandpit-image";
    image.dataset.sandpitPart = "display";
    image.alt = bundle[MIME_TEXT];
    // As an <img>, SVG runs no scripts.
    image.src =
      shown === MIME_PNG
        ? `data:${MIME_PNG};base64,${bundle[MIME_PNG]}`
        : `data:${MIME_SVG};charset=utf-8,${encodeURIComponent(bundle[MIME_SVG] ?? "")}`;
    return image;
  }
  const text = doc.createElement("pre");
  text.className = "sandpit-display sandpit-text";
  text.dataset.sandpitPart = "display";
  text.textContent = shown === MIME_JSON ? JSON.stringify(bundle[MIME_JSON], null, 2) : String(bundle[shown]);
  return text;
}

/**
 * A run shown in `target`: `code` (or nothing), then output as it is
 * written, then what the run came to. Text goes in as text; formulas come
 * from `katex`.
 *
 * @param {Element} target
 * @param {string | null} code
 * @param {FrameSizer} sizer
 * @param {Katex} katex
 */
export function renderInto(target, code, sizer, katex) {
  const doc = target.ownerDocument;
  const box = doc.createElement("div");
  box.className = "sandpit-run";
  box.dataset.sandpitStatus = "running";
  box.setAttribute("aria-busy", "true");
  /**
   * @param {string} tag
   * @param {string} part
   * @param {string} [text]
   */
  const add = (tag, part, text) => {
    const made = element(doc, tag, part, text);
    box.append(made);
    return made;
  };
  /**
   * @param {string} stream
   * @param {string} text
   */
  const chunk = (stream, text) => {
    const span = doc.createElement("span");
    span.className = `sandpit-${stream}`;
    span.textContent = text;
    return span;
  };
  if (code !== null) add("pre", "code", code);
  const output = add("pre", "output");
  output.hidden = true;
  // Output grows as it is written: read out as it comes.
  output.setAttribute("aria-live", "polite");
  target.append(box);
  const settle = (/** @type {string} */ status) => {
    box.dataset.sandpitStatus = status;
    box.removeAttribute("aria-busy");
  };
  return {
    /**
     * @param {"stdout" | "stderr"} stream
     * @param {string} text
     */
    write(stream, text) {
      output.append(chunk(stream, text));
      output.hidden = false;
    },
    /** @param {RunResult} run */
    finish(run) {
      // The result holds all the output, in order: what was streamed is replaced by it.
      output.replaceChildren(...(run.output ?? []).map(({ stream, text }) => chunk(stream, text)));
      output.hidden = output.childElementCount === 0;
      for (const bundle of run.displays ?? []) box.append(renderDisplay(doc, bundle, sizer));
      if (run.value) add("pre", "value", `→ ${run.value.repr}`);
      if (run.error) add("pre", "error", run.error.traceback || `${run.error.type}: ${run.error.message}`);
      renderFindings(box, { fix: run.error?.fix, verification: run.verification, warnings: run.warnings }, undefined, katex);
      settle(run.status);
    },
    /** @param {string} message */
    fail(message) {
      add("pre", "error", message);
      settle("failed");
    },
  };
}
