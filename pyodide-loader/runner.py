"""Sandpit's Python side: runs one piece of user code and reports what happened.

The worker installs this file as the module ``_sandpit_runner`` and calls
:func:`run` with a JSON request. The result is returned as JSON whose shape is
``RunResult`` in ``src/protocol.rs``; the browser tests check every result
against the schema generated from that type, so keep the two in step.
"""

import ast
import builtins
import inspect
import json
import linecache
import sys
import time
import traceback

#: Stream output to the host once this many bytes are waiting...
_STREAM_FLUSH_BYTES = 16 * 1024
#: ...or once the oldest waiting output is this old (seconds).
_STREAM_FLUSH_SECONDS = 0.05

#: Globals of each named session.
_sessions: dict[str, dict] = {}
#: Numbers each run's pseudo file name, so tracebacks point at the right run.
_run_counter = 0


def _session_globals(name: str) -> dict:
    namespace = _sessions.get(name)
    if namespace is None:
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        _sessions[name] = namespace
    return namespace


class _Capture:
    """Keeps stdout and stderr in write order, up to a byte limit, and streams them."""

    def __init__(self, limit: int, emit):
        self._limit = limit
        self._emit = emit
        self._kept = 0
        self.total = 0
        self.truncated = False
        self.chunks: list[dict] = []
        self._pending: list[tuple[str, str]] = []
        self._pending_bytes = 0
        self._pending_since = 0.0

    def write(self, stream: str, text: str) -> None:
        if not text:
            return
        data = text.encode("utf-8", "surrogatepass")
        self.total += len(data)
        room = self._limit - self._kept
        if room <= 0:
            self.truncated = True
            return
        if len(data) > room:
            self.truncated = True
            text = data[:room].decode("utf-8", "ignore")
            data = text.encode("utf-8", "surrogatepass")
        self._kept += len(data)
        if self.chunks and self.chunks[-1]["stream"] == stream:
            self.chunks[-1]["text"] += text
        else:
            self.chunks.append({"stream": stream, "text": text})
        self._queue(stream, text, len(data))

    def _queue(self, stream: str, text: str, size: int) -> None:
        if not self._pending:
            self._pending_since = time.monotonic()
        if self._pending and self._pending[-1][0] == stream:
            self._pending[-1] = (stream, self._pending[-1][1] + text)
        else:
            self._pending.append((stream, text))
        self._pending_bytes += size
        if (
            self._pending_bytes >= _STREAM_FLUSH_BYTES
            or time.monotonic() - self._pending_since >= _STREAM_FLUSH_SECONDS
        ):
            self.flush()

    def flush(self) -> None:
        pending, self._pending, self._pending_bytes = self._pending, [], 0
        for stream, text in pending:
            self._emit(stream, text)

    def text_of(self, stream: str) -> str:
        return "".join(c["text"] for c in self.chunks if c["stream"] == stream)


class _StreamWriter:
    """A text file object for ``sys.stdout``/``sys.stderr`` that writes into a capture."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, capture: _Capture, name: str):
        self._capture = capture
        self.name = f"<{name}>"
        self._stream = name

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._capture.write(self._stream, text)
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False


def _cut(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", "ignore"), True


def _describe_value(value, limit: int) -> dict:
    text, truncated = _cut(repr(value), limit)
    as_json = None
    try:
        encoded = json.dumps(value, allow_nan=False)
        if len(encoded) <= limit:
            as_json = json.loads(encoded)
    except (TypeError, ValueError, RecursionError):
        pass
    return {"repr": text, "json": as_json, "truncated": truncated}


def _user_traceback(error: BaseException):
    """The traceback with the runner's own frames (always the outermost) removed."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return tb


def _describe_error(error: BaseException, filename: str) -> dict:
    if isinstance(error, SyntaxError) and error.filename == filename:
        # The code did not compile: the location is the error's own, not a frame's.
        return {
            "type": type(error).__name__,
            "message": error.msg,
            "line": error.lineno,
            "column": error.offset,
            "traceback": "".join(traceback.format_exception_only(error)),
        }
    tb = _user_traceback(error)
    line = column = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == filename:
            line = frame.lineno
            column = frame.colno + 1 if frame.colno is not None else None
    return {
        "type": type(error).__name__,
        "message": str(error),
        "line": line,
        "column": column,
        "traceback": "".join(traceback.format_exception(type(error), error, tb)),
    }


async def _execute(code: str, filename: str, namespace: dict):
    """Runs ``code`` like a notebook cell: top-level await allowed, last expression returned."""
    tree = ast.parse(code, filename, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    outcome = eval(compile(tree, filename, "exec", flags=flags), namespace)
    if inspect.iscoroutine(outcome):
        await outcome
    if last is None:
        return None
    outcome = eval(compile(last, filename, "eval", flags=flags), namespace)
    if inspect.iscoroutine(outcome):
        outcome = await outcome
    return outcome


async def run(request_json: str, emit) -> str:
    """Runs one request (``RunRequest`` as JSON); returns ``RunResult`` as JSON."""
    global _run_counter
    request = json.loads(request_json)
    limits = request["limits"]
    _run_counter += 1
    filename = f"<run-{_run_counter}>"
    code = request["code"]
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)

    capture = _Capture(limits["output_bytes"], emit)
    saved = sys.stdout, sys.stderr
    sys.stdout = _StreamWriter(capture, "stdout")
    sys.stderr = _StreamWriter(capture, "stderr")
    value = error = None
    started = time.perf_counter()
    try:
        result = await _execute(code, filename, _session_globals(request["session"]))
        if result is not None:
            value = _describe_value(result, limits["value_bytes"])
    except Exception as exc:  # noqa: BLE001 - every user error is reported, none escapes
        error = _describe_error(exc, filename)
    finally:
        duration_ms = (time.perf_counter() - started) * 1000
        sys.stdout, sys.stderr = saved
        capture.flush()

    return json.dumps(
        {
            "status": "ok" if error is None else "error",
            "stdout": capture.text_of("stdout"),
            "stderr": capture.text_of("stderr"),
            "output": capture.chunks,
            "value": value,
            "error": error,
            "duration_ms": duration_ms,
            "truncated": {
                "output": capture.truncated,
                "output_bytes_total": capture.total,
            },
        }
    )
