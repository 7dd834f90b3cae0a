"""What importing the runner costs a cold start: the modules it needs only
later stay out until then, and ``warm`` brings them in for a start-up
snapshot to hold."""

import subprocess
import sys
from pathlib import Path

from sandpit_runner.runner import LAZY_IMPORTS

RUNNER_ROOT = Path(__file__).resolve().parents[2] / "pyodide-loader"


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
