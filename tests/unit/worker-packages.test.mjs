// @ts-check
// The Python worker's reading of the packages a run needs
// (pyodide-loader/packages.mjs): which texts the runner's import scanner is
// asked about, what Pyodide's messages say was loaded or failed, and the
// index the runner gets.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { LoadLog, packageIndex, textsToScan } from "../../pyodide-loader/packages.mjs";

/** A run request as the host sends one, to change a field of. */
const REQUEST = /** @type {import("../../www/generated/protocol.js").RunRequest} */ ({
  code: "",
  session: "main",
  limits: { output_bytes: 1, value_bytes: 1, display_bytes: 1, input_bytes: 1, artifact_bytes: 1 },
});

describe("textsToScan", () => {
  test("code and tests that import nothing are not sent to the runner", () => {
    assert.deepEqual(textsToScan({ ...REQUEST, code: "x = 1", tests: "assert x == 1" }), []);
  });

  test("each text that says import is, the code before the tests", () => {
    const request = { ...REQUEST, code: "import numpy\nx = 1", tests: "from sandpit import verify\nassert x" };
    assert.deepEqual(textsToScan(request), [request.code, request.tests]);
    assert.deepEqual(textsToScan({ ...REQUEST, code: "import json" }), ["import json"]);
  });
});

describe("LoadLog", () => {
  test("hears what Pyodide loads, once each, in order", () => {
    const log = new LoadLog();
    log.hear("Loading numpy, pyyaml", false);
    log.hear("Loading numpy", false);
    log.hear("Loaded numpy", false);
    assert.deepEqual(log.names, ["numpy", "pyyaml"]);
    assert.deepEqual(log.failures, {});
  });

  test("a failure is the CSP's when a request was refused, else the network's, with what Pyodide said of it", () => {
    const log = new LoadLog();
    log.hear("Failed to load Regex, tabulate, PyYAML", false);
    log.hear("The following error occurred while loading tabulate:", false);
    log.hear("Failed to load 'https://host.example/pyodide/tabulate-0.9.0-py3-none-any.whl': request failed.", false);
    log.hear("The following error occurred while loading PyYAML:", true);
    log.hear("Failed to fetch", true);
    assert.deepEqual(log.failures, {
      regex: "network",
      tabulate: "Failed to load 'https://host.example/pyodide/tabulate-0.9.0-py3-none-any.whl': request failed.",
      pyyaml: "blocked",
    });
    assert.deepEqual(log.names, [], "an error's text is not a package being loaded");
  });
});

test("packageIndex maps every import name to its package and keeps the bundled list", () => {
  const lock = {
    packages: {
      pyyaml: { name: "PyYAML", imports: ["yaml", "_yaml"] },
      micropip: { name: "micropip" },
    },
  };
  assert.deepEqual(packageIndex(lock, { bundled: ["micropip"] }), {
    imports: { yaml: "PyYAML", _yaml: "PyYAML" },
    bundled: ["micropip"],
  });
});
