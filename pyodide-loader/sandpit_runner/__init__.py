"""Sandpit's Python side: runs one piece of user code and reports what happened.

The worker installs this package and calls the functions below; results are
JSON whose shapes are in ``src/protocol/`` (``RunResult``, ``CheckReport``,
``Completions``), and the tests check them against the schema generated
from there. State lives on one :class:`~sandpit_runner.runner.Runner`, which
``configure`` makes the process's (``display()``, ``time.sleep``, ...).
"""

from .runner import Runner
from .streams import StdinUnavailableError

_runner = Runner()

configure = _runner.configure
watch_signals = _runner.watch_signals
connect_host = _runner.connect_host
run = _runner.run
check = _runner.check
complete = _runner.complete
read_file = _runner.read_file
packages_to_load = _runner.packages_to_load
warm = _runner.warm

__all__ = [
    "Runner",
    "StdinUnavailableError",
    "check",
    "complete",
    "configure",
    "connect_host",
    "packages_to_load",
    "read_file",
    "run",
    "warm",
    "watch_signals",
]
