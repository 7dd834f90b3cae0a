// The raw baseline's worker: loads Pyodide from the same files as Sandpit and
// answers `{ id, code }` with `runPython`'s outcome. Nothing else: no runner,
// no output limits, no protocol, no lockdown. It is what Sandpit is compared to.
import { loadPyodide } from "./pyodide/pyodide.mjs";

let stdout = [];
let stderr = [];

// Requests that arrive while Pyodide loads wait on this promise, in order.
const pyodide = loadPyodide({
  indexURL: new URL("./pyodide/", import.meta.url).href,
  stdout: (line) => stdout.push(line),
  stderr: (line) => stderr.push(line),
});
pyodide.then(() => self.postMessage({ type: "ready" }));

self.onmessage = async ({ data: { id, code } }) => {
  const py = await pyodide;
  stdout = [];
  stderr = [];
  try {
    const value = py.runPython(code);
    // A PyProxy must be released; its str() is all the caller gets.
    const text = value === undefined ? null : String(value);
    value?.destroy?.();
    self.postMessage({ id, ok: true, stdout: stdout.join("\n"), stderr: stderr.join("\n"), value: text });
  } catch (error) {
    self.postMessage({ id, ok: false, stdout: stdout.join("\n"), stderr: stderr.join("\n"), error: String(error?.message ?? error) });
  }
};
