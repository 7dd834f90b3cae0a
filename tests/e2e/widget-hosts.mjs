// @ts-check
// What the widget's suites (widget-*.test.mjs) share: demo pages on other
// origins than the app's (one of them cross-origin isolated, one the
// deployment does not list), the app that lets the listed ones embed it,
// and the steps of an embedding page.
import { after, before } from "node:test";

import { serveDemo } from "../../scripts/serve.mjs";
import { startApp } from "./harness.mjs";
import { hostFiles } from "./sdk-host.mjs";

/**
 * The hooks of a widget suite: three demo servers, `host`, `isolatedHost`
 * and `stranger`, and one app whose deployment lists the first two (and
 * `host` on another site). `ready({ host, isolatedHost, stranger, app })`
 * hands them to the suite once all are up. Returns `openHost` and
 * `createWidget`, bound to that app.
 */
export function useWidgetHosts(ready) {
  let host;
  let isolatedHost;
  let stranger;
  let app;

  before(async () => {
    const files = await hostFiles();
    host = await serveDemo({ files });
    isolatedHost = await serveDemo({ files, isolated: true });
    stranger = await serveDemo({ files });
    const origins = [host, isolatedHost].map((server) => new URL(server.url).origin);
    app = await startApp({ embedOrigins: [...origins, new URL(crossSite(host)).origin] });
    for (const server of [host, isolatedHost, stranger]) server.setApp(app.url);
    ready({ host, isolatedHost, stranger, app });
  });

  after(async () => {
    await app?.close();
    await host?.close();
    await isolatedHost?.close();
    await stranger?.close();
  });

  /** A page of `server` (host.html unless `path` says otherwise), with console errors collected. */
  async function openHost(server, path = "host.html") {
    const sandpit = await app.newPage();
    await sandpit.page.goto(new URL(path, server.url).href);
    return sandpit;
  }

  /** Imports the client from the app's origin, as an embedding page does, and creates a widget. */
  function createWidget(page, options = {}) {
    return page.evaluate(
      async ({ appUrl, options }) => {
        const { Sandpit, VERSION } = await import(new URL("sandpit-client.js", appUrl).href);
        window.sandpit = await Sandpit.create({ ...options, timeoutMs: 60_000 });
        return { version: VERSION, server: window.sandpit.server };
      },
      { appUrl: app.url, options },
    );
  }

  return { openHost, createWidget };
}

/**
 * `server`'s address on another site than the app's: the same loopback
 * server under the name `localhost` (sites are told apart by host name).
 */
export function crossSite(server) {
  return server.url.replace("//127.0.0.1:", "//localhost:");
}

/** The widget's frame. */
export function widgetFrame(page) {
  return page.frames().find((frame) => frame.url().includes("/widget.html"));
}
