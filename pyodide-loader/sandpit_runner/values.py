"""The code's values as a result shows them: a repr that cannot fail a run,
and JSON when the value has one (``LastValue`` in src/protocol/)."""

import json
import sys

#: Values of these exact types are their own JSON (see ``describe_value``).
JSON_SCALARS = frozenset((str, int, float, bool, type(None)))
#: Built-in types, whose values have no ``_repr_*_`` methods to look for.
BUILTIN_VALUES = JSON_SCALARS | {bytes, complex, list, tuple, dict, set, frozenset, range}

#: How many frames deeper than the runner the code's ``__str__`` and
#: ``__repr__`` may recurse when the runner calls them. Recursion through C
#: code (a ``__str__`` that calls ``str(self)``) overflows the browser's stack
#: well before the default limit stops it, and the interpreter dies with it;
#: under this bound it is a ``RecursionError``.
DESCRIBING_DEPTH = 200


def cut(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` UTF-8 bytes, never inside a character;
    and whether it was cut."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", "ignore"), True


def bounded(call, *args):
    """``call(*args)`` with the recursion limit at most ``DESCRIBING_DEPTH``
    frames deeper than here, for the runner's calls into the code's methods."""
    limit = sys.getrecursionlimit()
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    sys.setrecursionlimit(min(limit, depth + DESCRIBING_DEPTH))
    try:
        return call(*args)
    finally:
        sys.setrecursionlimit(limit)


def safe_repr(value, interrupts) -> "tuple[str, str | None]":
    """``repr(value)`` and ``None``; or, when that raises, ``object``'s repr
    with a note and why it failed: a broken ``__repr__`` fails no run. The
    host's interrupt (``interrupts``, see signals.py) still goes through."""
    if type(value) in JSON_SCALARS:
        return repr(value), None  # no code of the run's in it
    try:
        return bounded(repr, value), None
    except BaseException as failure:  # noqa: BLE001 - whatever the code's repr raises, but the host's interrupt
        interrupts.reraise_if_stopped(failure)
        reason = exception_line(failure, interrupts)
        return f"{object.__repr__(value)} (repr() failed: {reason})", reason


def str_or_none(obj, interrupts) -> "str | None":
    """``str(obj)``, or ``None`` when the code's ``__str__`` fails."""
    try:
        return bounded(str, obj)
    except BaseException as failure:  # noqa: BLE001 - as traceback does, but the host's interrupt
        interrupts.reraise_if_stopped(failure)
        return None


def message(error: BaseException, interrupts) -> str:
    """``str(error)``, or what ``traceback`` prints when that fails."""
    text = str_or_none(error, interrupts)
    return "<exception str() failed>" if text is None else text


def exception_line(error: BaseException, interrupts) -> str:
    """``Type: message`` (only the type when the message is empty), as a
    traceback's last line names a built-in exception."""
    text = message(error, interrupts)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def describe_value(value, limit: int, shown: "tuple[str, str | None]") -> dict:
    """``LastValue`` of ``value``; ``shown`` is what :func:`safe_repr` gave for it."""
    text, repr_error = shown
    text, truncated = cut(text, limit)
    as_json = None
    try:
        encoded = json.dumps(value, allow_nan=False)
        if len(encoded) <= limit:
            # A plain string, number, bool or None reads back as itself.
            as_json = value if type(value) in JSON_SCALARS else json.loads(encoded)
    except (TypeError, ValueError, RecursionError):
        pass
    described = {"repr": text, "json": as_json, "truncated": truncated}
    if repr_error is not None:
        described["repr_error"] = repr_error
    return described
