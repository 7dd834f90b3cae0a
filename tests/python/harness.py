"""pyodide-loader/runner.py loaded on the machine's own Python, and helpers to
run code through it as the worker does.

The runner is loaded from its file as the module ``_sandpit_runner``, the name
the worker installs it under.
"""

import asyncio
import importlib.util
import json
import pathlib
import sys

# pyodide-loader/ is copied into the bundle whole: no __pycache__ may appear in it.
sys.dont_write_bytecode = True

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "protocol.schema.json").read_text())["$defs"]

_spec = importlib.util.spec_from_file_location("_sandpit_runner", ROOT / "pyodide-loader" / "runner.py")
runner = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = runner
_spec.loader.exec_module(runner)

#: Where the runner keeps sessions in the browser; ``run`` refuses to touch it here.
_BROWSER_SESSIONS_ROOT = runner._SESSIONS_ROOT

LIMITS = {
    "output_bytes": 1 << 20,
    "value_bytes": 1 << 16,
    "display_bytes": 1 << 20,
    "input_bytes": 1 << 20,
    "artifact_bytes": 1 << 16,
}


def assert_shape(obj: dict, name: str) -> None:
    """``obj`` has the keys of the schema's ``name`` (from src/protocol.rs):
    every required one, and none it does not know."""
    properties = set(SCHEMA[name]["properties"])
    assert set(obj) <= properties, f"{name} has unknown keys {set(obj) - properties}"
    missing = set(SCHEMA[name].get("required", [])) - set(obj)
    assert not missing, f"{name} lacks {missing}"


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
    assert runner._SESSIONS_ROOT != _BROWSER_SESSIONS_ROOT, "use the sandbox fixture"
    streamed = []
    emit = lambda stream, text: streamed.append((stream, text))  # noqa: E731
    outcome = runner.run(request(code, session, **fields), emit, eager)
    if not isinstance(outcome, str):
        outcome = asyncio.run(outcome)
    result = json.loads(outcome)
    assert_shape(result, "RunResult")
    return result | {"streamed": streamed}
