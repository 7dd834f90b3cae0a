// @ts-check
// The agent path's page for `make bench`: Sandpit as a model uses it, through
// the embedding client (sandpit-client.js) and a headless widget, no UI.
//
// It is served from another origin than the app, as a chat page would be,
// and imports the client from the app's origin, given as `?app=URL` (the
// app's server starts after this page's, since its config must list this
// origin). `window.client` is what the harness reads and drives:
//   client.sandpit   the connected Sandpit (null until the widget answered)
//   client.error     why connecting failed, if it did
const client = { sandpit: null, error: null };
window.client = client;

try {
  const app = new URL(location.href).searchParams.get("app");
  if (!app) throw new Error("no ?app=URL: which Sandpit to drive");
  const { Sandpit } = await import(new URL("sandpit-client.js", app).href);
  client.sandpit = await Sandpit.create({ headless: true, timeoutMs: 60_000 });
} catch (error) {
  client.error = String(error?.message ?? error);
}
