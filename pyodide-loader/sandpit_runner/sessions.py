"""Sessions: each its own ``__main__`` module, and its own share of what
CPython keeps once per interpreter."""

import builtins
import collections
import sys
import types
import warnings


class Settings(
    collections.namedtuple("Settings", "recursion_limit warning_filters showwarning formatwarning root_logging")
):
    """What CPython keeps once per interpreter and code may change: the
    recursion limit, the warnings filters and hooks, the root logger's
    handlers and level. Each session keeps its own, as it would with an
    interpreter to itself (sessions share one here). Equal settings compare
    equal, so a run that changed nothing costs no change back."""

    __slots__ = ()

    @classmethod
    def current(cls) -> "Settings":
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


class Session:
    """A named session: its own ``__main__`` module, whose dict holds the
    code's globals, and the settings its last run left (``None`` before
    that: a new session starts with the interpreter's own)."""

    __slots__ = ("module", "settings")

    def __init__(self):
        self.module = types.ModuleType("__main__")
        self.module.__builtins__ = builtins
        self.settings: Settings | None = None


class SessionSwitch:
    """Makes a session the interpreter's for one run: its module is
    ``sys.modules["__main__"]`` (so pickle, doctest and ``import __main__``
    find the code's globals) and its settings are in force, until
    :meth:`restore` keeps what the run left and puts back what was there."""

    def __init__(self, session: Session):
        self._session = session
        self._main = sys.modules.get("__main__")
        self._outside = Settings.current()
        if session.settings is not None and session.settings != self._outside:
            session.settings.apply()
        sys.modules["__main__"] = session.module
        self._restored = False

    def restore(self) -> None:
        """Calling it again changes nothing."""
        if self._restored:
            return
        self._restored = True
        left = self._session.settings = Settings.current()
        if left != self._outside:
            self._outside.apply()
        if self._main is None:
            sys.modules.pop("__main__", None)
        else:
            sys.modules["__main__"] = self._main


class Sessions:
    """The named sessions, made on first use."""

    def __init__(self):
        self._by_name: dict[str, Session] = {}

    def get(self, name: str) -> Session:
        session = self._by_name.get(name)
        if session is None:
            session = self._by_name[name] = Session()
        return session

    def namespace(self, name: str) -> "dict | None":
        """The session's globals, without making it; ``None`` before its first run."""
        session = self._by_name.get(name)
        return None if session is None else session.module.__dict__
