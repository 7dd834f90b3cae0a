"""Sandpit's Python side: runs one piece of user code and reports what happened.

The worker installs this file as the module ``_sandpit_runner`` and calls
:func:`run` with a JSON request. The result is returned as JSON whose shape is
``RunResult`` in ``src/protocol.rs``; the browser tests check every result
against the schema generated from that type, so keep the two in step.
"""

import ast
import asyncio
import base64
import builtins
import codecs
import collections
import functools
import importlib.util
import inspect
import io
import json
import keyword
import linecache
import math
import operator
import os
import re
import signal
import sys
import time
import traceback
import types
import warnings

#: Stream output to the host once the oldest waiting output is this old
#: (seconds): looked at when a line ends, when the code flushes, and at the
#: host's nudges while the code runs (a sleep sends what waits at once).
_STREAM_FLUSH_SECONDS = 0.05
#: ...and, where every line is sent at once (``eager``), once this many bytes
#: of a line wait.
_STREAM_FLUSH_BYTES = 16 * 1024
#: The signals the host writes into Pyodide's interrupt buffer, as the worker
#: passes them to ``configure`` (src/names.rs defines them): one stops the
#: running code (``_on_interrupt``); the other, written every so often while a
#: run goes on, has waiting output streamed (``_on_nudge``).
_interrupt_signal: int | None = None
_nudge_signal: int | None = None
#: A sleep looks at the interrupt buffer this often (seconds), since
#: Pyodide's own sleep does not; a shorter sleep is Pyodide's (``_sleep``).
_SLEEP_SLICE_SECONDS = 0.05

#: Sessions' working directories live here, one each.
_SESSIONS_ROOT = "/home/pyodide/sessions"
#: At most this many files are listed in a result.
_MAX_LISTED_FILES = 1000

#: First characters of a line that cannot begin a top-level statement
#: (``""`` is an empty last line); see ``_split_last_line``.
_NOT_A_STATEMENT_START = frozenset(("", " ", "\t", "\f", "\r", "\n", "#", ")", "]", "}"))

#: Keywords that begin a statement and never an expression.
_STATEMENT_KEYWORDS = frozenset(keyword.kwlist) - {"await", "lambda", "not", "None", "True", "False", "yield"}

#: Lines of code shown above and below the failing line.
_CONTEXT_LINES = 2

#: How many frames deeper than the runner the code's ``__str__`` and
#: ``__repr__`` may recurse when the runner calls them. Recursion through C
#: code (a ``__str__`` that calls ``str(self)``) overflows the browser's stack
#: well before the default limit stops it, and the interpreter dies with it;
#: under this bound it is a ``RecursionError``.
_DESCRIBING_DEPTH = 200

#: Values of these exact types are their own JSON (see ``_describe_value``).
_JSON_SCALARS = frozenset((str, int, float, bool, type(None)))
#: Built-in types, whose values have no ``_repr_*_`` methods to look for.
_BUILTIN_VALUES = _JSON_SCALARS | {bytes, complex, list, tuple, dict, set, frozenset, range}

#: Rich representations looked for on values, in the order they are offered.
_REPR_METHODS = (
    ("text/html", "_repr_html_"),
    ("text/markdown", "_repr_markdown_"),
    ("text/latex", "_repr_latex_"),
    ("image/png", "_repr_png_"),
    ("image/svg+xml", "_repr_svg_"),
    ("application/json", "_repr_json_"),
)

#: Each named session (see ``_Session``).
_sessions: dict[str, "_Session"] = {}
#: Whether a ``KeyboardInterrupt`` may no longer reach Python (see
#: ``_on_interrupt``): false only from the start of a run's code until its
#: first interrupt or its result.
_interrupted = True
#: Whether the host's interrupt reached the run in progress: only then is a
#: ``KeyboardInterrupt`` a cancellation rather than the code's own error.
_stopped_by_host = False
#: Each session directory's files as its last run left them (see ``_snapshot``),
#: by directory: the next run compares against these instead of walking the
#: directory again before it starts. So a change made between two runs (by
#: another session's code, say) is reported with the next run's files.
_files_after: dict[str, dict] = {}
#: Fresh runs' working directories that are empty and free, for the next
#: fresh run to take instead of making and deleting one each time.
_idle_fresh_dirs: list[str] = []
#: Numbers each run's pseudo file name, so tracebacks point at the right run.
_run_counter = 0
#: Rich outputs of the run in progress; ``display()`` appends here.
_current_displays: "_Displays | None" = None
#: Output of the run in progress, for what streams it between writes.
_current_capture: "_Capture | None" = None
#: Pyodide's interrupt buffer (an ``Int32Array``), when the page has one.
_signal_word = None
#: The run whose code awaits at top level, while it goes on (see ``_on_interrupt``).
_awaiting: "_Job | None" = None
#: Import name -> package name, from the lockfile; and the packages shipped with the app.
_package_of: dict[str, str] = {}
_bundled: set[str] = set()
#: Packages whose download failed this run: name -> "network" or "blocked".
_load_failures: dict[str, str] = {}

#: What to use instead of modules that cannot work in a browser sandbox.
_ALTERNATIVES = {
    "requests": "use `pyodide.http.pyfetch` (async) or `pyodide.http.open_url`, or pass the data in as a file",
    "urllib3": "use `pyodide.http.pyfetch`, or pass the data in as a file",
    "httpx": "use `pyodide.http.pyfetch`, or pass the data in as a file",
    "aiohttp": "use `pyodide.http.pyfetch`",
    "torch": "no deep-learning framework runs here; use numpy or scikit-learn",
    "tensorflow": "no deep-learning framework runs here; use numpy or scikit-learn",
    "cv2": "use Pillow (`PIL`) or scikit-image",
    "psycopg2": "there is no network database access; use sqlite3 on a file",
    "tkinter": "there is no display; draw with matplotlib, or return HTML",
}


def configure(index_json: str, interrupt_signal: int, nudge_signal: int) -> None:
    """Receives from the worker the package index (import names and bundled
    packages) and the numbers of the host's two signals.

    Also makes this module matplotlib's backend, so figures are captured
    without ``plt.show()`` tricks and ``plt.show()`` itself captures.
    """
    global _interrupt_signal, _nudge_signal
    _interrupt_signal, _nudge_signal = interrupt_signal, nudge_signal
    os.environ["MPLBACKEND"] = f"module://{__name__}"
    index = json.loads(index_json)
    _package_of.update({name: package.lower() for name, package in index["imports"].items()})
    _bundled.update(index["bundled"])


class StdinUnavailableError(EOFError):
    """Raised by ``input()`` and stdin reads: a sandbox has nobody to type an answer.

    An ``EOFError`` so that code reading until end of input simply stops.
    """


_STDIN_MESSAGE = "input() is not supported here: the sandbox has no stdin"
_STDIN_ADVICE = (
    "Nobody can type an answer in a sandbox: put the input in the code "
    "(a variable or a file) instead of calling input() or reading stdin."
)


class _NoStdin:
    """``sys.stdin`` during a run: every read fails at once instead of hanging."""

    encoding = "utf-8"
    name = "<stdin>"

    def _refuse(self, *args, **kwargs):
        raise StdinUnavailableError(_STDIN_MESSAGE)

    read = readline = readlines = __next__ = _refuse

    def __iter__(self):
        return self

    def isatty(self) -> bool:
        return False

    def readable(self) -> bool:
        return True


def _input(prompt: object = "") -> str:
    """``input()`` replacement: shows the prompt, then refuses."""
    if prompt:
        sys.stdout.write(str(prompt))
    raise StdinUnavailableError(_STDIN_MESSAGE)


class _Settings(
    collections.namedtuple("_Settings", "recursion_limit warning_filters showwarning formatwarning root_logging")
):
    """What CPython keeps once per interpreter and code may change: the
    recursion limit, the warnings filters and hooks, the root logger's
    handlers and level. Each session keeps its own, as it would with an
    interpreter to itself (sessions share one here). Equal settings compare
    equal, so a run that changed nothing costs no change back."""

    __slots__ = ()

    @classmethod
    def current(cls) -> "_Settings":
        filters = warnings.filters
        return cls(
            sys.getrecursionlimit(),
            list(filters) if isinstance(filters, list) else [],
            warnings.showwarning,
            warnings.formatwarning,
            _root_logging(),
        )

    def apply(self) -> None:
        """Makes these the interpreter's settings, touching only what differs."""
        if sys.getrecursionlimit() != self.recursion_limit:
            sys.setrecursionlimit(self.recursion_limit)
        if warnings.filters != self.warning_filters:
            _set_warning_filters(self.warning_filters)
        warnings.showwarning, warnings.formatwarning = self.showwarning, self.formatwarning
        _set_root_logging(self.root_logging)


