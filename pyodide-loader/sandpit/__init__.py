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

from . import host, verify
from .host import HostFunctionError
from .verify import VerificationError

__all__ = ["HostFunctionError", "VerificationError", "host", "verify"]
