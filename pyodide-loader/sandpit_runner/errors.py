"""An error shaped for repair (``RunError`` in src/protocol/): type,
message, where in the code, the lines around it, a traceback without the
runner's frames, and a hint for the cases a model needs told apart."""

import io
import os
import re
import traceback

from .streams import STDIN_ADVICE, StdinUnavailableError
from .values import message, str_or_none

#: Lines of code shown above and below the failing line.
CONTEXT_LINES = 2

#: Where the runner's own code lives, and the ``sandpit`` module the code
#: imports: their frames are left out of a traceback.
_OURS = tuple(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), name) + os.sep
    for name in ("sandpit_runner", "sandpit")
)


def is_ours(filename: str) -> bool:
    """Whether code of ``filename`` is the runner's or ``sandpit``'s, not the run's."""
    return filename.startswith(_OURS)


def user_traceback(error: BaseException):
    """The traceback without the runner's own frames: the outermost (the
    runner calls the code) and the innermost (its interrupt handler, a
    check of ``sandpit.verify`` that failed)."""
    tb = error.__traceback__
    while tb is not None and is_ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    last_user = None
    node = tb
    while node is not None:
        if not is_ours(node.tb_frame.f_code.co_filename):
            last_user = node
        node = node.tb_next
    if last_user is not None:
        last_user.tb_next = None
    return tb


def lines(code: str) -> list[str]:
    """``code``'s lines as Python numbers them, their ends kept: cut at ``\\n``,
    ``\\r\\n`` and a lone ``\\r`` only. ``str.splitlines`` also cuts at form
    feeds and Unicode line separators, which may sit inside a string."""
    return io.StringIO(code, newline="").readlines()


def source_around(code_lines: list[str], line) -> list[dict]:
    if line is None:
        return []
    first = max(1, line - CONTEXT_LINES)
    last = min(len(code_lines), line + CONTEXT_LINES)
    return [{"line": n, "text": code_lines[n - 1].rstrip("\r\n")} for n in range(first, last + 1)]


def char_column(code_lines: list[str], line, byte_offset: int) -> int:
    """A 0-based offset into a line as code positions count it (UTF-8 bytes)
    as a 1-based column in characters, as a ``SyntaxError`` gives it."""
    if line is None or not 0 < line <= len(code_lines):
        return byte_offset + 1
    encoded = code_lines[line - 1].encode("utf-8", "surrogatepass")
    return len(encoded[:byte_offset].decode("utf-8", "ignore")) + 1


def describe_error(error: BaseException, filename: str, code: str, interrupts, packages) -> dict:
    """``RunError`` of ``error``, raised by ``code`` compiled as ``filename``."""
    code_lines = lines(code)
    if isinstance(error, SyntaxError) and error.filename == filename:
        # The code did not compile: the location is the error's own, not a frame's.
        end = error.end_offset if error.end_lineno == error.lineno else None
        return {
            "type": type(error).__name__,
            "message": error.msg,
            "line": error.lineno,
            "column": error.offset,
            "end_column": end if end and error.offset and end > error.offset else None,
            "source": source_around(code_lines, error.lineno),
            "traceback": "".join(traceback.format_exception_only(error)),
            "hint": None,
        }
    tb = user_traceback(error)
    line = column = end_column = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == filename:
            line = frame.lineno
            column = char_column(code_lines, line, frame.colno) if frame.colno is not None else None
            same_line = frame.end_lineno == frame.lineno
            end_column = (
                char_column(code_lines, line, frame.end_colno) if same_line and frame.end_colno is not None else None
            )
    trace = "".join(traceback.format_exception(type(error), error, tb))
    innermost = tb
    while innermost is not None and innermost.tb_next is not None:
        innermost = innermost.tb_next
    return {
        "type": type(error).__name__,
        "message": message(error, interrupts),
        "line": line,
        "column": column,
        "end_column": end_column,
        "source": source_around(code_lines, line),
        "traceback": trace,
        "hint": hint(error, packages) or name_hint(error, line, trace, innermost),
    }


def hint(error: BaseException, packages) -> "dict | None":
    if isinstance(error, StdinUnavailableError):
        return {"code": "input_unsupported", "message": STDIN_ADVICE}
    if isinstance(error, ModuleNotFoundError) and isinstance(error.name, str) and error.name:
        return packages.import_hint(error.name.split(".")[0])
    return None


def name_hint(error: BaseException, line, trace: str, tb) -> "dict | None":
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


def exit_code(error: SystemExit, capture, interrupts) -> int:
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
    text = str_or_none(code, interrupts)
    if text is not None:
        capture.write("stderr", f"{text}\n")
    return 1