def _set_warning_filters(filters: list) -> None:
    if isinstance(warnings.filters, list):
        warnings.filters[:] = filters
    else:  # the code replaced the list itself
        warnings.filters = list(filters)
    # Warnings already seen were looked up against the old filters.
    warnings._filters_mutated()


def _root_logging() -> "tuple[list, int] | None":
    """The root logger's handlers and level; ``None`` while ``logging`` is not
    imported (nothing imports it for a run that does not use it)."""
    logging = sys.modules.get("logging")
    if logging is None:
        return None
    return list(logging.root.handlers), logging.root.level


def _set_root_logging(saved: "tuple[list, int] | None") -> None:
    """Puts back what :func:`_root_logging` gave; ``None`` is a fresh root logger."""
    logging = sys.modules.get("logging")
    if logging is None:
        return
    handlers, level = saved if saved is not None else ([], logging.WARNING)
    logging.root.handlers = list(handlers)
    if logging.root.level != level:
        logging.root.setLevel(level)


class _Session:
    """A named session: its own ``__main__`` module, whose dict holds the
    code's globals, and the settings its last run left (``None`` before
    that: a new session starts with the interpreter's own)."""

    __slots__ = ("module", "settings")

    def __init__(self):
        self.module = types.ModuleType("__main__")
        self.module.__builtins__ = builtins
        self.settings: "_Settings | None" = None


def _session(name: str) -> _Session:
    session = _sessions.get(name)
    if session is None:
        session = _sessions[name] = _Session()
    return session


class _SessionSwitch:
    """Makes a session the interpreter's for one run: its module is
    ``sys.modules["__main__"]`` (so pickle, doctest and ``import __main__``
    find the code's globals) and its settings are in force, until
    :meth:`restore` keeps what the run left and puts back what was there."""

    def __init__(self, session: _Session):
        self._session = session
        self._main = sys.modules.get("__main__")
        self._outside = _Settings.current()
        if session.settings is not None and session.settings != self._outside:
            session.settings.apply()
        sys.modules["__main__"] = session.module
        self._restored = False

    def restore(self) -> None:
        """Calling it again changes nothing."""
        if self._restored:
            return
        self._restored = True
        left = self._session.settings = _Settings.current()
        if left != self._outside:
            self._outside.apply()
        if self._main is None:
            sys.modules.pop("__main__", None)
        else:
            sys.modules["__main__"] = self._main


def clear_session(name: str) -> None:
    """Forgets a session's globals and files; its next run starts empty."""
    _sessions.pop(name, None)
    directory = _session_dir(name)
    _files_after.pop(directory, None)
    if os.path.isdir(directory):
        import shutil

        if os.getcwd().startswith(directory):
            os.chdir(_SESSIONS_ROOT)
        shutil.rmtree(directory)


def _enter(directory: str) -> None:
    """Makes ``directory`` the current one, creating it if it is missing.

    It exists on every run but a session's first: ``makedirs`` first would
    cost each run two failing ``mkdir`` calls and their stats."""
    try:
        os.chdir(directory)
    except FileNotFoundError:
        os.makedirs(directory)
        os.chdir(directory)


def _fresh_dir(number: int) -> str:
    """A new directory for fresh runs. Its name starts with a dot, which no
    session's directory does (see :func:`_session_dir`)."""
    return f"{_SESSIONS_ROOT}/.fresh-{number}"


def _free_fresh_dir(directory: str, empty: bool) -> None:
    """Ends a fresh run in ``directory``: left ``empty``, it waits for the next
    fresh run, else it is deleted. The current directory moves out of it, so
    what runs between runs (a callback the code scheduled) cannot write into it."""
    os.chdir(_SESSIONS_ROOT)
    if empty:
        _idle_fresh_dirs.append(directory)
    else:
        import shutil

        shutil.rmtree(directory)


@functools.lru_cache(maxsize=64)
def _session_dir(name: str) -> str:
    """The session's working directory: its name made safe as one path segment."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".") or "_"
    return f"{_SESSIONS_ROOT}/{safe}"


def _checked_path(path: str) -> str:
    """``path`` if it is relative and stays inside the working directory."""
    parts = path.replace("\\", "/").split("/")
    if not path or path.startswith("/") or ".." in parts:
        raise ValueError(f"file path {path!r} must be relative and stay in the working directory")
    return path


def read_file(session: str, path: str) -> str:
    """A file of a session's working directory, base64: for artifacts too big to inline."""
    full = os.path.join(_session_dir(session), _checked_path(path))
    if not os.path.isfile(full):
        # Named as the caller named it: the sessions' own paths are the runner's business.
        raise FileNotFoundError(f"no such file in session {session!r}: {path}")
    with open(full, "rb") as handle:
        return base64.b64encode(handle.read()).decode("ascii")


def _write_inputs(files: list) -> None:
    """Puts the request's files in the current directory, refusing paths that leave it."""
    for item in files:
        path = _checked_path(item["path"])
        if os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(item["content_base64"]))


def _snapshot() -> dict:
    """Size and modification time of every file under the current directory,
    as ``os.walk`` would find them: ``__pycache__`` left out, a directory that
    cannot be read skipped, linked directories not entered. Scanned with
    ``os.scandir`` directly: ``os.walk``'s generators cost every run about
    15 µs more in the browser, on a directory with nothing in it."""
    seen = {}
    _scan(".", "", seen)
    return seen


def _scan(directory: str, prefix: str, seen: dict) -> bool:
    """Adds the files under ``directory`` to ``seen``, their paths starting
    with ``prefix``; says whether ``directory`` may hold anything, listed or
    not (an empty directory, a link to nothing)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return True
    for entry in entries:
        if entry.is_dir():
            if entry.name != "__pycache__" and not entry.is_symlink():
                _scan(entry.path, f"{prefix}{entry.name}/", seen)
        else:
            try:
                info = entry.stat()
            except OSError:
                continue  # a link to nothing: no file to list or to read
            seen[prefix + entry.name] = (info.st_size, info.st_mtime_ns)
    return bool(entries)


def _artifacts(before: dict, after: dict, inline_limit: int) -> list:
    """Files created or changed since ``before``, with their bytes when small enough."""
    found = []
    for path in sorted(after):
        if before.get(path) == after[path]:
            continue
        size = after[path][0]
        content = None
        if size <= inline_limit:
            with open(path, "rb") as handle:
                content = base64.b64encode(handle.read()).decode("ascii")
        found.append({"path": path, "size": size, "mime": _guess_mime(path), "content_base64": content})
    return found


def _guess_mime(path: str) -> str:
    # Imported only once a run has written a file: reading its tables takes
    # ~20 ms, which the first run after start-up paid even when it wrote none.
    import mimetypes

    return mimetypes.guess_type(path)[0] or "application/octet-stream"


def _mime_bundle(obj, text: "str | None" = None) -> dict:
    """``text/plain`` (``text``, when its repr is known already) plus every
    rich representation ``obj`` offers."""
    bundle = {"text/plain": repr(obj) if text is None else text}
    if isinstance(obj, type):
        return bundle  # a class's _repr_*_ are unbound methods, not its representation
    for mime, method in _REPR_METHODS:
        render = getattr(obj, method, None)
        if not callable(render):
            continue
        try:
            data = render()
        except Exception:  # noqa: BLE001 - a broken repr must not fail the run
            continue
        if isinstance(data, tuple):  # (data, metadata), as IPython allows
            data = data[0]
        if data is None:
            continue
        if mime == "image/png":
            data = base64.b64encode(data).decode("ascii") if isinstance(data, bytes) else str(data)
        elif mime == "application/json":
            try:
                data = json.loads(json.dumps(data, allow_nan=False))
            except (TypeError, ValueError):
                continue
        elif isinstance(data, bytes):
            data = data.decode("utf-8", "replace")
        else:
            data = str(data)
        bundle[mime] = data
    return bundle


# -- matplotlib backend -----------------------------------------------------
# matplotlib imports ``module://_sandpit_runner`` and asks it for a canvas
# class, a manager class and ``show``. The classes are Agg's (non-interactive,
# renders to memory); they are looked up lazily so this module never imports
# matplotlib itself.


def __getattr__(name: str):
    if name == "FigureCanvas":
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        return FigureCanvasAgg
    if name == "FigureManager":
        from matplotlib.backend_bases import FigureManagerBase

        return FigureManagerBase
    raise AttributeError(name)


def show(*args, **kwargs) -> None:
    """``plt.show()``: captures the open figures now, in order, then closes them."""
    if _current_displays is not None:
        _capture_figures(_current_displays)


def _capture_figures(displays: "_Displays") -> None:
    """Every open matplotlib figure as an image display output, then closed."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    for number in pyplot.get_fignums():
        figure = pyplot.figure(number)
        buffer = io.BytesIO()
        if displays.figure_format == "svg":
            figure.savefig(buffer, format="svg", bbox_inches="tight")
            displays.add({"text/plain": repr(figure), "image/svg+xml": buffer.getvalue().decode()})
        else:
            figure.savefig(buffer, format="png", bbox_inches="tight")
            png = base64.b64encode(buffer.getvalue()).decode("ascii")
            displays.add({"text/plain": repr(figure), "image/png": png})
    pyplot.close("all")


