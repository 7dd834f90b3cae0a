"""What importing the runner costs a cold start: the modules it needs only
later stay out until then, and ``warm`` brings them in for a start-up
snapshot to hold; a plain run does not bring in what only a fix needs."""

import subprocess
import sys
from pathlib import Path

import pytest
from harness import run
from sandpit_runner.runner import LAZY_IMPORTS

RUNNER_ROOT = Path(__file__).resolve().parents[2] / "pyodide-loader"

#: What only a fix or a lint finding needs: the fix engine, its trials, the lint's rules.
FIX_MODULES = {"sandpit_runner.fixes.engine", "sandpit_runner.trial", "sandpit_runner.lint.rules"}


def imported_after(statements: str) -> set[str]:
    """The lazily imported modules loaded in a fresh interpreter after ``statements``."""
    probe = (
        f"import sys; sys.path.insert(0, {str(RUNNER_ROOT)!r})\n{statements}\n"
        f"print(' '.join(name for name in {LAZY_IMPORTS!r} if name in sys.modules))"
    )
    printed = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    return set(printed.split())


def test_importing_the_runner_leaves_the_lazy_modules_out():
    assert imported_after("import sandpit_runner") == set()


def test_warm_imports_them():
    assert imported_after("import sandpit_runner\nsandpit_runner.warm()") == set(LAZY_IMPORTS)


def test_the_fix_modules_are_among_the_lazy_ones():
    assert set(LAZY_IMPORTS) >= FIX_MODULES


@pytest.fixture
def unloaded(monkeypatch):
    """The runner's lazily imported modules out of ``sys.modules`` and their
    packages for the test, as in a process that has not needed them yet;
    the test session's own are put back afterwards."""
    ours = [name for name in LAZY_IMPORTS if name.split(".")[0] in ("sandpit", "sandpit_runner")]
    # Submodules first, while their packages are still there to take them from.
    for name in sorted(ours, reverse=True):
        if name in sys.modules:
            package, _, leaf = name.rpartition(".")
            monkeypatch.delattr(sys.modules[package], leaf, raising=False)
            monkeypatch.delitem(sys.modules, name)
    return lambda: {name for name in ours if name in sys.modules}


def test_a_plain_run_imports_no_fix_module(sandbox, unloaded):
    result = run("print(1)")
    assert (result["status"], result["error"]) == ("ok", None)
    assert unloaded() & FIX_MODULES == set()


def test_a_run_whose_error_gets_a_fix_imports_them(sandbox, unloaded):
    # ``random`` is one of the lint's trigger words: its rules are looked at, and find nothing.
    result = run("import random\nroll = random.randint(1, 6)\nprint(rol)")
    assert result["error"]["type"] == "NameError"
    assert result["error"]["fix"]["verified"] is True
    assert "warnings" not in result
    assert unloaded() >= FIX_MODULES
