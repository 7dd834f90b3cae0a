"""Sandpit's module for the code it runs.

- ``sandpit.verify``: checks for a program's tests beyond plain asserts:
  formulas (symbolically, then numerically with a counterexample), numbers
  within tolerances, the figures the run drew.
- ``sandpit.host``: the functions the embedding page registered, callable
  from Python (``await host.lookup(city="Paris")``); a failed call raises
  ``sandpit.HostFunctionError``.

``from sandpit import verify``, then ``assert verify.equivalent("sin(x)**2 +
cos(x)**2", "1", "x")`` in a run's tests (or anywhere in its code).
"""

from . import host
from .host import HostFunctionError

__all__ = ["HostFunctionError", "VerificationError", "host", "verify"]


def __getattr__(name: str):
    """``verify`` and its ``VerificationError``, imported on first use: the
    runner imports this package for ``host`` at start, and most runs check nothing."""
    import importlib  # here, so that dir(sandpit) does not list it

    if name == "verify":
        return importlib.import_module(".verify", __name__)
    if name == "VerificationError":
        return importlib.import_module(".verify", __name__).VerificationError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    """The names, ``verify``'s too before it is imported, for completions."""
    return sorted(set(globals()) | set(__all__))
