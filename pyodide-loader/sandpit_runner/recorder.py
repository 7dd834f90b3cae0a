"""The asserts' recorder: what a run's rewritten asserts (verification.py)
evaluated, kept where they find it. It is installed when the runner starts,
so it lives apart from the tests' machinery, which loads on a run's first tests."""

import operator

#: Where the rewritten asserts find the runner's :class:`AssertRecorder`:
#: its name in ``sys.modules``, so that a session's globals gain no name.
RECORDER_MODULE = "_sandpit_asserts"

#: What each comparison symbol a rewritten assert may hold does.
COMPARE_BY_SYMBOL = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "is": operator.is_,
    "is not": operator.is_not,
    "in": lambda item, container: item in container,
    "not in": lambda item, container: item not in container,
}


class AssertRecorder:
    """What the last rewritten assert evaluated: ``(line, symbol, left,
    right)`` for a comparison, ``(line, None, value, None)`` otherwise;
    ``None`` before any."""

    def __init__(self):
        self.last = None

    def compared(self, line: int, left, symbol: str, right):
        """``left <symbol> right``, noting both sides for a failure's explanation."""
        self.last = (line, symbol, left, right)
        return COMPARE_BY_SYMBOL[symbol](left, right)

    def noted(self, line: int, value):
        """``value`` itself, noted for a failure's explanation."""
        self.last = (line, None, value, None)
        return value
