// @ts-check
// The demo chat page: finds the Python in a "model reply" and runs it in the
// Sandpit widget through the embedding client, streaming output into the chat.

/**
 * The page's element that `selector` finds: the page has each one.
 *
 * @param {string} selector
 */
const element = (selector) => /** @type {HTMLElement} */ (document.querySelector(selector));

const { app } = await (await fetch("demo-config.json")).json();
const state = element("#state");
const send = /** @type {HTMLButtonElement} */ (element('#compose button[type="submit"]'));
const stop = /** @type {HTMLButtonElement} */ (element("#stop"));
/**
 * Stops the reply's runs in progress; none while nothing runs.
 *
 * @type {AbortController | null}
 */
let running = null;
stop.addEventListener("click", () => running?.abort("stopped from the chat page"));

/** @type {import("../sandpit-client.js").Sandpit} */
let sandpit;
try {
  /** @type {typeof import("../sandpit-client.js")} */
  const { Sandpit } = await import(new URL("sandpit-client.js", app).href);
  sandpit = await Sandpit.create({ container: element("#widget"), timeoutMs: 60_000 });
  state.textContent = `Connected to ${sandpit.server.serverInfo.name} ${sandpit.server.serverInfo.version}`;
  send.disabled = false;
} catch (error) {
  state.textContent = `The widget could not start: ${/** @type {Error} */ (error).message}`;
}

/**
 * The code blocks of a reply, or the whole reply when it has none.
 *
 * @param {string} text
 */
function codeOf(text) {
  const blocks = [...text.matchAll(/```(?:python|py)?\n([\s\S]*?)```/g)].map((match) => match[1]);
  return blocks.length > 0 ? blocks : [text];
}

/**
 * @param {string} className
 * @param {string} text
 */
function bubble(className, text) {
  const item = document.createElement("li");
  item.className = className;
  item.textContent = text;
  element("#messages").append(item);
  return item;
}

element("#compose").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = /** @type {HTMLTextAreaElement} */ (element("#message")).value;
  bubble("model", text);
  running = new AbortController();
  const { signal } = running;
  // One reply at a time: Stop ends it.
  send.disabled = true;
  stop.disabled = false;
  for (const code of codeOf(text)) {
    if (signal.aborted) break;
    const output = bubble("tool", "");
    output.dataset.testid = "tool-output";
    output.dataset.state = "running";
    /** @type {{ status: string, value?: { repr: unknown } | null, error?: { type?: string, message: string } | null }} */
    const result = await sandpit
      .run(code, {
        signal,
        onStdout: (chunk) => (output.textContent += chunk),
        onStderr: (chunk) => (output.textContent += chunk),
      })
      .catch((error) => ({ status: "failed", error: { message: error.message } }));
    const value = result.value ? `→ ${result.value.repr}` : "";
    const error = result.error ? `${result.error.type ?? "Error"}: ${result.error.message}` : "";
    output.textContent += [value, error].filter(Boolean).join("\n");
    output.dataset.state = result.status;
  }
  running = null;
  stop.disabled = true;
  send.disabled = false;
});
