"""The runner: everything it keeps between runs, on one object, and the
calls the worker makes."""

import builtins
import importlib
import json
import os
import sys

from . import imports
from .display import mime_bundle
from .files import SESSIONS_ROOT, Directories
from .hooks import BACKEND_MODULE, HOOKS_MODULE, Hooks, matplotlib_backend
from .job import Job, Request
from .packages import PackageIndex, findable
from .recorder import RECORDER_MODULE, AssertRecorder
from .sessions import Sessions
from .signals import Interrupts
from .streams import output_stream

#: Modules the runner imports only when it first needs them (a fix's diff,
#: a close match's guess, the fix engine and its trials, the lint's rules,
#: a check, a completion, a run's tests, a figure's summary, ``sandpit.verify``):
#: a plain run needs none of them, and each cold start would pay for them otherwise.
LAZY_IMPORTS = (
    "difflib",
    "sandpit.verify",
    "sandpit_runner.checker",
    "sandpit_runner.completion",
    "sandpit_runner.figures",
    "sandpit_runner.fixes",
    "sandpit_runner.fixes.edits",
    "sandpit_runner.fixes.engine",
    "sandpit_runner.fixes.known",
    "sandpit_runner.fixes.runtime",
    "sandpit_runner.fixes.suggest",
    "sandpit_runner.fixes.syntax",
    "sandpit_runner.lint.rules",
    "sandpit_runner.lint.sql",
    "sandpit_runner.trial",
    "sandpit_runner.verification",
)


class Runner:
    """Sessions, their directories, the package index, the host's signals
    and the process's streams, kept between runs; the run in progress.

    The process has one (the package makes it); what Python offers only once
    per process (``display()``, ``time.sleep``, matplotlib's backend, the
    asserts' recorder) is pointed at it by :meth:`install`."""

    def __init__(self, sessions_root: str = SESSIONS_ROOT):
        self.interrupts = Interrupts()
        self.packages = PackageIndex()
        self.sessions = Sessions()
        self.directories = Directories(sessions_root)
        self.recorder = AssertRecorder()
        self.stdout = output_stream("stdout", "strict")
        # CPython's stderr escapes what it cannot encode rather than fail.
        self.stderr = output_stream("stderr", "backslashreplace")
        self.backend = matplotlib_backend()
        self.hooks = Hooks(self)
        #: The run in progress (a :class:`Job`), or ``None``.
        self.current = None
        #: The worker's way to the embedding page's functions (see :meth:`connect_host`).
        self.host_bridge = None
        self._runs = 0

    def install(self) -> None:
        """Makes this the process's runner."""
        builtins.display = self.display
        self.interrupts.install()
        sys.modules[RECORDER_MODULE] = self.recorder
        sys.modules[BACKEND_MODULE] = self.backend
        sys.modules[HOOKS_MODULE] = self.hooks
        os.environ["MPLBACKEND"] = f"module://{BACKEND_MODULE}"

    def uninstall(self) -> None:
        """Undoes :meth:`install`, where nothing changed it since."""
        if builtins.__dict__.get("display") == self.display:
            del builtins.display
        self.interrupts.uninstall()
        for name, mine in (
            (RECORDER_MODULE, self.recorder),
            (BACKEND_MODULE, self.backend),
            (HOOKS_MODULE, self.hooks),
        ):
            if sys.modules.get(name) is mine:
                del sys.modules[name]
        if os.environ.get("MPLBACKEND") == f"module://{BACKEND_MODULE}":
            del os.environ["MPLBACKEND"]

    def next_run_number(self) -> int:
        """Numbers each run's pseudo file name, so tracebacks point at the right run."""
        self._runs += 1
        return self._runs

    # -- what the worker calls (the ``Runner`` typedef in pyodide-loader/) --

    def configure(self, index_json: str, interrupt_signal: int, nudge_signal: int) -> None:
        """Receives from the worker the package index (import names and bundled
        packages) and the numbers of the host's two signals."""
        self.interrupts.configure(interrupt_signal, nudge_signal)
        self.packages.configure(json.loads(index_json))
        self.install()

    def warm(self) -> None:
        """Imports what the runner otherwise imports only when it first needs
        it, for a start-up snapshot to hold."""
        for name in LAZY_IMPORTS:
            importlib.import_module(name)

    def watch_signals(self, word) -> None:
        """Receives Pyodide's interrupt buffer from the worker, for the sleep."""
        self.interrupts.word = word

    def connect_host(self, bridge) -> None:
        """Receives from the worker ``bridge(name, arguments_json, form)``,
        which asks the host for a call of the run in progress (see host_calls.py)."""
        self.host_bridge = bridge

    def run(self, request_json: str, emit, eager_output: bool = False, failures_json: str = "{}"):
        """Runs one request (``RunRequest`` as JSON); returns ``RunResult`` as JSON, or,
        when the code awaits at top level, a coroutine that returns it.

        ``emit(stream, text)`` streams output as it is written; see
        :class:`~sandpit_runner.capture.Capture` for ``eager_output``.
        ``failures_json`` names packages whose loading failed.
        """
        self.packages.load_failures = {} if failures_json == "{}" else json.loads(failures_json)
        job = Job(self, Request(request_json), emit, eager_output)
        going_on = job.begin()
        return job.result() if going_on is None else going_on

    def check(self, code: str) -> str:
        """``CheckReport`` of ``code`` as JSON, without running it."""
        from . import checker

        return json.dumps(checker.check(code, self.interrupts, self.packages))

    def complete(self, session: str, code: str, cursor: int) -> str:
        """``Completions`` at ``cursor`` in ``code``, for ``session``, as JSON."""
        from . import completion

        namespace = self.sessions.namespace(session)
        return json.dumps(completion.complete(namespace, self.packages.package_of, code, cursor))

    def packages_to_load(self, code: str) -> str:
        """The packages ``code`` (a run's code and tests) needs loaded
        before it runs, as a JSON list of package names."""
        return json.dumps(imports.packages_to_load(code, self.packages.package_of, findable))

    def read_file(self, session: str, path: str) -> str:
        """A file of a session's working directory, base64."""
        return self.directories.read_file(session, path)

    # -- what the code calls --

    def display(self, *objs) -> None:
        """Shows each object in its richest form, like IPython's ``display``."""
        for obj in objs:
            bundle = mime_bundle(obj)
            if self.current is None:
                print(bundle["text/plain"])
            else:
                self.current.displays.add(bundle)
