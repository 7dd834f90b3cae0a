// The demo chat page: finds the Python in a "model reply" and runs it in the
// Sandpit widget through the embedding client, streaming output into the chat.
const { app } = await (await fetch("demo-config.json")).json();
const state = document.querySelector("#state");
const send = document.querySelector("#compose button");

let sandpit;
try {
  const { Sandpit } = await import(new URL("sandpit-client.js", app).href);
  sandpit = await Sandpit.create({ container: document.querySelector("#widget"), timeoutMs: 60_000 });
  state.textContent = `Connected to ${sandpit.server.serverInfo.name} ${sandpit.server.serverInfo.version}`;
  send.disabled = false;
} catch (error) {
  state.textContent = `The widget could not start: ${error.message}`;
}

/** The code blocks of a reply, or the whole reply when it has none. */
function codeOf(text) {
  const blocks = [...text.matchAll(/```(?:python|py)?\n([\s\S]*?)```/g)].map((match) => match[1]);
  return blocks.length > 0 ? blocks : [text];
}

function bubble(className, text) {
  const item = document.createElement("li");
  item.className = className;
  item.textContent = text;
  document.querySelector("#messages").append(item);
  return item;
}

document.querySelector("#compose").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = document.querySelector("#message").value;
  bubble("model", text);
  for (const code of codeOf(text)) {
    const output = bubble("tool", "");
    output.dataset.testid = "tool-output";
    output.dataset.state = "running";
    const result = await sandpit
      .run(code, { onStdout: (chunk) => (output.textContent += chunk), onStderr: (chunk) => (output.textContent += chunk) })
      .catch((error) => ({ status: "failed", error: { message: error.message } }));
    const value = result.value ? `→ ${result.value.repr}` : "";
    const error = result.error ? `${result.error.type ?? "Error"}: ${result.error.message}` : "";
    output.textContent += [value, error].filter(Boolean).join("\n");
    output.dataset.state = result.status;
  }
});
