// @ts-check
// The agent path's page for `make bench`: Sandpit as a model uses it, through
// the embedding client (sandpit-client.js) and a headless widget, no UI.
//
// It is served from another origin than the app, as a chat page would be,
// and imports the client from the app's origin, given as `?app=URL` (the
// app's server starts after this page's, since its config must list this
// origin). `window.client` is what the harness reads and drives:
//   client.sandpit        the connected Sandpit (null until the widget answered)
//   client.error          why connecting failed, if it did
//   client.firstResultAt  when the `?run=` code's result came back (page clock)
//
// `?run=CODE` runs CODE as soon as the widget answers, as an agent that opens
// the page to run something straight away would (figure 15).
const client = { sandpit: null, error: null, firstResultAt: null };
window.client = client;

try {
  const query = new URL(location.href).searchParams;
  const app = query.get("app");
  if (!app) throw new Error("no ?app=URL: which Sandpit to drive");
  const { Sandpit } = await import(new URL("sandpit-client.js", app).href);
  // `echo` answers at once: the host call rows (host-calls.mjs) time the round trip alone.
  const echo = { name: "echo", parameters: { type: "object" }, handler: async (/** @type {{ n: number }} */ { n }) => n };
  client.sandpit = await Sandpit.create({ headless: true, timeoutMs: 60_000, functions: [echo] });
  const first = query.get("run");
  if (first !== null) {
    const result = await client.sandpit.run(first);
    if (result.status !== "ok") throw new Error(`${first} ended as ${result.status}`);
    client.firstResultAt = performance.now();
  }
} catch (error) {
  client.error = String(error?.message ?? error);
}
