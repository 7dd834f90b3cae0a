"""One run, from its request (``RunRequest`` in src/protocol/) to its
result (``RunResult``)."""

import asyncio
import inspect
import json
import linecache
import os
import time

from . import lint
from .capture import STREAM_FLUSH_SECONDS, Capture
from .compile import awaits, compile_cell
from .display import FIGURE_MIME, Displays, capture_figures, mime_bundle
from .errors import describe_error, exit_code, lines
from .files import artifacts, enter, listed, listing, scan, write_inputs
from .host_calls import HostCalls
from .sessions import Session, SessionSwitch
from .streams import Redirection
from .values import BUILTIN_VALUES, bounded, describe_value, safe_repr


class Request:
    """A ``RunRequest``, read from its JSON."""

    __slots__ = (
        "code",
        "figure_format",
        "files",
        "fresh",
        "host_functions",
        "limits",
        "session",
        "tests",
        "timeout_ms",
    )

    def __init__(self, request_json: str):
        self._read(json.loads(request_json))

    @classmethod
    def of(cls, code: str, session: str, limits: dict, **fields) -> "Request":
        """A request made here rather than sent (a fix's trial)."""
        made = cls.__new__(cls)
        made._read({"code": code, "session": session, "limits": limits} | fields)
        return made

    def _read(self, request: dict) -> None:
        self.code = request["code"]
        self.tests = request.get("tests")
        self.session = request["session"]
        self.limits = request["limits"]
        self.files = request.get("files", [])
        self.figure_format = request.get("figure_format", "png")
        self.fresh = request.get("fresh", False)
        self.timeout_ms = request.get("timeout_ms")
        self.host_functions = request.get("host_functions", [])


class Outcome:
    """How the code ended (``status``: ok, error or cancelled) and what it left:
    its last value, its error, its ``sys.exit`` code."""

    __slots__ = ("error", "exit_code", "status", "value")

    def __init__(self):
        self.status, self.value, self.error, self.exit_code = "ok", None, None, None


def run_result(
    outcome: Outcome,
    capture: Capture,
    displays: Displays,
    duration_ms: float,
    found: list,
    files: dict,
    verification: "dict | None" = None,
) -> dict:
    """``RunResult`` of a finished run; ``files`` is the working directory
    as :func:`listing` sees it after the run, ``found`` its artifacts."""
    return {
        "status": outcome.status,
        # The host joins these from `output` (RunResult::share_output):
        # sending them too would carry every byte of output twice.
        "stdout": "",
        "stderr": "",
        "output": capture.output(),
        "value": outcome.value,
        "displays": displays.bundles,
        "error": outcome.error,
        "exit_code": outcome.exit_code,
        "duration_ms": duration_ms,
        "truncated": {
            "output": capture.truncated,
            "output_bytes_total": capture.total,
            "displays": displays.truncated,
        },
        # Filled in by the worker, which sees the browser's CSP reports.
        "blocked": [],
        "artifacts": found,
        "files": listed(files),
        "restored": None,
        "verification": verification,
    }


