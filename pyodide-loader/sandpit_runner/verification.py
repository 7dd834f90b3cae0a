"""A run's tests (``RunRequest.tests``) and what they found
(``Verification`` in src/protocol/).

The tests run after the code, in the same namespace: each top-level
``assert`` is a test, and so is each top-level ``def test_*`` (called with
no arguments, awaited when ``async``). Asserts are rewritten to pass what
they evaluate through the runner's recorder first, so a failed one can show
the values it saw, as pytest's rewriting does, without evaluating anything
twice."""

import ast
import asyncio
import inspect
import linecache

from .compile import awaits
from .errors import describe_error, lines
from .recorder import RECORDER_MODULE, AssertRecorder
from .values import bounded, cut, safe_repr

#: The symbol of each comparison operator a rewritten assert may hold
#: (the recorder's ``COMPARE_BY_SYMBOL`` says what each does).
_SYMBOLS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
#: Characters of a value's repr shown in a failed assert's explanation.
_EXPLAINED_REPR_CHARS = 240


class AssertRewriter(ast.NodeTransformer):
    """Rewrites ``assert a == b`` (on line 3) into ``assert compared(3, a,
    "==", b)`` and any other ``assert x`` into ``assert noted(3, x)``, methods
    of the recorder looked up through ``__import__(RECORDER_MODULE)``."""

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        test = node.test
        recorder = ast.Call(ast.Name("__import__", ast.Load()), [ast.Constant(RECORDER_MODULE)], [])
        line = ast.Constant(node.lineno)
        symbol = _SYMBOLS.get(type(test.ops[0])) if isinstance(test, ast.Compare) and len(test.ops) == 1 else None
        if symbol is not None:
            call = ast.Call(
                ast.Attribute(recorder, "compared", ast.Load()),
                [line, test.left, ast.Constant(symbol), test.comparators[0]],
                [],
            )
        else:
            call = ast.Call(ast.Attribute(recorder, "noted", ast.Load()), [line, test], [])
        node.test = ast.fix_missing_locations(ast.copy_location(call, test))
        return node


