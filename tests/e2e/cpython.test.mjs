// @ts-check
// Python behaves as CPython does, in every session: what CPython keeps once
// per interpreter stays each session's own, logging and sys.stdout work as
// they do there, the code's namespace is __main__'s, and odd exceptions and
// values are reported as CPython would report them, never as a crash.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { useSandpit } from "./harness.mjs";

describe("Python as CPython runs it", () => {
  /** @type {import("./harness/page.mjs").SandpitPage} */
  let sandpit;

  useSandpit(async (page) => {
    sandpit = page;
    // Room for runs on a busy machine; the loop that must time out sets its own.
    await sandpit.setTimeoutSeconds(20);
  });

  /** Runs `code` and asserts it finished ok; its structured result. */
  async function ok(code) {
    const result = await sandpit.run(code);
    assert.equal(result.phase, "ok", `${code}: ${JSON.stringify(result.json.error)}`);
    return result.json;
  }

  test("the recursion limit and warnings filters are each session's own", async () => {
    await sandpit.newSession("limits-a");
    const fresh = (await ok("import sys\nsys.getrecursionlimit()")).value.json;
    await ok("import sys, warnings\nsys.setrecursionlimit(60)\nwarnings.simplefilter('error')");
    await sandpit.newSession("limits-b");
    assert.equal((await ok("import sys\nsys.getrecursionlimit()")).value.json, fresh);
    const warned = await ok("import warnings\nwarnings.warn('careful')\n'went on'");
    assert.equal(warned.value.json, "went on");
    assert.match(warned.stderr, /UserWarning: careful/);
    await sandpit.selectSession("limits-a");
    assert.equal((await ok("import sys\nsys.getrecursionlimit()")).value.json, 60);
    const raised = await sandpit.run("import warnings\nwarnings.warn('careful')");
    assert.equal(raised.json.status, "error");
    assert.equal(raised.json.error.type, "UserWarning");
  });

  test("logging prints in every run of every session", async () => {
    const logs = () => ok("import logging\nlogging.warning('x')");
    await sandpit.newSession("log-a");
    assert.equal((await logs()).stderr, "WARNING:root:x\n");
    assert.equal((await logs()).stderr, "WARNING:root:x\n", "the next run too");
    await sandpit.newSession("log-b");
    assert.equal((await logs()).stderr, "WARNING:root:x\n", "another session too");
    await sandpit.selectSession("log-a");
    assert.equal((await logs()).stderr, "WARNING:root:x\n", "and the first again");
  });

  test("sys.stdout is CPython's own text stream type, and sys.__stdout__ during a run", async () => {
    await sandpit.newSession("streams");
    const json = await ok(
      [
        "import io, sys",
        "print('text')",
        "sys.stdout.buffer.write('bytes é\\n'.encode())",
        "sys.stdout.reconfigure(line_buffering=True)",
        "(sys.stdout is sys.__stdout__, sys.stderr is sys.__stderr__, type(sys.stdout) is io.TextIOWrapper,",
        " sys.stdout.encoding, sys.stdout.line_buffering, sys.stdout.isatty(), sys.stdout.fileno(), sys.stderr.fileno())",
      ].join("\n"),
    );
    assert.equal(json.stdout, "text\nbytes é\n");
    assert.deepEqual(json.value.json, [true, true, true, "utf-8", true, false, 1, 2]);
  });

  test("the code's namespace is __main__'s: pickle and doctest work", async () => {
    await sandpit.newSession("main-module");
    const pickled = await ok(
      "import pickle\nclass Point:\n    def __init__(self, x):\n        self.x = x\npickle.loads(pickle.dumps(Point(3))).x",
    );
    assert.equal(pickled.value.json, 3);
    const tested = await ok(
      [
        "def double(n):",
        "    '''",
        "    >>> double(2)",
        "    4",
        "    >>> double(3)",
        "    7",
        "    '''",
        "    return 2 * n",
        "import doctest",
        "tuple(doctest.testmod())",
      ].join("\n"),
    );
    assert.deepEqual(tested.value.json, [1, 2], "two examples found, one failing");
    assert.match(tested.stdout, /Failed example:\n {4}double\(3\)/);
  });

  test("an exception whose __str__ fails is an error with CPython's placeholder; nothing restarts", async () => {
    await sandpit.newSession("odd-str");
    await ok("kept = 'still here'");
    // The last recurses through C code, which overflows the browser's stack
    // long before Python's default recursion limit would stop it.
    for (const body of ["raise RuntimeError", "raise SystemExit", "raise KeyboardInterrupt", "return str(self)"]) {
      const result = await sandpit.run(`class Odd(Exception):\n    def __str__(self):\n        ${body}\nraise Odd()`);
      assert.equal(result.phase, "error", body);
      const { error, restored } = result.json;
      assert.deepEqual([error.type, error.message, error.line], ["Odd", "<exception str() failed>", 4], body);
      assert.match(error.traceback, /Odd: <exception str\(\) failed>\n$/);
      assert.equal(error.hint, null, "no hint blames recursion or memory");
      assert.equal(restored, null, "the interpreter was not replaced");
    }
    assert.equal((await ok("kept")).value.json, "still here");
  });

  test("a KeyboardInterrupt the code raises is its error; only the host's interrupt stops a run", async () => {
    await sandpit.newSession("interrupts");
    const own = await sandpit.run("print('before')\nraise KeyboardInterrupt");
    assert.equal(own.phase, "error");
    assert.deepEqual([own.json.error.type, own.json.error.line], ["KeyboardInterrupt", 2]);
    assert.equal(own.json.stdout, "before\n");
    await sandpit.setTimeoutSeconds(1);
    const stopped = await sandpit.run("while True:\n    pass");
    await sandpit.setTimeoutSeconds(20);
    assert.equal(stopped.json.status, "timeout");
    assert.equal(stopped.hint, "timed_out");
  });

  test("a last value whose __repr__ fails leaves the run ok, with why on the value", async () => {
    await sandpit.newSession("odd-repr");
    const result = await sandpit.run("class Broken:\n    def __repr__(self):\n        raise ValueError('no repr')\nBroken()");
    assert.equal(result.phase, "ok");
    const { value, error } = result.json;
    assert.equal(error, null);
    assert.equal(value.repr_error, "ValueError: no repr");
    assert.match(value.repr, /^<__main__\.Broken object at 0x[0-9a-f]+> \(repr\(\) failed: ValueError: no repr\)$/);
    assert.equal(result.value, value.repr, "the page shows the value with its note");
    const recursing = await sandpit.run("class Loop:\n    def __repr__(self):\n        return repr([self])\nLoop()");
    assert.equal(recursing.phase, "ok");
    assert.equal(recursing.json.value.repr_error, "RecursionError: maximum recursion depth exceeded");
    assert.equal((await ok("6 * 7")).value.repr_error, undefined, "a repr that works has no note");
  });
});