class Job:
    """One run of ``runner`` (a :class:`sandpit_runner.runner.Runner`).

    Code without top-level ``await`` runs to the end inside :meth:`begin`,
    called straight from the worker: no event-loop turn, which is most of what
    a trivial run would otherwise cost. Code that awaits goes on in a coroutine.
    """

    def __init__(self, runner, request: Request, emit, eager_output: bool, seed=None, trial=False):
        self.runner = runner
        #: A directory whose files a fresh run starts with (a fix's trial
        #: starts with a copy of its session's); whether this run is a trial.
        self.seed, self.trial = seed, trial
        #: What the code raised, when it failed.
        self.failure: BaseException | None = None
        self._trials = None
        self.interrupts = interrupts = runner.interrupts
        interrupts.new_run()
        self.request = request
        number = runner.next_run_number()
        self.filename = f"<run-{number}>"
        code = request.code
        linecache.cache[self.filename] = (len(code), None, lines(code), self.filename)
        directories = runner.directories
        if request.fresh:
            # A module of its own and an empty directory, both dropped when it ends.
            self.session = Session()
            self.directory = directories.take_fresh()
        else:
            self.session = runner.sessions.get(request.session)
            self.directory = directories.of_session(request.session)
        self.namespace = self.session.module.__dict__
        self.outcome = Outcome()
        self.capture = Capture(request.limits["output_bytes"], emit, eager_output)
        self.displays = Displays(request.limits["display_bytes"], request.figure_format)
        self.stopped = False
        self.tests = None
        if request.tests is not None:
            from .verification import Tests

            self.tests = Tests(request.tests, f"<tests-{number}>", runner.recorder, interrupts, runner.packages)
        self.before = None
        self.left_nothing = False
        refusal = "a fix's trial calls no host function" if trial else None
        self.host = HostCalls(runner.host_bridge, request.host_functions, refusal)
        enter(self.directory)
        self.switch = SessionSwitch(self.session)
        self.redirection = Redirection(self.capture, runner.stdout, runner.stderr)
        runner.current = self
        interrupts.capture = self.capture
        self.started = time.perf_counter()

    def begin(self):
        """Runs the code; returns ``None`` when it has finished, else a coroutine
        that finishes it and returns the result."""
        try:
            if self.seed is not None:
                from .trial import seed_directory

                seed_directory(self.seed, self.directory)
            files = self.request.files
            write_inputs(files)
            # Files the request brings change the directory: look at it again.
            # A fresh run's directory is known to be empty.
            known = {} if self.request.fresh else self.runner.directories.files_after.get(self.directory)
            self.before = None if files else known
            if self.before is None:
                self.before = listing()
            body, last = compile_cell(self.request.code, self.filename)
            self.interrupts.armed = True
            if awaits(body) or awaits(last) or (self.tests is not None and self.tests.awaits):
                return self._go_on(body, last)
            exec(body, self.namespace)
            if last is not None:
                self._returned(eval(last, self.namespace))
            if self.tests is not None:
                from .verification import drive

                drive(self.tests.run(self.namespace, self))
        except BaseException as exc:  # noqa: BLE001 - sorted by _failed, which re-raises the rest
            self._failed(exc)
        return None

    async def _go_on(self, body, last) -> str:
        self.interrupts.awaiting = self
        self._task = asyncio.current_task()
        # While the code awaits, no Python runs for the host's nudges to reach.
        self._loop = asyncio.get_running_loop()
        self._ticking = self._loop.call_later(STREAM_FLUSH_SECONDS, self._tick)
        try:
            outcome = eval(body, self.namespace)
            if inspect.iscoroutine(outcome):
                await outcome
            if last is not None:
                value = eval(last, self.namespace)
                if inspect.iscoroutine(value):
                    value = await value
                self._returned(value)
            if self.tests is not None:
                await self.tests.run(self.namespace, self)
        except BaseException as exc:  # noqa: BLE001 - sorted by _failed, which re-raises the rest
            self._failed(exc)
        finally:
            self._ticking.cancel()
            self.interrupts.awaiting = None
        return self.result()

    def stop_waiting(self) -> bool:
        """Cancels the code where it awaits, unless it is the code that runs
        now; says whether it did."""
        if asyncio.current_task(self._loop) is self._task:
            return False
        self.stopped = True
        self._task.cancel()
        return True

    def _tick(self) -> None:
        """Streams waiting output every ``STREAM_FLUSH_SECONDS`` while awaiting code goes on."""
        self.capture.flush_if_due()
        self._ticking = self._loop.call_later(STREAM_FLUSH_SECONDS, self._tick)

    def _returned(self, result) -> None:
        if result is None:
            return
        shown = safe_repr(result, self.interrupts)
        self.outcome.value = describe_value(result, self.request.limits["value_bytes"], shown)
        if type(result) in BUILTIN_VALUES:
            return  # no rich representation; its repr was just taken
        bundle = bounded(mime_bundle, result, shown[0])
        if len(bundle) > 1:
            self.displays.add(bundle)

    def _failed(self, exc: BaseException) -> None:
        self.failure = exc
        try:
            self._sort(exc)
        except KeyboardInterrupt as late:
            # The host's interrupt (a timeout) came while the error was being
            # described: only the first is delivered (see signals.py), so
            # describing it cannot be cut short.
            self._record("cancelled", late)

    def _record(self, status: str, exc: BaseException) -> None:
        self.outcome.status = status
        self.outcome.error = bounded(
            describe_error, exc, self.filename, self.request.code, self.interrupts, self.runner.packages
        )

    def _sort(self, exc: BaseException) -> None:
        if isinstance(exc, SystemExit):
            self.outcome.exit_code = exit_code(exc, self.capture, self.interrupts)
        elif (self.interrupts.by_host and isinstance(exc, KeyboardInterrupt)) or (
            self.stopped and isinstance(exc, asyncio.CancelledError)
        ):
            # Raised by the host's interrupt (timeout or cancel): the host says which.
            self._record("cancelled", exc)
        else:
            # Everything else the code raised, a KeyboardInterrupt of its own
            # included, ends a CPython program with its traceback: an error.
            self._record("error", exc)

    def _restore(self) -> dict:
        """Ends the run: figures captured, streams put back; the files now.

        What the capture has not streamed is not sent on its own: it goes in
        the result, and the host passes it on to whoever follows the run."""
        self.duration_ms = (time.perf_counter() - self.started) * 1000
        try:
            capture_figures(self.displays)
        except Exception as exc:  # noqa: BLE001 - a figure that cannot render must not hide the run
            self.capture.write("stderr", f"Sandpit could not capture a figure: {exc!r}\n")
        self.redirection.restore()
        self.switch.restore()
        self.runner.current = None
        self.interrupts.capture = None
        # The code may have changed directory, or removed it; files are the session's.
        try:
            moved = os.getcwd() != self.directory
        except OSError:
            moved = True
        if moved:
            enter(self.directory)
        # The listing, and whether the directory holds anything at all.
        after = {}
        self.left_nothing = not scan(".", "", after)
        if not self.request.fresh:
            self.runner.directories.files_after[self.directory] = after
        return after

    def result(self) -> str:
        """``RunResult`` as JSON; a timeout that strikes while it is put together
        stops the run there, as it would have a moment earlier."""
        try:
            text = self._result()
        except KeyboardInterrupt as late:
            self._failed(late)
            text = self._result()
        # Until the next run's code starts, no interrupt reaches anything (a
        # repeat that comes after the result, say, or code the event loop runs).
        self.interrupts.armed = False
        if self.request.fresh:
            self.runner.directories.free_fresh(self.directory, self.left_nothing)
        return text

    def _proposal(self):
        """Fixes of the code, tried before they are offered (fixes/), within
        one time budget for the run."""
        from .fixes.engine import Proposal
        from .trial import Trials

        if self._trials is None:
            self._trials = Trials(self)
        return Proposal(self.request.code, self.runner.packages.package_of, self._trials)

    def _warnings(self) -> list:
        """``LintWarning``s: dangerous code (lint/), each fix tried; figures
        that show nothing or say nothing of what they show."""
        found = []
        findings = lint.findings(self.request.code)
        if findings:
            from .fixes.edits import Source

            source = Source(self.request.code)
            for finding in findings:
                warning = finding.warning(source)
                fix = None if finding.candidate is None else self._proposal().for_candidate(finding.candidate)
                found.append(warning if fix is None else warning | {"fix": fix})
        summaries = [bundle[FIGURE_MIME] for bundle in self.displays.bundles if FIGURE_MIME in bundle]
        if summaries:
            from .figures import warnings_of

            for number, summary in enumerate(summaries, 1):
                found.extend(warnings_of(summary, number))
        return found

    def _result(self) -> str:
        after = self._restore()
        found = [] if self.before is None else artifacts(self.before, after, self.request.limits["artifact_bytes"])
        warnings = []
        if not self.trial:
            if self.outcome.status == "error" and self.failure is not None:
                fix = self._proposal().for_error(self.failure, self.filename)
                if fix is not None:
                    self.outcome.error["fix"] = fix
            warnings = self._warnings()
        verification = None if self.tests is None else self.tests.report(self.outcome)
        # A fresh run's directory is dropped: it leaves no file in the session.
        left = {} if self.request.fresh else after
        result = run_result(self.outcome, self.capture, self.displays, self.duration_ms, found, left, verification)
        if warnings:
            result["warnings"] = warnings
        if self.host.records:
            result["host_calls"] = self.host.records
        return json.dumps(result)
