// @ts-check
// The MCP App view each tool shows: one HTML document with its script
// (view/view.js bundled: ext-apps' App, the MCP SDK client that drives
// Sandpit's widget) inlined, so the only thing it loads is the Sandpit
// bundle it runs code in.

/**
 * The view's HTML for `tool`, running code in the bundle at `bundleUrl`;
 * `script` is the view's bundled script (lib/view-script.mjs).
 *
 * @param {string} tool
 * @param {string} bundleUrl
 * @param {string} script
 */
export function viewHtml(tool, bundleUrl, script) {
  // `<` escaped so neither the config nor the script can end their element early.
  const config = JSON.stringify({ tool, bundle: bundleUrl }).replaceAll("<", "\\u003c");
  const code = script.replaceAll("</script", "<\\/script");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandpit</title>
<style>
  :root { color-scheme: light dark; font: 13px/1.4 system-ui, sans-serif; }
  body { margin: 0; padding: 8px; }
  pre { margin: 4px 0; padding: 6px 8px; border-radius: 4px; white-space: pre-wrap; word-break: break-word;
        font: 12px/1.4 ui-monospace, monospace; background: color-mix(in srgb, currentColor 7%, transparent); }
  .status { opacity: 0.75; }
  .error { color: #c62828; }
  img { max-width: 100%; display: block; margin: 4px 0; }
  iframe.sandpit { display: none; }
</style>
</head>
<body>
<div class="status" data-testid="view-status">Starting Sandpit…</div>
<pre data-testid="view-code" hidden></pre>
<pre data-testid="view-output" hidden></pre>
<div data-testid="view-figures"></div>
<pre class="error" data-testid="view-error" hidden></pre>
<script type="application/json" id="sandpit-view">${config}</script>
<script type="module">${code}</script>
</body>
</html>`;
}

/**
 * What the view needs the host's CSP to allow, and nothing else: the Sandpit
 * bundle's origin, where its widget (a frame) and the worker's files come from.
 *
 * @param {string} bundleUrl
 */
export function viewCsp(bundleUrl) {
  const origin = new URL(bundleUrl).origin;
  return { resourceDomains: [origin], frameDomains: [origin], connectDomains: [] };
}
