"""Fixtures for the runner's tests; the runner package is loaded by harness.py."""

import json
import signal

import pytest
from harness import Runner, UnderTest


@pytest.fixture
def host_signals():
    """The signals the worker passes to ``configure``, as src/names.rs
    defines them: SIGINT stops the code, SIGUSR1 nudges it."""
    return signal.SIGINT, signal.SIGUSR1


#: A small package index, as the worker gives ``configure`` one.
INDEX = {
    "imports": {"bs4": "beautifulsoup4", "numpy": "numpy", "requests": "requests", "yaml": "PyYAML"},
    "bundled": ["beautifulsoup4"],
}


@pytest.fixture
def runner(monkeypatch, tmp_path, host_signals):
    """A runner of its own for the test, configured as the worker does it,
    with its sessions under a temporary directory; what it and its runs
    change in the process (the hooks it installs, the working directory,
    signal handlers) is put back afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    handlers = {number: signal.getsignal(number) for number in host_signals}
    made = Runner(str(tmp_path / "sessions"))
    made.configure(json.dumps(INDEX), *host_signals)
    UnderTest.runner = made
    yield made
    UnderTest.runner = None
    made.uninstall()
    for number, handler in handlers.items():
        signal.signal(number, handler)


@pytest.fixture
def package_index(runner):
    """The package index the runner was configured with."""
    return INDEX


@pytest.fixture
def sandbox(runner, tmp_path):
    """Lets the runner run code here (``harness.run``); the sessions' directory."""
    return tmp_path / "sessions"


@pytest.fixture
def clock(monkeypatch):
    """``time.monotonic`` as a clock the test moves (``clock.now``), for the
    capture's batching decisions."""

    class Clock:
        now = 0.0  # sums of the test's steps stay exact

        def __call__(self) -> float:
            return self.now

    fake = Clock()
    monkeypatch.setattr("time.monotonic", fake)
    return fake
