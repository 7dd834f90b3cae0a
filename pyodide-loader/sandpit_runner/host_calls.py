"""A run's calls to the embedding page's functions (``sandpit.host``): each
goes to the worker, which asks the host, and each is listed in the result.

The host decides everything that bounds a call (which names, whether this
run may call at all, how many calls, how large, the schema): the code can
reach the worker's bridge without this module, so a check here would only
be a second, weaker copy. What is decided here is how Python waits: in
code that awaits (a task is running) the call is awaitable; elsewhere the
interpreter's stack is suspended until the answer (``run_sync``), where
the browser can (JSPI)."""

import asyncio
import json
import time

from sandpit.host import HostFunctionError

#: Characters of a call's arguments (JSON) kept in the result's list.
ARGUMENTS_KEPT = 200


def _capped(text: str) -> str:
    return text if len(text) <= ARGUMENTS_KEPT else text[: ARGUMENTS_KEPT - 1] + "…"


class HostCalls:
    """The calls of one run: ``bridge(name, arguments_json, form)`` is
    the worker's, a JS promise of ``{value, error}``; ``functions`` the
    request's ``host_functions``; ``refusal`` says why this run makes no
    call at all (a fix's trial), if it does not."""

    def __init__(self, bridge, functions: list, refusal: "str | None" = None):
        self.bridge = bridge
        self.functions = functions
        self.refusal = refusal
        #: ``HostCallRecord``s, in the order the calls were answered.
        self.records = []

    def call(self, name: str, arguments: dict):
        """The value of ``name(**arguments)``, or in code that awaits an awaitable of it."""
        try:
            text = json.dumps(arguments, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"host.{name}: arguments cross as JSON: {exc}") from None
        awaiting = _in_task()
        form = "await" if awaiting else "sync"
        if self.refusal is not None or self.bridge is None:
            why = self.refusal or "no embedding page offers functions here"
            self._record(name, text, time.perf_counter(), form, {"kind": "refused", "message": why})
            raise HostFunctionError(why, name, "refused")
        if awaiting:
            return self._awaited(name, text)
        return self._blocking(name, text)

    async def _awaited(self, name: str, text: str):
        started = time.perf_counter()
        try:
            reply = await self.bridge(name, text, "await")
        except asyncio.CancelledError:
            self._record(name, text, started, "await", {"kind": "cancelled", "message": "the run was stopped"})
            raise
        return self._settle(name, text, started, "await", reply)

    def _blocking(self, name: str, text: str):
        started = time.perf_counter()
        run_sync = _suspender()
        if run_sync is None:
            why = (
                f"host.{name}(...) without `await` needs a browser that can suspend Python "
                f"(JS promise integration): write `await host.{name}(...)` in async code"
            )
            self._record(name, text, started, "sync", {"kind": "refused", "message": why})
            raise HostFunctionError(why, name, "refused")
        reply = run_sync(self.bridge(name, text, "sync"))
        return self._settle(name, text, started, "sync", reply)

    def _settle(self, name: str, text: str, started: float, form: str, reply):
        error = reply.error
        # JS null reaches Python as Pyodide's `jsnull`, which is false, not None.
        if error:
            error = {"kind": error.kind, "message": error.message}
            self._record(name, text, started, form, error)
            raise HostFunctionError(error["message"], name, error["kind"])
        self._record(name, text, started, form, None)
        return json.loads(reply.value)

    def _record(self, name: str, text: str, started: float, form: str, error: "dict | None") -> None:
        self.records.append(
            {
                "name": name,
                "arguments": _capped(text),
                "ms": (time.perf_counter() - started) * 1000,
                "ok": error is None,
                "error": error,
                "form": form,
            }
        )


def _suspender():
    """Pyodide's ``run_sync`` where the stack can be suspended here, else ``None``."""
    try:
        from pyodide.ffi import can_run_sync, run_sync
    except ImportError:
        return None
    return run_sync if can_run_sync() else None


def _in_task() -> bool:
    try:
        return asyncio.current_task() is not None
    except RuntimeError:
        return False
