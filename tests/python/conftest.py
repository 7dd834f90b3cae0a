"""Fixtures for the runner's tests; the runner itself is loaded by harness.py."""

import json
import signal

import pytest

from harness import runner


@pytest.fixture(autouse=True)
def host_signals(monkeypatch):
    """The signals the worker passes to ``configure``, as src/names.rs
    defines them: SIGINT stops the code, SIGUSR1 nudges it."""
    monkeypatch.setattr(runner, "_interrupt_signal", signal.SIGINT)
    monkeypatch.setattr(runner, "_nudge_signal", signal.SIGUSR1)
    return signal.SIGINT, signal.SIGUSR1


@pytest.fixture
def package_index(monkeypatch, host_signals):
    """Configures the runner as the worker does, with a small package index;
    its tables and matplotlib's backend variable are put back afterwards."""
    monkeypatch.setattr(runner, "_package_of", {})
    monkeypatch.setattr(runner, "_bundled", set())
    monkeypatch.setattr(runner, "_load_failures", {})
    monkeypatch.delenv("MPLBACKEND", raising=False)
    index = {
        "imports": {"bs4": "beautifulsoup4", "numpy": "numpy", "requests": "requests", "yaml": "PyYAML"},
        "bundled": ["beautifulsoup4"],
    }
    runner.configure(json.dumps(index), *host_signals)
    return index


@pytest.fixture
def sandbox(monkeypatch, tmp_path, host_signals):
    """Lets the runner run code here: sessions under a temporary directory,
    and what a run changes in the process (working directory, signal
    handlers, session tables) put back afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "_SESSIONS_ROOT", str(tmp_path / "sessions"))
    monkeypatch.setattr(runner, "_sessions", {})
    monkeypatch.setattr(runner, "_files_after", {})
    monkeypatch.setattr(runner, "_idle_fresh_dirs", [])
    monkeypatch.setattr(runner, "_load_failures", {})
    runner._session_dir.cache_clear()
    handlers = {number: signal.getsignal(number) for number in host_signals}
    yield tmp_path / "sessions"
    for number, handler in handlers.items():
        signal.signal(number, handler)
    runner._session_dir.cache_clear()


@pytest.fixture
def clock(monkeypatch):
    """``time.monotonic`` as a clock the test moves (``clock.now``), for the
    capture's batching decisions."""

    class Clock:
        now = 0.0  # sums of the test's steps stay exact

        def __call__(self) -> float:
            return self.now

    fake = Clock()
    monkeypatch.setattr(runner.time, "monotonic", fake)
    return fake
