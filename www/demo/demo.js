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

/** The page's own table, which its functions read: the code never sees it whole. */
const CITIES = {
  Paris: { country: "France", population: 2_102_650, lat: 48.857, lon: 2.352 },
  Lyon: { country: "France", population: 520_774, lat: 45.764, lon: 4.836 },
  Turin: { country: "Italy", population: 841_600, lat: 45.07, lon: 7.687 },
  Geneva: { country: "Switzerland", population: 203_856, lat: 46.204, lon: 6.143 },
};

/**
 * Great-circle distance in km between two of the table's cities.
 *
 * @param {{ lat: number, lon: number }} a
 * @param {{ lat: number, lon: number }} b
 */
function kilometres(a, b) {
  const rad = (/** @type {number} */ deg) => (deg * Math.PI) / 180;
  const h = Math.sin(rad(b.lat - a.lat) / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lon - a.lon) / 2) ** 2;
  return Math.round(2 * 6371 * Math.asin(Math.sqrt(h)));
}

/**
 * A city of the table, or an error the code reads.
 *
 * @param {string} name
 */
function city(name) {
  const found = CITIES[/** @type {keyof typeof CITIES} */ (name)];
  if (!found) throw new Error(`no city called ${name} in this page's table`);
  return found;
}

/** The functions this page offers to the code. */
const FUNCTIONS = [
  {
    name: "lookup",
    description: "A city's country and population, from the page's table.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
    handler: async (/** @type {{ city: string }} */ { city: name }) => {
      const { country, population } = city(name);
      return { country, population };
    },
  },
  {
    name: "distance",
    description: "The great-circle distance in km between two cities of the page's table.",
    parameters: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, required: ["a", "b"], additionalProperties: false },
    handler: async (/** @type {{ a: string, b: string }} */ { a, b }) => kilometres(city(a), city(b)),
  },
];

/** A reply whose Python calls the page's functions in a loop. */
const HOST_EXAMPLE = `Let me ask the page's own table.

\`\`\`python
from sandpit import host

cities = ["Paris", "Lyon", "Turin", "Geneva"]
for name in cities:
    info = await host.lookup(city=name)
    print(f"{name}: {info['country']}, {info['population']:,} people")
nearest = min([(await host.distance(a="Paris", b=other), other) for other in cities[1:]])
f"nearest to Paris: {nearest[1]}, {nearest[0]} km"
\`\`\``;

element("#example-host").addEventListener("click", () => {
  /** @type {HTMLTextAreaElement} */ (element("#message")).value = HOST_EXAMPLE;
});

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

/** The chat with its widget: runs the Python of each reply, one reply at a time. */
class Chat {
  /**
   * Stops the reply's runs in progress; none while nothing runs.
   *
   * @type {AbortController | null}
   */
  #running = null;
  #sandpit;

  /** @param {import("../sandpit-client.js").Sandpit} sandpit */
  constructor(sandpit) {
    this.#sandpit = sandpit;
  }

  /** Stops the reply being run, if any. */
  stop() {
    this.#running?.abort("stopped from the chat page");
  }

  /**
   * Shows a model's reply and runs its code, its output streaming into the chat.
   *
   * @param {string} text
   */
  async reply(text) {
    bubble("model", text);
    this.#running = new AbortController();
    const { signal } = this.#running;
    // One reply at a time: Stop ends it.
    send.disabled = true;
    stop.disabled = false;
    for (const code of codeOf(text)) {
      if (signal.aborted) break;
      const output = bubble("tool", "");
      output.dataset.testid = "tool-output";
      output.dataset.state = "running";
      /** @type {{ status: string, value?: { repr: unknown } | null, error?: { type?: string, message: string } | null }} */
      const result = await this.#sandpit
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
    this.#running = null;
    stop.disabled = true;
    send.disabled = false;
  }
}

try {
  /** @type {typeof import("../sandpit-client.js")} */
  const { Sandpit } = await import(new URL("sandpit-client.js", app).href);
  const sandpit = await Sandpit.create({ container: element("#widget"), timeoutMs: 60_000, functions: FUNCTIONS });
  const chat = new Chat(sandpit);
  // Stop is disabled until a reply runs, and Send until the widget answers.
  stop.addEventListener("click", () => chat.stop());
  element("#compose").addEventListener("submit", (event) => {
    event.preventDefault();
    chat.reply(/** @type {HTMLTextAreaElement} */ (element("#message")).value);
  });
  state.textContent = `Connected to ${sandpit.server.serverInfo.name} ${sandpit.server.serverInfo.version}`;
  send.disabled = false;
} catch (error) {
  state.textContent = `The widget could not start: ${/** @type {Error} */ (error).message}`;
}