class _Displays:
    """Rich outputs of one run, within a byte budget."""

    def __init__(self, limit: int, figure_format: str):
        self._room = limit
        self.figure_format = figure_format
        self.bundles: list[dict] = []
        self.truncated = False

    def add(self, bundle: dict) -> None:
        size = len(json.dumps(bundle))
        if size > self._room:
            self.truncated = True
            return
        self._room -= size
        self.bundles.append(bundle)


def display(*objs) -> None:
    """Shows each object in its richest form, like IPython's ``display``."""
    for obj in objs:
        bundle = _mime_bundle(obj)
        if _current_displays is None:
            print(bundle["text/plain"])
        else:
            _current_displays.add(bundle)


class _Capture:
    """Keeps stdout and stderr in write order, up to a byte limit, and streams them.

    Streaming is batched to keep messages few: what waits is sent once it is
    old enough (``_STREAM_FLUSH_SECONDS``) when a line ends (``\n``, or a
    progress bar's ``\r``), when the code flushes, or when the host nudges
    (``_on_nudge``), so output written just before a long computation is not
    held back until the next write. A run that prints fast and ends soon
    streams nothing: its result holds the output. ``eager`` sends every
    completed line, and every flush, at once, for when the worker may be
    terminated mid-run and anything unsent would be lost.

    A print is two writes, so a loop that prints writes thousands of times
    and each write must cost little: it is kept as it came, once, in runs of
    pieces per stream (joined once at the end: appending to one growing
    string would copy it at every print); what is still to be streamed is
    the tail of those runs after the point already sent, not a second copy;
    and the clock is read only where a line ends.
    """

    def __init__(self, limit: int, emit, eager: bool):
        self._room = limit
        self._emit = emit
        self._eager = eager
        self.total = 0
        self.truncated = False
        self._runs: list[tuple[str, list[str]]] = []
        # Streamed so far: runs before this index whole, and this many pieces of it.
        self._sent_run = 0
        self._sent_pieces = 0
        self._pending_bytes = 0
        self._pending_since = 0.0
        # A nudge can come while a flush is half done (see ``flush``).
        self._flushing = False

    def write(self, stream: str, text: str) -> int:
        """Keeps ``text`` (a write to ``stream``); returns its length, as a file's write does."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if not text:
            return 0
        # An ASCII string's length is its size in UTF-8, known without encoding it.
        size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        self.total += size
        kept = text
        if size > self._room:
            self.truncated = True
            kept = _cut(text, self._room)[0] if self._room > 0 else ""
            # The output kept is a prefix of what was written: after a cut
            # inside a character, a later short write must not slip in.
            self._room = 0
            if not kept:
                return len(text)
            size = len(kept.encode("utf-8", "surrogatepass"))
        else:
            self._room -= size
        runs = self._runs
        if runs and runs[-1][0] == stream:
            runs[-1][1].append(kept)
        else:
            runs.append((stream, [kept]))
        if not self._pending_bytes:
            self._pending_since = time.monotonic()
        self._pending_bytes += size
        if "\n" in kept or "\r" in kept:
            # Reading the clock at every write instead cost a loop of prints
            # about a fifth of its time.
            if self._eager:
                self.flush()
            else:
                self.flush_if_due()
        elif self._eager and self._pending_bytes >= _STREAM_FLUSH_BYTES:
            self.flush()
        return len(text)

    def flush_requested(self) -> None:
        """The code flushed (``flush=True``, ``sys.stdout.flush()``)."""
        if self._eager:
            self.flush()
        else:
            self.flush_if_due()

    def flush_if_due(self) -> None:
        """Streams what waits once the oldest of it is old enough."""
        if self._pending_bytes and time.monotonic() - self._pending_since >= _STREAM_FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Streams what was written since the last flush, one message per run of a stream."""
        # A nudge's flush landing inside this one would send the same text twice.
        if not self._pending_bytes or self._flushing:
            return
        self._flushing = True
        try:
            runs = self._runs
            first = self._sent_run
            for index in range(first, len(runs)):
                stream, pieces = runs[index]
                start = self._sent_pieces if index == first else 0
                if start < len(pieces):
                    self._emit(stream, "".join(pieces[start:]))
            self._sent_run = len(runs) - 1
            self._sent_pieces = len(runs[-1][1])
            self._pending_bytes = 0
        finally:
            self._flushing = False

    def output(self) -> list[dict]:
        """The output in write order, one chunk per run of the same stream."""
        return [{"stream": stream, "text": "".join(pieces)} for stream, pieces in self._runs]


def _discard(text: str) -> int:
    return len(text)


