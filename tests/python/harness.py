"""The runner package (pyodide-loader/sandpit_runner) loaded on the machine's
own Python, and helpers to run code through it as the worker does."""

import asyncio
import json
import pathlib
import sys
import types
import typing

# pyodide-loader/ is copied into the bundle whole: no __pycache__ may appear in it.
sys.dont_write_bytecode = True

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "protocol.schema.json").read_text())["$defs"]

sys.path.insert(0, str(ROOT / "pyodide-loader"))

import wire  # noqa: E402
from sandpit_runner import capture, display, errors, files, job, packages, signals, streams, values  # noqa: E402
from sandpit_runner import compile as cells  # noqa: E402
from sandpit_runner.runner import Runner  # noqa: E402

__all__ = [
    "Runner",
    "capture",
    "cells",
    "display",
    "errors",
    "files",
    "job",
    "packages",
    "signals",
    "streams",
    "values",
]

LIMITS = {
    "output_bytes": 1 << 20,
    "value_bytes": 1 << 16,
    "display_bytes": 1 << 20,
    "input_bytes": 1 << 20,
    "artifact_bytes": 1 << 16,
}


class UnderTest:
    """The runner the ``sandbox`` fixture made for the test in progress."""

    runner: "Runner | None" = None


def assert_shape(obj: dict, name: str) -> None:
    """``obj`` is a ``name`` as tests/python/wire.py declares it (generated
    from src/protocol/): every key it requires and none it does not know,
    each value of its declared type, all the way down."""
    _conforms(obj, getattr(wire, name), name)


def _conforms(value, annotation, path: str) -> None:
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is typing.Any:
        return
    if typing.is_typeddict(annotation):
        assert isinstance(value, dict), f"{path} is no object: {value!r}"
        hints = typing.get_type_hints(annotation)
        unknown = set(value) - set(hints)
        assert not unknown, f"{path} has unknown keys {unknown}"
        missing = annotation.__required_keys__ - set(value)
        assert not missing, f"{path} lacks {missing}"
        for key, item in value.items():
            _conforms(item, hints[key], f"{path}[{key!r}]")
    elif origin in (types.UnionType, typing.Union):
        failures = []
        for choice in arguments:
            try:
                return _conforms(value, choice, path)
            except AssertionError as failure:
                failures.append(str(failure))
        raise AssertionError(f"{path} is none of {annotation}: {'; '.join(failures)}")
    elif origin is typing.Literal:
        assert value in arguments, f"{path} is {value!r}, not one of {arguments}"
    elif origin is list:
        assert isinstance(value, list), f"{path} is no list: {value!r}"
        for index, item in enumerate(value):
            _conforms(item, arguments[0], f"{path}[{index}]")
    elif origin is dict:
        assert isinstance(value, dict), f"{path} is no object: {value!r}"
        for key, item in value.items():
            _conforms(item, arguments[1], f"{path}[{key!r}]")
    elif annotation is type(None):
        assert value is None, f"{path} is {value!r}, not null"
    elif annotation is float:
        assert type(value) in (int, float), f"{path} is no number: {value!r}"
    else:
        assert type(value) is annotation, f"{path} is no {annotation.__name__}: {value!r}"


def schema_enum(name: str) -> set:
    """The strings the schema allows for the enum ``name``."""
    definition = SCHEMA[name]
    if "enum" in definition:
        return set(definition["enum"])
    return {choice["const"] for choice in definition["oneOf"]}


def request(code: str, session: str = "test", **fields) -> str:
    """A ``RunRequest`` as the worker passes it to ``run``."""
    return json.dumps({"code": code, "session": session, "limits": LIMITS} | fields)


def run(code: str, session: str = "test", eager: bool = False, **fields) -> dict:
    """Runs ``code`` as the worker does (under the ``sandbox`` fixture), awaiting
    it when it awaits; the result, with what was streamed under ``"streamed"``."""
    runner = UnderTest.runner
    assert runner is not None, "use the sandbox fixture"
    streamed = []
    emit = lambda stream, text: streamed.append((stream, text))  # noqa: E731
    outcome = runner.run(request(code, session, **fields), emit, eager)
    if not isinstance(outcome, str):
        outcome = asyncio.run(outcome)
    result = json.loads(outcome)
    assert_shape(result, "RunResult")
    return result | {"streamed": streamed}


def describe_value(value, limit: int) -> dict:
    """``LastValue`` of ``value`` as a run describes it."""
    return values.describe_value(value, limit, values.safe_repr(value, signals.Interrupts()))


#: Where the runner's own code lives: none of it may show in the code's tracebacks.
RUNNER_DIR = str(ROOT / "pyodide-loader" / "sandpit_runner")


def describe_error(error: BaseException, filename: str, code: str) -> dict:
    """``RunError`` of ``error`` as a run describes it, with no package index."""
    return errors.describe_error(error, filename, code, signals.Interrupts(), packages.PackageIndex())
