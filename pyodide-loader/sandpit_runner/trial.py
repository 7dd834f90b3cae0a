"""Trials of proposed fixes: the fixed program run as a fresh run (a
namespace of its own) in a copy of the session's files, with the call's
tests, within a time budget, its output kept from the result. Nothing of a
trial stays: its namespace and directory are dropped when it ends."""

import os
import shutil
import sys
import time

from .compile import awaits, compile_cell
from .files import listing

#: How long the trials of one run may take in all (seconds); they never
#: run past what is left of the run's own timeout either.
TRIAL_BUDGET_SECONDS = 1.0
#: What is left of a run's timeout that a trial does not eat into (seconds).
TIMEOUT_MARGIN_SECONDS = 0.1
#: The session's files are copied for a trial only up to this size (bytes).
MAX_COPIED_BYTES = 32 << 20
#: The trace function looks at the clock every this many events.
_EVENTS_PER_LOOK = 200


class TrialTimeout(BaseException):
    """Raised into a trial's code when its time is up; no ``except Exception`` stops it."""


class Outcome:
    """What a trial of a fixed program gave."""

    def __init__(self, status: str, message: str, failure=None, filename: str = "", error_type=None):
        self.status = status
        self.message = message
        self.failure = failure
        self.filename = filename
        self.error_type = error_type
        self.clean = status == "ok" and not message

    def progressed(self, original: BaseException) -> bool:
        """Whether the fixed program got past the original error (it failed
        elsewhere, or could not be tried), so the fix is worth showing unproven."""
        if self.failure is None:
            return True
        return type(self.failure) is not type(original) or str(self.failure) != str(original)


class Trials:
    """Runs fixed programs for ``job`` (the failed run) until ``deadline``."""

    def __init__(self, job):
        self.job = job
        request = job.request
        budget_end = time.monotonic() + TRIAL_BUDGET_SECONDS
        if request.timeout_ms is not None:
            elapsed = time.perf_counter() - job.started
            budget_end = min(
                budget_end, time.monotonic() + request.timeout_ms / 1000 - elapsed - TIMEOUT_MARGIN_SECONDS
            )
        self.deadline = budget_end
        self.seed = None if request.fresh else job.directory

    def __call__(self, code: str) -> Outcome:
        if time.monotonic() >= self.deadline:
            return Outcome("not_run", "not tried: the time for trials was spent")
        try:
            body, last = compile_cell(code, "<trial>")
        except (SyntaxError, ValueError):
            return Outcome("not_run", "not tried: the fixed program does not compile")
        if awaits(body) or awaits(last) or (self.job.tests is not None and self.job.tests.awaits):
            return Outcome("not_run", "not tried: trials run only programs without top-level await")
        if self.seed is not None and _size(self.seed) > MAX_COPIED_BYTES:
            return Outcome("not_run", "not tried: the session's files are too large to copy for a trial")
        from .job import Job, Request  # a trial is a run, and a run imports this module

        request = self.job.request
        trial = Job(
            self.job.runner,
            Request.of(code, request.session, request.limits, tests=request.tests, fresh=True),
            _discard,
            False,
            seed=self.seed,
            trial=True,
        )
        with _Deadline(self.deadline):
            trial.begin()
        trial.result()
        return _outcome(trial)


def _outcome(trial) -> Outcome:
    failure = trial.failure
    if isinstance(failure, TrialTimeout):
        return Outcome("timeout", "the trial ran past its time budget")
    if trial.outcome.status != "ok":
        error = trial.outcome.error or {}
        where = f" on line {error['line']}" if error.get("line") else ""
        message = f"the fixed program raised {error.get('type')}: {error.get('message')}{where}"
        return Outcome(trial.outcome.status, message, failure, trial.filename, error.get("type"))
    report = None if trial.tests is None else trial.tests.report(trial.outcome)
    if report is not None and not report["passed"]:
        failed = [case["name"] for case in report["tests"] if not case["passed"]]
        said = f"tests failed: {', '.join(failed)}" if failed else report["not_run"]
        return Outcome("ok", f"the fixed program ran, but {said}")
    return Outcome("ok", "")


def _discard(stream: str, text: str) -> None:
    """A trial's output goes nowhere: the model reads the run's."""


def _size(directory: str) -> int:
    here = os.getcwd()
    try:
        os.chdir(directory)
        return sum(size for size, _ in listing().values())
    except OSError:
        return 0
    finally:
        os.chdir(here)


def seed_directory(source: str, target: str) -> None:
    """Copies a session's files into a trial's directory."""
    if os.path.isdir(source):
        shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)


class _Deadline:
    """Stops the code traced inside it with :class:`TrialTimeout` once
    ``deadline`` (``time.monotonic``) has passed."""

    def __init__(self, deadline: float):
        self.deadline = deadline
        self.events = 0

    def _trace(self, frame, event, arg):
        self.events += 1
        if self.events % _EVENTS_PER_LOOK == 0 and time.monotonic() > self.deadline:
            raise TrialTimeout
        return self._trace

    def __enter__(self):
        self._previous = sys.gettrace()
        sys.settrace(self._trace)

    def __exit__(self, *exc):
        sys.settrace(self._previous)
        return False
