"""Proposes a fix for a failed program and proves it before offering it:
candidates in order, each compiled, then tried (see trial.py) in a
throwaway namespace and a copy of the session's files, within a time
budget. A fix whose trial does not run clean may be offered, but never as
verified; a fix that needs a second one (two missing imports, say) is
followed for a few steps."""

import ast
import math
import time

from . import runtime, syntax
from .edits import Source, unified_diff

#: How many fixes one proposal may chain (the second import after the first).
MAX_STEPS = 3
#: How many candidates one proposal may try in all.
MAX_TRIES = 8
#: Why a check's fixes are not verified.
_NOT_RUN = "not tried: a check runs nothing (run the fixed program to prove it)"


class Proposal:
    """One search for a fix of ``code``: ``try_program(code)`` runs a
    candidate program and returns a :class:`~sandpit_runner.fixes.trial.Outcome`
    (``None`` for none: nothing is run, as for a check)."""

    def __init__(self, code: str, modules, try_program=None):
        self.code = code
        self.modules = modules
        self.try_program = try_program
        self.tries = 0
        self.fallback = None
        #: Seconds spent in trials so far.
        self.trial_seconds = 0.0

    def for_error(self, error: BaseException, filename: str) -> "dict | None":
        """A ``Fix`` for ``error``, raised by ``self.code`` compiled as ``filename``."""
        found = self._search(self.code, error, filename, [], 0) or self.fallback
        if found is not None:
            found["trial_ms"] = math.ceil(self.trial_seconds * 1000)  # every trial it took, the fallback's too
        return found

    def for_candidate(self, candidate) -> "dict | None":
        """A ``Fix`` made of one candidate (a lint's), tried as any other;
        ``None`` when the fixed program does not compile."""
        fixed = candidate.apply(self.code)
        try:
            compile(fixed, "<fix>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if self.try_program is None:
            return self._fix(fixed, [candidate.summary], None, "not_run", _NOT_RUN)
        outcome = self._try(fixed)
        return self._fix(fixed, [candidate.summary], outcome, outcome.status, outcome.message)

    def _search(self, code: str, error: BaseException, filename: str, steps: list, depth: int):
        """Each candidate alone first; then, in the same order, the fixes of
        the next error a candidate led to, a step deeper."""
        further = []
        for candidate in self._candidates(code, error, filename):
            if self.tries >= MAX_TRIES:
                break
            self.tries += 1
            fixed = candidate.apply(code)
            done = [*steps, candidate.summary]
            try:
                compile(fixed, "<fix>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
            except SyntaxError as next_error:
                if _later(next_error, error):
                    further.append((fixed, next_error, "<fix>", done))
                continue
            except (ValueError, RecursionError, MemoryError):
                continue
            if self.try_program is None:
                self._keep(self._fix(fixed, done, None, "not_run", _NOT_RUN))
                continue
            outcome = self._try(fixed)
            if outcome.clean:
                return self._fix(fixed, done, outcome, "ok", "")
            if outcome.failure is not None and _differs(outcome.failure, error):
                further.append((fixed, outcome.failure, outcome.filename, done))
            if outcome.progressed(error):
                self._keep(self._fix(fixed, done, outcome, outcome.status, outcome.message))
        if depth + 1 < MAX_STEPS:
            for fixed, next_error, next_filename, done in further:
                found = self._search(fixed, next_error, next_filename, done, depth + 1)
                if found is not None and (found["verified"] or self.try_program is None):
                    return found
        return None

    def _try(self, fixed: str):
        started = time.perf_counter()
        try:
            return self.try_program(fixed)
        finally:
            self.trial_seconds += time.perf_counter() - started

    def _candidates(self, code: str, error: BaseException, filename: str) -> list:
        source = Source(code)
        if isinstance(error, SyntaxError) and error.filename == filename:
            return syntax.candidates(error, source)
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
        return runtime.candidates(error, runtime.Site(error, filename), source, tree, self.modules)

    def _keep(self, fix: dict) -> None:
        if self.fallback is None:
            self.fallback = fix

    def _fix(self, fixed: str, steps: list, outcome, status: str, message: str) -> dict:
        verified = outcome is not None and outcome.clean
        return {
            "summary": "; ".join(steps),
            "code": fixed,
            "diff": unified_diff(self.code, fixed),
            "verified": verified,
            "outcome": None
            if verified
            else {"status": status, "error_type": getattr(outcome, "error_type", None), "message": message},
            "trial_ms": math.ceil(self.trial_seconds * 1000),
        }


def _later(new: SyntaxError, old: BaseException) -> bool:
    """Whether a syntax error after a fix is further on than the one fixed:
    the fix got past it."""
    if not isinstance(old, SyntaxError):
        return True
    return (new.lineno or 0, new.offset or 0) > (old.lineno or 0, old.offset or 0)


def _differs(new: BaseException, old: BaseException) -> bool:
    return type(new) is not type(old) or str(new) != str(old)