class _OutputStream(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` (and their ``sys.__stdout__`` twins)
    during a run: a text stream like CPython's, with ``buffer``, ``encoding``,
    ``errors``, ``line_buffering`` and ``reconfigure``, whose writes go to the
    run's capture.

    There is one of each for the runner's lifetime, pointed at each run's
    capture in turn, so what keeps a reference to it (a ``logging`` handler
    made in an earlier run) writes into the current run. Like CPython's
    in-memory streams it has no file descriptor: ``fileno()`` raises
    ``io.UnsupportedOperation``. ``close()`` only flushes, since the next
    run writes to the same stream.
    """

    mode = "w"
    newlines = None

    def __init__(self, stream: str, errors: str):
        self._stream = stream
        self.name = f"<{stream}>"
        self._encoding, self._errors, self._newline = "utf-8", errors, None
        self.line_buffering = self.write_through = False
        self.buffer = _OutputBuffer(self)
        self._sink, self._flush = _discard, None
        self._plain = True
        self._choose_write()

    encoding = property(lambda self: self._encoding)
    errors = property(lambda self: self._errors)

    def attach(self, capture: _Capture) -> None:
        """Writes go to ``capture`` from now on."""
        self._sink = functools.partial(capture.write, self._stream)
        self._flush = capture.flush_requested
        self._choose_write()

    def detach_to(self, fallback) -> None:
        """Writes go to ``fallback`` (the stream outside runs) from now on."""
        self.buffer.finish()
        usable = fallback is not None and fallback is not self
        self._sink = fallback.write if usable else _discard
        self._flush = getattr(fallback, "flush", None) if usable else None
        self._choose_write()

    def _choose_write(self) -> None:
        # Text in UTF-8 with plain line ends is kept as it came: the capture's
        # own method, with nothing in between, since every print writes twice.
        if self._plain:
            self.write = self._sink
        else:
            self.__dict__.pop("write", None)

    def write(self, text: str) -> int:
        """What a write comes to after ``reconfigure`` changed its encoding or
        line ends: the text as that encoding lets it through."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        converted = text.replace("\n", self._newline) if self._newline in ("\r", "\r\n") else text
        data = converted.encode(self._encoding, self._errors)
        self._sink(data.decode(self._encoding, "replace"))
        return len(text)

    def flush(self) -> None:
        if self._flush is not None:
            self._flush()

    def close(self) -> None:
        self.flush()

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def reconfigure(self, *, encoding=None, errors=None, newline=..., line_buffering=None, write_through=None) -> None:
        """As ``io.TextIOWrapper.reconfigure``: a new encoding resets errors to
        ``strict`` unless they are given too."""
        self.flush()
        if encoding is not None:
            codecs.lookup(encoding)  # LookupError for an unknown one, as CPython
            self._encoding = encoding
            errors = "strict" if errors is None else errors
        if errors is not None:
            if not isinstance(errors, str):
                raise TypeError(f"reconfigure() argument 'errors' must be str, not {type(errors).__name__}")
            self._errors = errors
        if newline is not ...:
            if newline not in (None, "", "\n", "\r", "\r\n"):
                raise ValueError(f"illegal newline value: {newline!r}")
            self._newline = newline
        if line_buffering is not None:
            self.line_buffering = bool(line_buffering)
        if write_through is not None:
            self.write_through = bool(write_through)
        self.buffer.finish()
        self._plain = codecs.lookup(self._encoding).name == "utf-8" and self._newline not in ("\r", "\r\n")
        self._choose_write()


class _OutputBuffer(io.BufferedIOBase):
    """``sys.stdout.buffer``: bytes written here are decoded with the text
    stream's encoding (what is not valid becomes U+FFFD, since output is text)
    and join its output in the order written."""

    mode = "wb"

    def __init__(self, text: _OutputStream):
        self._text = text
        self._decoder = None

    name = property(lambda self: self._text.name)

    def write(self, data) -> int:
        view = memoryview(data)
        if self._decoder is None:
            self._decoder = codecs.getincrementaldecoder(self._text.encoding)("replace")
        decoded = self._decoder.decode(view.tobytes())
        if decoded:
            self._text._sink(decoded)
        return view.nbytes

    def finish(self) -> None:
        """Writes out a character whose bytes are not all in yet, as U+FFFD."""
        if self._decoder is not None:
            rest = self._decoder.decode(b"", final=True)
            self._decoder = None
            if rest:
                self._text._sink(rest)

    def flush(self) -> None:
        self._text.flush()

    def writable(self) -> bool:
        return True


_stdout = _OutputStream("stdout", "strict")
# CPython's stderr escapes what it cannot encode rather than fail.
_stderr = _OutputStream("stderr", "backslashreplace")


def _cut(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", "ignore"), True


def _bounded(call, *args):
    """``call(*args)`` with the recursion limit at most ``_DESCRIBING_DEPTH``
    frames deeper than here, for the runner's calls into the code's methods."""
    limit = sys.getrecursionlimit()
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    sys.setrecursionlimit(min(limit, depth + _DESCRIBING_DEPTH))
    try:
        return call(*args)
    finally:
        sys.setrecursionlimit(limit)


def _safe_repr(value) -> "tuple[str, str | None]":
    """``repr(value)`` and ``None``; or, when that raises, ``object``'s repr
    with a note and why it failed: a broken ``__repr__`` fails no run."""
    if type(value) in _JSON_SCALARS:
        return repr(value), None  # no code of the run's in it
    try:
        return _bounded(repr, value), None
    except BaseException as failure:  # noqa: BLE001 - whatever the code's repr raises, but the host's interrupt
        _reraise_if_stopped(failure)
        reason = _exception_line(failure)
        return f"{object.__repr__(value)} (repr() failed: {reason})", reason


def _describe_value(value, limit: int, shown: "tuple[str, str | None] | None" = None) -> dict:
    """``LastValue`` (src/protocol.rs) of ``value``; ``shown`` is what
    :func:`_safe_repr` gave for it, when that is known already."""
    text, repr_error = _safe_repr(value) if shown is None else shown
    text, truncated = _cut(text, limit)
    as_json = None
    try:
        encoded = json.dumps(value, allow_nan=False)
        if len(encoded) <= limit:
            # A plain string, number, bool or None reads back as itself.
            as_json = value if type(value) in _JSON_SCALARS else json.loads(encoded)
    except (TypeError, ValueError, RecursionError):
        pass
    described = {"repr": text, "json": as_json, "truncated": truncated}
    if repr_error is not None:
        described["repr_error"] = repr_error
    return described


def _on_interrupt(signum, frame) -> None:
    """The SIGINT handler while a job runs: the first SIGINT raises
    ``KeyboardInterrupt`` (or cancels code suspended in an ``await``), later
    ones are ignored.

    The host writes SIGINT into Pyodide's interrupt buffer again and again
    until the run ends (src/runtime/client.rs): Pyodide reads the buffer and
    then zeroes it in two steps, so a write landing between them is lost.
    Only the first that arrives may reach the code, so the runner's own work
    after it (describing the error, putting the result together) is never
    cut short by a repeat."""
    global _interrupted, _stopped_by_host
    if not _interrupted:
        _interrupted = _stopped_by_host = True
        # While the code awaits, Python runs only the event loop's own work
        # (the output ticker, say), where a KeyboardInterrupt would escape
        # the run and cost the interpreter: cancel the code where it waits.
        if _awaiting is not None and _awaiting.stop_waiting():
            return
        signal.default_int_handler(signum, frame)


def _on_nudge(signum, frame) -> None:
    """The ``_nudge_signal`` handler: streams the run's waiting output once
    it is old enough.

    Output is otherwise streamed only when the code writes or flushes, so a
    line printed just before a long computation would wait for the next
    write. The host writes this signal into the interrupt buffer every so
    often while a run goes on (src/runtime/client.rs), and Python calls
    this between two steps of whatever code runs."""
    if _current_capture is not None:
        _current_capture.flush_if_due()


def watch_signals(word) -> None:
    """Receives Pyodide's interrupt buffer from the worker, for ``_sleep``."""
    global _signal_word
    _signal_word = word


def _deliver_signal() -> None:
    """Hands a signal waiting in the interrupt buffer to its Python handler
    now, as Pyodide does when it next looks, which it does not while asleep."""
    signum = _signal_word[0]
    if signum:
        _signal_word[0] = 0
        handler = signal.getsignal(signum)
        if callable(handler):
            handler(signum, sys._getframe(1))


_real_sleep = time.sleep


@functools.wraps(_real_sleep)
def _sleep(seconds):
    # In a browser worker Pyodide's sleep hears neither an interrupt nor the
    # host's nudges: a stopped run would sleep on until the host gives up
    # and terminates its worker, and what it printed just before would wait
    # until it wakes.
    try:
        waits_long = seconds >= _SLEEP_SLICE_SECONDS and math.isfinite(seconds)
    except Exception:  # noqa: BLE001 - not a number: time.sleep says why
        waits_long = False
    if not waits_long:
        _real_sleep(seconds)
        return
    if _current_capture is not None:
        _current_capture.flush()
    if _signal_word is None:
        _real_sleep(seconds)
        return
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        _real_sleep(min(left, _SLEEP_SLICE_SECONDS))
        _deliver_signal()


time.sleep = _sleep


def _is_runner(tb) -> bool:
    return tb.tb_frame.f_code.co_filename == __file__


def _user_traceback(error: BaseException):
    """The traceback without the runner's own frames: the outermost (the
    runner calls the code) and the innermost (its interrupt handler)."""
    tb = error.__traceback__
    while tb is not None and _is_runner(tb):
        tb = tb.tb_next
    last_user = None
    node = tb
    while node is not None:
        if not _is_runner(node):
            last_user = node
        node = node.tb_next
    if last_user is not None:
        last_user.tb_next = None
    return tb


def _lines(code: str) -> list[str]:
    """``code``'s lines as Python numbers them, their ends kept: cut at ``\\n``,
    ``\\r\\n`` and a lone ``\\r`` only. ``str.splitlines`` also cuts at form
    feeds and Unicode line separators, which may sit inside a string."""
    return io.StringIO(code, newline="").readlines()


def _source_around(lines: list[str], line) -> list[dict]:
    if line is None:
        return []
    first = max(1, line - _CONTEXT_LINES)
    last = min(len(lines), line + _CONTEXT_LINES)
    return [{"line": n, "text": lines[n - 1].rstrip("\r\n")} for n in range(first, last + 1)]


def _char_column(lines: list[str], line, byte_offset: int) -> int:
    """A 0-based offset into a line as code positions count it (UTF-8 bytes)
    as a 1-based column in characters, as a ``SyntaxError`` gives it."""
    if line is None or not 0 < line <= len(lines):
        return byte_offset + 1
    encoded = lines[line - 1].encode("utf-8", "surrogatepass")
    return len(encoded[:byte_offset].decode("utf-8", "ignore")) + 1


def _str_or_none(obj) -> "str | None":
    """``str(obj)``, or ``None`` when the code's ``__str__`` fails."""
    try:
        return _bounded(str, obj)
    except BaseException as failure:  # noqa: BLE001 - as traceback does, but the host's interrupt
        _reraise_if_stopped(failure)
        return None


def _message(error: BaseException) -> str:
    """``str(error)``, or what ``traceback`` prints when that fails."""
    text = _str_or_none(error)
    return "<exception str() failed>" if text is None else text


def _exception_line(error: BaseException) -> str:
    """``Type: message`` (only the type when the message is empty), as a
    traceback's last line names a built-in exception."""
    message = _message(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _reraise_if_stopped(failure: BaseException) -> None:
    """Lets the host's interrupt through where the code's own failures are caught."""
    if _stopped_by_host and isinstance(failure, KeyboardInterrupt):
        raise failure


def _hint(error: BaseException):
    if isinstance(error, StdinUnavailableError):
        return {"code": "input_unsupported", "message": _STDIN_ADVICE}
    if isinstance(error, ModuleNotFoundError) and isinstance(error.name, str) and error.name:
        return _import_hint(error.name.split(".")[0])
    return None


def _import_hint(name: str) -> dict:
    """Says why ``import name`` failed and what to do: the four cases models need apart."""
    instead = _ALTERNATIVES.get(name)
    package = _package_of.get(name)
    failure = _load_failures.get(package or name)
    if failure == "blocked":
        return {
            "code": "package_blocked",
            "message": f"Loading the package {package!r} was refused by the network policy.",
        }
    if package is not None and package not in _bundled:
        return {
            "code": "package_needs_network",
            "message": f"{package!r} is a Pyodide package that is downloaded on first use, "
            "and the download failed: the sandbox seems to be offline. "
            "It works once the network is back; offline, only the bundled packages "
            f"({', '.join(sorted(_bundled))}) are available."
            + (f" Offline, {instead}." if instead else ""),
        }
    if package is not None and failure is not None:
        return {
            "code": "module_not_found",
            "message": f"{package!r} ships with Sandpit but failed to load.",
        }
    if package is not None:
        return {
            "code": "module_not_found",
            "message": f"{package!r} ships with Sandpit but was not loaded: packages load "
            f"for the imports the code names. Add `import {name}` to the code, or list "
            f"{package!r} in the run's packages.",
        }
    if instead is not None:
        return {
            "code": "package_unavailable",
            "message": f"{name!r} is not available in this browser sandbox: {instead}.",
        }
    return {
        "code": "module_not_found",
        "message": f"No module {name!r} here and no Pyodide package provides it. "
        "If it is a pure-Python package, `import micropip; await micropip.install(...)` "
        "can fetch it when the network policy allows; otherwise use the standard library.",
    }


def check(code: str) -> str:
    """Compiles ``code`` without running it and says where each import would come from.

    Returns ``CheckReport`` (src/protocol.rs) as JSON: the syntax error shaped
    as a run's error, or the import plan.
    """
    filename = "<check>"
    try:
        compile(code, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as error:
        return json.dumps({"syntax_error": _describe_error(error, filename, code), "imports": []})
    first_line: dict[str, int] = {}
    for node in ast.walk(ast.parse(code, filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            first_line[top] = min(first_line.get(top, node.lineno), node.lineno)
    plans = [_plan(name, line) for name, line in sorted(first_line.items(), key=lambda item: item[1])]
    return json.dumps({"syntax_error": None, "imports": plans})


def _findable(module: str) -> bool:
    """Whether ``module`` is importable now (installed earlier, say with micropip)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _plan(module: str, line: int) -> dict:
    """Where ``import module`` would come from: offline, the network, or nowhere."""
    package = _package_of.get(module)
    plan = {"module": module, "line": line, "package": package}
    if package is not None and package in _bundled:
        return plan | {"availability": "offline", "message": f"{package!r} ships with Sandpit."}
    if package is not None:
        return plan | {
            "availability": "network",
            "message": f"{package!r} is downloaded from the package CDN on first use, "
            "then works offline.",
        }
    if module in sys.stdlib_module_names:
        return plan | {"availability": "offline", "message": "In the standard library."}
    if _findable(module):
        return plan | {"availability": "offline", "message": "Installed in this sandbox."}
    instead = _ALTERNATIVES.get(module)
    return plan | {
        "availability": "unavailable",
        "message": f"Not available in this browser sandbox: {instead}."
        if instead
        else "No Pyodide package provides it. If it is pure Python, "
        "`await micropip.install(...)` can fetch it when the network policy allows.",
    }


#: Most names a completion answer lists.
_COMPLETION_LIMIT = 1000
#: Standard modules a completion never imports to list their names: they act on import.
_NO_IMPORT_TO_COMPLETE = frozenset(("antigravity", "this", "idlelib", "turtledemo", "__hello__", "__phello__"))
#: The end of a line where an import names a module: ``import a, b.c`` or ``from a.b``.
_IMPORTING = re.compile(r"^\s*(?:import\s+(?:[\w.]+\s*(?:as\s+\w+\s*)?,\s*)*|from\s+)([\w.]*)$")
#: ``from module import a, b``: the module whose names complete the end.
_IMPORTING_FROM = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+(?:\(?\s*(?:\w+\s*(?:as\s+\w+\s*)?,\s*)*)(\w*)$")
#: A dotted name ending at the cursor: ``a.b.c`` then the part being typed.
_DOTTED = re.compile(r"(?<![\w.)\]}'\"])((?:[^\W\d]\w*\.)+)(\w*)$")


def complete(session: str, code: str, cursor: int) -> str:
    """Names that could be typed at ``cursor`` (a character offset into
    ``code``): after ``import`` or ``from``, module names; after
    ``from m import``, the names of ``m``; after ``name.``, the attributes
    of what the session holds under that name; elsewhere, the session's
    globals, the builtins and the keywords.

    Returns ``Completions`` (src/protocol.rs) as JSON: the name being typed,
    which the chosen one replaces, and every candidate (the editor filters
    them as typing goes on). Runs none of the session's code: values are
    looked up in dictionaries, never through properties, ``__getattr__`` or
    ``__dir__``. Only a standard module may be imported to list its names.
    """
    line = code[:cursor].rsplit("\n", 1)[-1]
    token = re.search(r"\w*$", line).group()
    names: dict[str, str] = {}
    importing = _IMPORTING.match(line)
    importing_from = _IMPORTING_FROM.match(line)
    dotted = _DOTTED.search(line)
    if importing:
        token = importing.group(1).rsplit(".", 1)[-1]
        names = _module_names(importing.group(1))
    elif importing_from:
        module = _module_to_complete(importing_from.group(1))
        names = {} if module is None else _kinds(_static_attributes(module))
    elif dotted:
        owner = _resolve(_sessions.get(session), dotted.group(1)[:-1])
        names = {} if owner is _MISSING else _kinds(_static_attributes(owner))
    elif not line[: len(line) - len(token)].endswith("."):
        namespace = _session(session).module.__dict__ if session in _sessions else {}
        # A soft keyword that is also a name (``type``, ``_``) is offered as the name.
        names = dict.fromkeys(keyword.kwlist + keyword.softkwlist, "keyword")
        names |= _kinds(vars(builtins)) | _kinds(namespace)
    private = token.startswith("_")
    options = [
        {"name": name, "kind": kind}
        for name, kind in names.items()
        if name.isidentifier() and (private or not name.startswith("_"))
    ]
    return json.dumps({"token": token, "options": options[:_COMPLETION_LIMIT]})


#: What ``_resolve`` returns for a name that leads nowhere.
_MISSING = object()
#: Attributes whose value is computed when read: completion stops at them.
_ATTRIBUTE_DESCRIPTORS = (property, types.GetSetDescriptorType, types.MemberDescriptorType)


def _resolve(session: "_Session | None", dotted: str):
    """The value ``dotted`` names in the session, looked up without running
    code (``inspect.getattr_static``), or ``_MISSING``; a property or other
    computed attribute along the way is ``_MISSING`` too."""
    first, *rest = dotted.split(".")
    namespace = session.module.__dict__ if session is not None else {}
    value = namespace.get(first, vars(builtins).get(first, _MISSING))
    for name in rest:
        if value is _MISSING:
            break
        try:
            value = inspect.getattr_static(value, name)
        except AttributeError:
            return _MISSING
        if issubclass(type(value), _ATTRIBUTE_DESCRIPTORS):
            return _MISSING
    return value


def _static_attributes(value) -> dict:
    """``value``'s attributes by name as ``dir()`` would list them, read from
    the dictionaries of the value and of its classes."""
    is_class = issubclass(type(value), type)
    try:
        owners = type.__getattribute__(value if is_class else type(value), "__mro__")
    except Exception:
        return {}
    found: dict = {}
    for owner in reversed(owners):
        found.update(type.__getattribute__(owner, "__dict__"))
    if not is_class:
        try:
            own = object.__getattribute__(value, "__dict__")
        except Exception:
            own = None
        if type(own) is dict:
            found.update(own)
    return {name: item for name, item in found.items() if type(name) is str}


def _kinds(values: dict) -> dict:
    """Each name's kind of value, as ``CompletionKind`` (src/protocol.rs) names it."""
    return {name: _kind(value) for name, value in values.items()}


def _kind(value) -> str:
    # By the value's type alone: isinstance() may ask the value for its
    # ``__class__``, which runs a class's own ``__getattribute__``.
    kind = type(value)
    if issubclass(kind, types.ModuleType):
        return "module"
    if issubclass(kind, type):
        return "class"
    if issubclass(kind, _ATTRIBUTE_DESCRIPTORS):
        return "property"
    if callable(value) or issubclass(kind, (staticmethod, classmethod)):
        return "function"
    return "variable"


def _module_names(typed: str) -> dict:
    """Modules whose name begins with ``typed``'s package part: top-level
    ones (the standard library, Pyodide's packages, what is installed), or
    the submodules of a package already imported."""
    package, _, _ = typed.rpartition(".")
    if not package:
        names = set(sys.stdlib_module_names) | set(_package_of)
        names |= {name for name in sys.modules if "." not in name}
        return dict.fromkeys(sorted(names), "module")
    prefix = package + "."
    return {
        name[len(prefix) :]: "module"
        for name in sorted(sys.modules)
        if name.startswith(prefix) and "." not in name[len(prefix) :]
    }


def _module_to_complete(name: str):
    """Module ``name`` if it is imported already, or a standard module that
    imports (once) without acting; else ``None``."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    top = name.split(".")[0]
    if top not in sys.stdlib_module_names or top in _NO_IMPORT_TO_COMPLETE:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except Exception:
        return None


def _describe_error(error: BaseException, filename: str, code: str) -> dict:
    lines = _lines(code)
    if isinstance(error, SyntaxError) and error.filename == filename:
        # The code did not compile: the location is the error's own, not a frame's.
        end = error.end_offset if error.end_lineno == error.lineno else None
        return {
            "type": type(error).__name__,
            "message": error.msg,
            "line": error.lineno,
            "column": error.offset,
            "end_column": end if end and error.offset and end > error.offset else None,
            "source": _source_around(lines, error.lineno),
            "traceback": "".join(traceback.format_exception_only(error)),
            "hint": None,
        }
    tb = _user_traceback(error)
    line = column = end_column = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == filename:
            line = frame.lineno
            column = _char_column(lines, line, frame.colno) if frame.colno is not None else None
            same_line = frame.end_lineno == frame.lineno
            end_column = (
                _char_column(lines, line, frame.end_colno)
                if same_line and frame.end_colno is not None
                else None
            )
    trace = "".join(traceback.format_exception(type(error), error, tb))
    innermost = tb
    while innermost is not None and innermost.tb_next is not None:
        innermost = innermost.tb_next
    return {
        "type": type(error).__name__,
        "message": _message(error),
        "line": line,
        "column": column,
        "end_column": end_column,
        "source": _source_around(lines, line),
        "traceback": trace,
        "hint": _hint(error) or _name_hint(error, line, trace, innermost),
    }


def _name_hint(error: BaseException, line, trace: str, tb) -> "dict | None":
    """For a name that is not defined: the name meant, as Python guesses it
    (``Did you mean: 'total'?`` ends the traceback from 3.12 on) or else the
    closest name the failing frame knows, and what to do."""
    name = getattr(error, "name", None) if isinstance(error, NameError) else None
    if not isinstance(name, str) or not name:
        return None
    said = re.search(r"Did you mean: '([^']+)'\?\s*$", trace)
    guess = said.group(1) if said else None
    if guess is None and tb is not None:
        import difflib

        frame = tb.tb_frame
        known = {*frame.f_locals, *frame.f_globals, *frame.f_builtins}
        guess = next(iter(difflib.get_close_matches(name, known, n=1)), None)
    meant = f"Did you mean {guess!r}? " if guess else ""
    where = f" when line {line} runs" if line else ""
    return {
        "code": "undefined_name",
        "message": f"{meant}{name!r} is not defined{where}: fix the spelling, or define it "
        "(assign or import it) before it is used.",
    }


def _exit_code(error: SystemExit, capture: "_Capture") -> int:
    """``sys.exit``'s argument as a process would turn it into an exit code."""
    code = error.code
    if code is None:
        return 0
    if isinstance(code, bool):
        return int(code)
    if isinstance(code, int):
        # As CPython turns it into a process's: the low 32 bits, signed (the
        # protocol's i32); -1 past 64 bits.
        if not -(2**63) <= code < 2**63:
            return -1
        return (code + 2**31) % 2**32 - 2**31
    # CPython prints the argument; it prints nothing when its __str__ fails.
    text = _str_or_none(code)
    if text is not None:
        capture.write("stderr", f"{text}\n")
    return 1


# -- tests and verification --------------------------------------------------
# A run's ``tests`` (RunRequest.tests) run after its code, in the same
# namespace: each top-level ``assert`` is a test, and so is each top-level
# ``def test_*`` (called with no arguments, awaited when ``async``). Asserts
# are rewritten to pass what they evaluate through ``_compared`` or
# ``_noted`` first, so a failed one can show the values it saw, as pytest's
# rewriting does, without evaluating anything twice.

#: Comparison operators a rewritten assert may hold, by their symbol.
_COMPARISONS = {
    ast.Eq: ("==", operator.eq),
    ast.NotEq: ("!=", operator.ne),
    ast.Lt: ("<", operator.lt),
    ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge),
    ast.Is: ("is", operator.is_),
    ast.IsNot: ("is not", operator.is_not),
    ast.In: ("in", lambda item, container: item in container),
    ast.NotIn: ("not in", lambda item, container: item not in container),
}
_COMPARE_BY_SYMBOL = {symbol: compare for symbol, compare in _COMPARISONS.values()}
#: Characters of a value's repr shown in a failed assert's explanation.
_EXPLAINED_REPR_CHARS = 240
#: What the last rewritten assert evaluated: ``(line, symbol, left, right)``
#: for a comparison, ``(line, None, value, None)`` otherwise; ``None`` before any.
_last_check = None


def _compared(line: int, left, symbol: str, right):
    """``left <symbol> right``, noting both sides for a failure's explanation."""
    global _last_check
    _last_check = (line, symbol, left, right)
    return _COMPARE_BY_SYMBOL[symbol](left, right)


def _noted(line: int, value):
    """``value`` itself, noted for a failure's explanation."""
    global _last_check
    _last_check = (line, None, value, None)
    return value


class _AssertRewriter(ast.NodeTransformer):
    """Rewrites ``assert a == b`` (on line 3) into ``assert _compared(3, a,
    "==", b)`` and any other ``assert x`` into ``assert _noted(3, x)``, looked
    up through ``__import__`` so the session's globals gain no name."""

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        test = node.test
        runner = ast.Call(ast.Name("__import__", ast.Load()), [ast.Constant(__name__)], [])
        line = ast.Constant(node.lineno)
        comparison = _COMPARISONS.get(type(test.ops[0])) if isinstance(test, ast.Compare) and len(test.ops) == 1 else None
        if comparison is not None:
            call = ast.Call(
                ast.Attribute(runner, "_compared", ast.Load()),
                [line, test.left, ast.Constant(comparison[0]), test.comparators[0]],
                [],
            )
        else:
            call = ast.Call(ast.Attribute(runner, "_noted", ast.Load()), [line, test], [])
        node.test = ast.fix_missing_locations(ast.copy_location(call, test))
        return node


class _Tests:
    """A run's tests, compiled one top-level statement at a time, and what
    they found (``Verification`` in src/protocol.rs)."""

    def __init__(self, source: str, filename: str):
        self.source, self.filename = source, filename
        self.lines = _lines(source)
        linecache.cache[filename] = (len(source), None, self.lines, filename)
        self.cases: list[dict] = []
        self.not_run: "str | None" = None
        self.started = False
        #: Each top-level statement: (code, its first line, whether it is an
        #: assert, so a test, its line).
        self.steps: list = []
        #: Top-level ``def test_*`` names, in order.
        self.functions: list[str] = []
        #: What each assert tests, by line, for explaining a failure there.
        self.asserts: dict[int, ast.expr] = {}
        self.compile_error: "BaseException | None" = None
        self.awaits = False
        try:
            self._compile()
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:  # ValueError: a null byte, before 3.12
            self.compile_error = error
            self.steps, self.functions = [], []

    def _compile(self) -> None:
        tree = ast.parse(self.source, self.filename, "exec")
        self.asserts = {node.lineno: node.test for node in ast.walk(tree) if isinstance(node, ast.Assert)}
        tree = _AssertRewriter().visit(tree)
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        for node in tree.body:
            code = compile(ast.Module([node], []), self.filename, "exec", flags=flags)
            self.awaits = self.awaits or _awaits(code)
            name = self._segment(node).split("\n", 1)[0]
            self.steps.append((code, name, isinstance(node, ast.Assert), node.lineno))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                self.functions.append(node.name)
                self.awaits = self.awaits or isinstance(node, ast.AsyncFunctionDef)

    def _segment(self, node) -> str:
        text = ast.get_source_segment(self.source, node) or ""
        return text if len(text) <= _EXPLAINED_REPR_CHARS else text[: _EXPLAINED_REPR_CHARS - 1] + "…"

    async def run(self, namespace: dict, job: "_Job") -> None:
        """Runs every test in ``namespace``; a host's stop goes through,
        after noting which tests did not run."""
        self.started = True
        if self.compile_error is not None:
            line = getattr(self.compile_error, "lineno", None) or 1
            self.cases.append(self._failed("tests", line, self.compile_error))
            self.not_run = "The tests do not compile, so none ran."
            return
        for code, name, is_test, line in self.steps:
            failure = await self._run_step(name, is_test, line, job, lambda code=code: eval(code, namespace))
            if failure is not None and not is_test:
                self.not_run = f"Line {line} of the tests raised {failure}, so the tests after it did not run."
                return
        for name in self.functions:
            function = namespace.get(name)
            line = getattr(getattr(function, "__code__", None), "co_firstlineno", 1)
            await self._run_step(name, True, line, job, function if callable(function) else _not_callable(name))

    async def _run_step(self, name: str, is_test: bool, line: int, job: "_Job", call) -> "str | None":
        """Runs one statement or test function, recorded when it is a test
        or when it fails. Returns the exception's type name when it raised."""
        global _last_check
        _last_check = None
        try:
            outcome = call()
            if inspect.iscoroutine(outcome):
                await outcome
        except BaseException as exc:  # noqa: BLE001 - a test's failure is its result; the host's stop goes on
            if (_stopped_by_host and isinstance(exc, KeyboardInterrupt)) or (
                job._stopped and isinstance(exc, asyncio.CancelledError)
            ):
                self.not_run = "The run was stopped before every test had run."
                raise
            self.cases.append(self._failed(name, line, exc))
            return type(exc).__name__
        if is_test:
            self.cases.append({"name": name, "line": line, "passed": True, "error": None, "explanation": None, "compared": None})
        return None

    def _failed(self, name: str, line: int, exc: BaseException) -> dict:
        error = _bounded(_describe_error, exc, self.filename, self.source)
        case = {"name": name, "line": error["line"] or line, "passed": False, "error": error, "explanation": None, "compared": None}
        check, innermost = _last_check, exc.__traceback__
        while innermost is not None and innermost.tb_next is not None:
            innermost = innermost.tb_next
        # Only an assert of the tests that failed itself is explained, not
        # an AssertionError raised further in (by the code's own asserts).
        raised_here = (
            innermost is not None
            and innermost.tb_frame.f_code.co_filename == self.filename
            and check is not None
            and check[0] == innermost.tb_lineno
        )
        if isinstance(exc, AssertionError) and raised_here and check[0] in self.asserts:
            case["explanation"], case["compared"] = self._explain(self.asserts[check[0]], check[1:])
        return case

    def _explain(self, test: ast.expr, check: tuple) -> "tuple[str, dict | None]":
        """What the failed assert saw (``test`` is what it tests), as pytest
        shows it: ``assert 4 == 5`` then ``+  where 4 = add(2, 2)`` for each
        side that is not a literal."""
        symbol, left, right = check
        shown = [(left, test.left if symbol is not None else test)]
        if symbol is not None:
            shown.append((right, test.comparators[0]))
        reprs = [_cut(_safe_repr(value)[0], _EXPLAINED_REPR_CHARS * 4)[0] for value, _ in shown]
        reprs = [text if len(text) <= _EXPLAINED_REPR_CHARS else text[: _EXPLAINED_REPR_CHARS - 1] + "…" for text in reprs]
        head = f"assert {reprs[0]} {symbol} {reprs[1]}" if symbol is not None else f"assert {reprs[0]}"
        lines = [head]
        for text, (_, expression) in zip(reprs, shown):
            source = self._segment(expression)
            if not isinstance(expression, ast.Constant) and source != text:
                lines.append(f" +  where {text} = {source}")
        difference = _first_difference(left, right) if symbol == "==" else None
        if difference:
            lines.append(f" +  {difference}")
        compared = None if symbol is None else {"left": reprs[0], "op": symbol, "right": reprs[1]}
        return "\n".join(lines), compared

    def report(self, outcome: "_Outcome") -> dict:
        """``Verification`` (src/protocol.rs)."""
        not_run = self.not_run
        if self.started and not_run is None and outcome.status != "ok":
            not_run = f"The run ended ({outcome.status}) while the tests ran."
        elif not self.started:
            if outcome.status == "cancelled":
                not_run = "The run was stopped before the tests ran."
            elif outcome.error is not None:
                not_run = f"The code raised {outcome.error['type']}, so no test ran."
            else:
                not_run = "The code ended (sys.exit) before the tests ran."
        passed = not_run is None and all(case["passed"] for case in self.cases)
        return {"passed": passed, "tests": self.cases, "not_run": not_run}


def _not_callable(name: str):
    def fail():
        raise TypeError(f"{name} is not callable")

    return fail


def _first_difference(left, right) -> "str | None":
    """Where two strings or sequences of one type first differ, for an ``==`` that failed."""
    if type(left) is not type(right) or not isinstance(left, (str, bytes, list, tuple)):
        return None
    try:
        for index, (a, b) in enumerate(zip(left, right)):
            if a != b:
                return f"first difference at index {index}: {_safe_repr(a)[0][:80]} != {_safe_repr(b)[0][:80]}"
    except Exception:  # noqa: BLE001 - items whose == fails: no detail
        return None
    if len(left) != len(right):
        longer, extra = ("left", len(left) - len(right)) if len(left) > len(right) else ("right", len(right) - len(left))
        return f"the {longer} side has {extra} more item(s)"
    return None


def _drive(coroutine):
    """Runs a coroutine that never suspends (tests without ``await`` in a run
    without it) to its end, here and now."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError(
        "a test awaited something in a run that does not await: make it `async def test_...`, "
        "or use `await` at the top level of the tests"
    )


def _compile(code: str, filename: str):
    """Compiles ``code`` like a notebook cell: the body, and its last expression apart
    (``None`` when it does not end with one) so that its value can be returned.
    Top-level ``await`` is allowed.

    Most code ends with an expression (a ``print``, a value) on a line of its
    own: that is split off by :func:`_split_last_line` and both parts are
    compiled from source. Only when that fails is the code parsed into a tree
    and the tree compiled, which costs about twice as much: building Python
    objects for every node, then reading them back (about 0.1 ms in the
    browser for a 300-character program). Code that is one statement giving
    no value (a loop, say) has nothing to split off: it is compiled whole."""
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    split = _split_last_line(code)
    if split is not None:
        head, tail = split
        if not head and _one_statement_of_no_expression(code):
            return compile(code, filename, "exec", flags=flags), None
        try:
            # The tail first: when the last line is a statement it fails at
            # once, and the head is then compiled only once, by the tree (so
            # its SyntaxWarnings print once). Blank lines in place of the head
            # keep the tail's line numbers.
            last = compile("\n" * head.count("\n") + tail, filename, "eval", flags=flags)
            return compile(head, filename, "exec", flags=flags), last
        except SyntaxError:
            pass
    tree = ast.parse(code, filename, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, filename, "exec", flags=flags)
    return body, None if last is None else compile(last, filename, "eval", flags=flags)


def _split_last_line(code: str) -> "tuple[str, str] | None":
    """``code`` cut before its last line that starts a statement, as far as a
    look at the lines tells: one that begins at column 0 with neither a
    comment nor a closing bracket. ``None`` when there is no such line.

    The cut can be wrong (the line may lie inside a string or a bracket that
    opened above it), so :func:`_compile` uses it only when the head compiles
    as statements and the tail as one expression. Then it is right: the head
    compiling on its own means nothing is left open where it ends, so the
    tail starts a statement of its own, and that statement is an expression.
    Code with a lone ``\\r`` (a line end that ``str.count`` would miss when
    numbering the tail's lines) is left to the tree."""
    if code.count("\r") != code.count("\r\n"):
        return None
    end = len(code)
    while end > 0:
        start = code.rfind("\n", 0, end) + 1
        if code[start:start + 1] not in _NOT_A_STATEMENT_START:
            return code[:start], code[start:]
        end = start - 1
    return None


def _one_statement_of_no_expression(code: str) -> bool:
    """Whether ``code``, whose only line that starts a statement is its first
    (see :func:`_split_last_line`), is one statement that gives no value (a
    ``pass``, a loop, an import): it begins with a keyword that begins no
    expression, and has no ``;`` (more statements on a line) and no form feed
    (after which a line that looks indented may start a statement)."""
    first = re.match(r"\w+", code)
    return first is not None and first.group() in _STATEMENT_KEYWORDS and ";" not in code and "\f" not in code


def _awaits(compiled) -> bool:
    """Whether compiled code uses top-level ``await`` (evaluating it gives a coroutine)."""
    return compiled is not None and bool(compiled.co_flags & inspect.CO_COROUTINE)


class _Request:
    """A ``RunRequest`` (src/protocol.rs), read from its JSON."""

    __slots__ = ("code", "session", "limits", "files", "figure_format", "fresh", "tests")

    def __init__(self, request_json: str):
        request = json.loads(request_json)
        self.code = request["code"]
        self.tests = request.get("tests")
        self.session = request["session"]
        self.limits = request["limits"]
        self.files = request.get("files", [])
        self.figure_format = request.get("figure_format", "png")
        self.fresh = request.get("fresh", False)


class _Redirection:
    """Points a run's output at its capture and displays (``sys.stdout``,
    ``sys.stderr``, ``display()``, the nudges) and its input at refusals
    (``sys.stdin``, ``input()``), until :meth:`restore`. ``sys.__stdout__``
    and its twins are the same streams meanwhile, as in CPython."""

    def __init__(self, capture: _Capture, displays: _Displays):
        global _current_capture, _current_displays
        self._saved = _streams()
        _stdout.attach(capture)
        _stderr.attach(capture)
        stdin = _NoStdin()
        sys.stdout = sys.__stdout__ = _stdout
        sys.stderr = sys.__stderr__ = _stderr
        sys.stdin = sys.__stdin__ = stdin
        builtins.input = _input
        _current_capture, _current_displays = capture, displays

    def restore(self) -> None:
        """Puts back what was there before (the code may have replaced it).
        Calling it again changes nothing."""
        global _current_capture, _current_displays
        (sys.stdout, sys.stderr, sys.stdin, sys.__stdout__, sys.__stderr__, sys.__stdin__, builtins.input) = self._saved
        _stdout.detach_to(sys.stdout)
        _stderr.detach_to(sys.stderr)
        _current_capture = _current_displays = None


def _streams() -> tuple:
    """The process's streams and ``input``, as :class:`_Redirection` saves them."""
    return sys.stdout, sys.stderr, sys.stdin, sys.__stdout__, sys.__stderr__, sys.__stdin__, builtins.input


class _Outcome:
    """How the code ended (``status``: ok, error or cancelled) and what it left:
    its last value, its error, its ``sys.exit`` code."""

    __slots__ = ("status", "value", "error", "exit_code")

    def __init__(self):
        self.status, self.value, self.error, self.exit_code = "ok", None, None, None


def _run_result(
    outcome: _Outcome,
    capture: _Capture,
    displays: _Displays,
    duration_ms: float,
    artifacts: list,
    files: dict,
    verification: "dict | None" = None,
) -> dict:
    """``RunResult`` (src/protocol.rs) of a finished run; ``files`` is the
    working directory as :func:`_snapshot` sees it after the run."""
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
        "artifacts": artifacts,
        "files": [
            {"path": path, "size": size}
            for path, (size, _) in sorted(files.items())[:_MAX_LISTED_FILES]
        ],
        "restored": None,
        "verification": verification,
    }


def _take_signals() -> None:
    """Makes the runner's handlers those of the host's signals again: the
    code may have replaced them."""
    for number, handler in ((_interrupt_signal, _on_interrupt), (_nudge_signal, _on_nudge)):
        if signal.getsignal(number) is not handler:
            signal.signal(number, handler)


class _Job:
    """One run, from its request to its result.

    Code without top-level ``await`` runs to the end inside :meth:`begin`,
    called straight from the worker: no event-loop turn, which is most of what
    a trivial run would otherwise cost. Code that awaits goes on in a coroutine.
    """

    def __init__(self, request: _Request, emit, eager_output: bool):
        global _run_counter, _interrupted, _stopped_by_host
        # An interrupt that comes before the code starts is ignored; the
        # host's next repeat stops the code.
        _interrupted = True
        _stopped_by_host = False
        _take_signals()
        self.request = request
        _run_counter += 1
        self.filename = f"<run-{_run_counter}>"
        code = request.code
        linecache.cache[self.filename] = (len(code), None, _lines(code), self.filename)
        if request.fresh:
            # A module of its own and an empty directory, both dropped when it ends.
            self.session = _Session()
            self.directory = _idle_fresh_dirs.pop() if _idle_fresh_dirs else _fresh_dir(_run_counter)
        else:
            self.session = _session(request.session)
            self.directory = _session_dir(request.session)
        self.namespace = self.session.module.__dict__
        self.outcome = _Outcome()
        self.capture = _Capture(request.limits["output_bytes"], emit, eager_output)
        self.displays = _Displays(request.limits["display_bytes"], request.figure_format)
        self._stopped = False
        self.tests = None if request.tests is None else _Tests(request.tests, f"<tests-{_run_counter}>")
        self.before = None
        self.left_nothing = False
        _enter(self.directory)
        self.switch = _SessionSwitch(self.session)
        self.redirection = _Redirection(self.capture, self.displays)
        self.started = time.perf_counter()

    def begin(self):
        """Runs the code; returns ``None`` when it has finished, else a coroutine
        that finishes it and returns the result."""
        global _interrupted
        try:
            files = self.request.files
            _write_inputs(files)
            # Files the request brings change the directory: look at it again.
            # A fresh run's directory is known to be empty.
            known = {} if self.request.fresh else _files_after.get(self.directory)
            self.before = None if files else known
            if self.before is None:
                self.before = _snapshot()
            body, last = _compile(self.request.code, self.filename)
            _interrupted = False
            if _awaits(body) or _awaits(last) or (self.tests is not None and self.tests.awaits):
                return self._go_on(body, last)
            exec(body, self.namespace)
            if last is not None:
                self._returned(eval(last, self.namespace))
            if self.tests is not None:
                _drive(self.tests.run(self.namespace, self))
        except BaseException as exc:  # noqa: BLE001 - sorted by _failed, which re-raises the rest
            self._failed(exc)
        return None

    async def _go_on(self, body, last) -> str:
        global _awaiting
        _awaiting = self
        self._task = asyncio.current_task()
        # While the code awaits, no Python runs for the host's nudges to reach.
        self._loop = asyncio.get_running_loop()
        self._ticking = self._loop.call_later(_STREAM_FLUSH_SECONDS, self._tick)
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
            _awaiting = None
        return self.result()

    def stop_waiting(self) -> bool:
        """Cancels the code where it awaits, unless it is the code that runs
        now; says whether it did."""
        if asyncio.current_task(self._loop) is self._task:
            return False
        self._stopped = True
        self._task.cancel()
        return True

    def _tick(self) -> None:
        """Streams waiting output every ``_STREAM_FLUSH_SECONDS`` while awaiting code goes on."""
        self.capture.flush_if_due()
        self._ticking = self._loop.call_later(_STREAM_FLUSH_SECONDS, self._tick)

    def _returned(self, result) -> None:
        if result is None:
            return
        shown = _safe_repr(result)
        self.outcome.value = _describe_value(result, self.request.limits["value_bytes"], shown)
        if type(result) in _BUILTIN_VALUES:
            return  # no rich representation; its repr was just taken
        bundle = _bounded(_mime_bundle, result, shown[0])
        if len(bundle) > 1:
            self.displays.add(bundle)

    def _failed(self, exc: BaseException) -> None:
        try:
            self._sort(exc)
        except KeyboardInterrupt as late:
            # The host's interrupt (a timeout) came while the error was being
            # described: only the first is delivered (`_on_interrupt`), so
            # describing it cannot be cut short.
            self._record("cancelled", late)

    def _record(self, status: str, exc: BaseException) -> None:
        self.outcome.status = status
        self.outcome.error = _bounded(_describe_error, exc, self.filename, self.request.code)

    def _sort(self, exc: BaseException) -> None:
        if isinstance(exc, SystemExit):
            self.outcome.exit_code = _exit_code(exc, self.capture)
        elif (_stopped_by_host and isinstance(exc, KeyboardInterrupt)) or (
            self._stopped and isinstance(exc, asyncio.CancelledError)
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
            _capture_figures(self.displays)
        except Exception as exc:  # noqa: BLE001 - a figure that cannot render must not hide the run
            self.capture.write("stderr", f"Sandpit could not capture a figure: {exc!r}\n")
        self.redirection.restore()
        self.switch.restore()
        # The code may have changed directory, or removed it; files are the session's.
        try:
            moved = os.getcwd() != self.directory
        except OSError:
            moved = True
        if moved:
            _enter(self.directory)
        # The snapshot, and whether the directory holds anything at all.
        after = {}
        self.left_nothing = not _scan(".", "", after)
        if not self.request.fresh:
            _files_after[self.directory] = after
        return after

    def result(self) -> str:
        """``RunResult`` as JSON; a timeout that strikes while it is put together
        stops the run there, as it would have a moment earlier."""
        global _interrupted
        try:
            text = self._result()
        except KeyboardInterrupt as late:
            self._failed(late)
            text = self._result()
        # Until the next run's code starts, no interrupt reaches anything (a
        # repeat that comes after the result, say, or code the event loop runs).
        _interrupted = True
        if self.request.fresh:
            _free_fresh_dir(self.directory, self.left_nothing)
        return text

    def _result(self) -> str:
        after = self._restore()
        artifacts = (
            []
            if self.before is None
            else _artifacts(self.before, after, self.request.limits["artifact_bytes"])
        )
        outcome, capture, displays = self.outcome, self.capture, self.displays
        verification = None if self.tests is None else self.tests.report(outcome)
        # A fresh run's directory is dropped: it leaves no file in the session.
        left = {} if self.request.fresh else after
        return json.dumps(
            _run_result(outcome, capture, displays, self.duration_ms, artifacts, left, verification)
        )


def run(request_json: str, emit, eager_output: bool = False, failures_json: str = "{}"):
    """Runs one request (``RunRequest`` as JSON); returns ``RunResult`` as JSON, or,
    when the code awaits at top level, a coroutine that returns it.

    ``emit(stream, text)`` streams output as it is written; see :class:`_Capture`
    for ``eager_output``. ``failures_json`` names packages whose loading failed.
    """
    global _load_failures
    _load_failures = {} if failures_json == "{}" else json.loads(failures_json)
    job = _Job(_Request(request_json), emit, eager_output)
    going_on = job.begin()
    return job.result() if going_on is None else going_on


builtins.display = display
