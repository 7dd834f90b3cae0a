// @ts-check
// Figure 11: the Ask loop's own overhead. A model's answer with a tool call
// arrives whole; Sandpit runs the call and sends the model its next request.
// What counts is the time from the answer's end to the request leaving, less
// the time the call itself ran. The page marks those moments on its
// performance timeline (src/surfaces/ask.rs: `sandpit-ask:calls`,
// `:tool-start`, `:tool-end`, `:request`); the model is the browser tests'
// stub server (a test double for a model's API, an outside service we
// cannot run here), so its own speed is not in the figure.
import { READY_TIMEOUT_MS } from "../tests/e2e/harness/timeouts.mjs";
import { startModelStub } from "../tests/e2e/model-stub.mjs";
import { newContext } from "./browser.mjs";

/** Steps per question: each is one sample. */
const STEPS_PER_ASK = 5;

/** Settings the page reads from localStorage (src/store/model_settings.rs). */
function useStub(endpoint) {
  localStorage.setItem("sandpit-model-provider", "openai");
  localStorage.setItem("sandpit-model-endpoint", endpoint);
  localStorage.setItem("sandpit-model-name", "bench-model");
  localStorage.setItem("sandpit-model-steps", "50");
}

/**
 * The overhead of each step of the last question, from the page's marks:
 * request time less the answer's arrival, less each call's run.
 */
function overheads() {
  const marks = performance.getEntriesByType("mark").filter((m) => m.name.startsWith("sandpit-ask:"));
  const samples = [];
  let arrived = null;
  let running = 0;
  let started = null;
  for (const { name, startTime } of marks) {
    if (name === "sandpit-ask:calls") [arrived, running] = [startTime, 0];
    else if (name === "sandpit-ask:tool-start") started = startTime;
    else if (name === "sandpit-ask:tool-end" && started !== null) running += startTime - started;
    else if (name === "sandpit-ask:request" && arrived !== null) {
      samples.push(startTime - arrived - running);
      arrived = null;
    }
  }
  return samples;
}

/**
 * Asks `asks` questions of `STEPS_PER_ASK` steps each, on a fresh page of
 * the app at `url`; resolves to the overhead of every step (ms).
 */
export async function measureAskOverhead(browser, url, asks, log) {
  const stub = await startModelStub();
  const context = await newContext(browser);
  try {
    await context.addInitScript(useStub, `${stub.url}/openai/v1`);
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('[data-testid="runtime-state"][data-state="ready"]').waitFor({ timeout: READY_TIMEOUT_MS });
    const samples = [];
    for (let ask = 1; ask <= asks; ask++) {
      for (let step = 0; step < STEPS_PER_ASK; step++) {
        const args = JSON.stringify({ code: `x = ${step}\nx * 2`, tests: `assert x * 2 == ${2 * step}` });
        stub.script({ calls: [{ id: `call_${step}`, name: "run_python", args }] });
      }
      stub.script({ text: ["Done."] });
      const input = page.getByTestId("ask-input");
      await input.fill(`Question ${ask}`);
      await input.press("Enter");
      await page.locator('[data-testid="ask-verdict"]').nth(ask - 1).waitFor({ timeout: READY_TIMEOUT_MS });
      const measured = await page.evaluate(overheads);
      if (measured.length !== STEPS_PER_ASK) throw new Error(`expected ${STEPS_PER_ASK} steps, the page marked ${measured.length}`);
      samples.push(...measured);
      log(`ask loop ${ask}/${asks}: overhead per step ${measured.map((ms) => ms.toFixed(2)).join(", ")} ms`);
    }
    return samples;
  } finally {
    await context.close();
    await stub.close();
  }
}
