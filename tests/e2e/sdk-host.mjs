// @ts-check
// A chat UI's page for the browser tests: the SDK bundle (sdk-bundle.mjs)
// on a page of its own origin that embeds the widget.
import { sdkBundle } from "./sdk-bundle.mjs";

/** The host page: it loads the bundle as `/sdk.js`, which leaves `window.mcp`. */
export const HOST_PAGE = `<!doctype html><meta charset="utf-8"><title>host</title><body><script type="module" src="/sdk.js"></script></body>`;

/** The files a demo server (scripts/serve.mjs's `serveDemo`) serves for the host page. */
export async function hostFiles() {
  return {
    "/host.html": { type: "text/html", body: HOST_PAGE },
    "/sdk.js": { type: "text/javascript", body: await sdkBundle() },
  };
}

/**
 * Connects the host page `page` (once `window.mcp` is there) to the widget
 * at `widgetUrl` in a new iframe, as a chat UI does: the SDK client, named
 * `name`, is left as `window.client`. Resolves to "connected", or to why
 * the widget refused.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} widgetUrl
 * @param {string} name
 */
export function connectClient(page, widgetUrl, name) {
  return page.evaluate(
    async ({ widgetUrl, name }) => {
      const { Client, IframeParentTransport } = window.mcp;
      const iframe = document.createElement("iframe");
      iframe.src = widgetUrl;
      document.body.append(iframe);
      await new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));
      const transport = new IframeParentTransport({ iframe, targetOrigin: new URL(widgetUrl).origin });
      window.client = new Client({ name, version: "1.0.0" });
      return window.client.connect(transport).then(
        () => "connected",
        (/** @type {Error} */ error) => error.message,
      );
    },
    { widgetUrl, name },
  );
}