class Tests:
    """A run's tests, compiled one top-level statement at a time, and what
    they found (``Verification`` in src/protocol/)."""

    def __init__(self, source: str, filename: str, recorder: AssertRecorder, interrupts, packages):
        self.source, self.filename = source, filename
        self.recorder, self.interrupts, self.packages = recorder, interrupts, packages
        self.lines = lines(source)
        linecache.cache[filename] = (len(source), None, self.lines, filename)
        self.cases: list[dict] = []
        self.not_run: str | None = None
        self.started = False
        #: Each top-level statement: (code, its first line, whether it is an
        #: assert, so a test, its line).
        self.steps: list = []
        #: Top-level ``def test_*`` names, in order.
        self.functions: list[str] = []
        #: What each assert tests, by line, for explaining a failure there.
        self.asserts: dict[int, ast.expr] = {}
        self.compile_error: BaseException | None = None
        self.awaits = False
        try:
            self._compile()
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:  # ValueError: a null byte, before 3.12
            self.compile_error = error
            self.steps, self.functions = [], []

    def _compile(self) -> None:
        tree = ast.parse(self.source, self.filename, "exec")
        self.asserts = {node.lineno: node.test for node in ast.walk(tree) if isinstance(node, ast.Assert)}
        tree = AssertRewriter().visit(tree)
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        for node in tree.body:
            code = compile(ast.Module([node], []), self.filename, "exec", flags=flags)
            self.awaits = self.awaits or awaits(code)
            name = self._segment(node).split("\n", 1)[0]
            self.steps.append((code, name, isinstance(node, ast.Assert), node.lineno))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                self.functions.append(node.name)
                self.awaits = self.awaits or isinstance(node, ast.AsyncFunctionDef)

    def _segment(self, node) -> str:
        text = ast.get_source_segment(self.source, node) or ""
        return text if len(text) <= _EXPLAINED_REPR_CHARS else text[: _EXPLAINED_REPR_CHARS - 1] + "…"

    async def run(self, namespace: dict, job) -> None:
        """Runs every test in ``namespace``; a host's stop goes through,
        after noting which tests did not run."""
        self.started = True
        if self.compile_error is not None:
            line = getattr(self.compile_error, "lineno", None) or 1
            self.cases.append(self._failed("tests", line, self.compile_error))
            self.not_run = "The tests do not compile, so none ran."
            return
        for code, name, is_test, line in self.steps:
            failure = await self._run_step(name, is_test, line, job, lambda code=code: eval(code, namespace))
            if failure is not None and not is_test:
                self.not_run = f"Line {line} of the tests raised {failure}, so the tests after it did not run."
                return
        for name in self.functions:
            function = namespace.get(name)
            line = getattr(getattr(function, "__code__", None), "co_firstlineno", 1)
            await self._run_step(name, True, line, job, function if callable(function) else _not_callable(name))

    async def _run_step(self, name: str, is_test: bool, line: int, job, call) -> "str | None":
        """Runs one statement or test function, recorded when it is a test
        or when it fails. Returns the exception's type name when it raised."""
        self.recorder.last = None
        try:
            outcome = call()
            if inspect.iscoroutine(outcome):
                await outcome
        except BaseException as exc:
            if (self.interrupts.by_host and isinstance(exc, KeyboardInterrupt)) or (
                job.stopped and isinstance(exc, asyncio.CancelledError)
            ):
                self.not_run = "The run was stopped before every test had run."
                raise
            self.cases.append(self._failed(name, line, exc))
            return type(exc).__name__
        if is_test:
            self.cases.append(
                {"name": name, "line": line, "passed": True, "error": None, "explanation": None, "compared": None}
            )
        return None

    def _failed(self, name: str, line: int, exc: BaseException) -> dict:
        error = bounded(describe_error, exc, self.filename, self.source, self.interrupts, self.packages)
        case = {
            "name": name,
            "line": error["line"] or line,
            "passed": False,
            "error": error,
            "explanation": None,
            "compared": None,
        }
        check, innermost = self.recorder.last, exc.__traceback__
        while innermost is not None and innermost.tb_next is not None:
            innermost = innermost.tb_next
        # Only an assert of the tests that failed itself is explained, not
        # an AssertionError raised further in (by the code's own asserts).
        raised_here = (
            innermost is not None
            and innermost.tb_frame.f_code.co_filename == self.filename
            and check is not None
            and check[0] == innermost.tb_lineno
        )
        if isinstance(exc, AssertionError) and raised_here and check[0] in self.asserts:
            case["explanation"], case["compared"] = self._explain(self.asserts[check[0]], check[1:])
        return case

    def _explain(self, test: ast.expr, check: tuple) -> "tuple[str, dict | None]":
        """What the failed assert saw (``test`` is what it tests), as pytest
        shows it: ``assert 4 == 5`` then ``+  where 4 = add(2, 2)`` for each
        side that is not a literal."""
        symbol, left, right = check
        shown = [(left, test.left if symbol is not None else test)]
        if symbol is not None:
            shown.append((right, test.comparators[0]))
        reprs = [cut(safe_repr(value, self.interrupts)[0], _EXPLAINED_REPR_CHARS * 4)[0] for value, _ in shown]
        reprs = [
            text if len(text) <= _EXPLAINED_REPR_CHARS else text[: _EXPLAINED_REPR_CHARS - 1] + "…" for text in reprs
        ]
        head = f"assert {reprs[0]} {symbol} {reprs[1]}" if symbol is not None else f"assert {reprs[0]}"
        lines = [head]
        for text, (_, expression) in zip(reprs, shown, strict=True):
            source = self._segment(expression)
            if not isinstance(expression, ast.Constant) and source != text:
                lines.append(f" +  where {text} = {source}")
        difference = _first_difference(left, right, self.interrupts) if symbol == "==" else None
        if difference:
            lines.append(f" +  {difference}")
        compared = None if symbol is None else {"left": reprs[0], "op": symbol, "right": reprs[1]}
        return "\n".join(lines), compared

    def report(self, outcome) -> dict:
        """``Verification`` (src/protocol/)."""
        not_run = self.not_run
        if self.started and not_run is None and outcome.status != "ok":
            not_run = f"The run ended ({outcome.status}) while the tests ran."
        elif not self.started:
            if outcome.status == "cancelled":
                not_run = "The run was stopped before the tests ran."
            elif outcome.error is not None:
                not_run = f"The code raised {outcome.error['type']}, so no test ran."
            else:
                not_run = "The code ended (sys.exit) before the tests ran."
        passed = not_run is None and all(case["passed"] for case in self.cases)
        return {"passed": passed, "tests": self.cases, "not_run": not_run}


def _not_callable(name: str):
    def fail():
        raise TypeError(f"{name} is not callable")

    return fail


def _first_difference(left, right, interrupts) -> "str | None":
    """Where two strings or sequences of one type first differ, for an ``==`` that failed."""
    if type(left) is not type(right) or not isinstance(left, (str, bytes, list, tuple)):
        return None
    try:
        for index, (a, b) in enumerate(zip(left, right, strict=False)):
            if a != b:
                shown = [safe_repr(item, interrupts)[0][:80] for item in (a, b)]
                return f"first difference at index {index}: {shown[0]} != {shown[1]}"
    except Exception:  # noqa: BLE001 - items whose == fails: no detail
        return None
    if len(left) != len(right):
        longer, extra = (
            ("left", len(left) - len(right)) if len(left) > len(right) else ("right", len(right) - len(left))
        )
        return f"the {longer} side has {extra} more item(s)"
    return None


def drive(coroutine):
    """Runs a coroutine that never suspends (tests without ``await`` in a run
    without it) to its end, here and now."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError(
        "a test awaited something in a run that does not await: make it `async def test_...`, "
        "or use `await` at the top level of the tests"
    )
