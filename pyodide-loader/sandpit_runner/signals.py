"""The host's signals: one stops the running code, the other has its waiting
output streamed; and a ``time.sleep`` that hears both."""

import math
import signal
import sys
import time

#: A sleep looks at the interrupt buffer this often (seconds), since
#: Pyodide's own sleep does not; a shorter sleep is Pyodide's.
SLEEP_SLICE_SECONDS = 0.05


class Interrupts:
    """The signals the host writes into Pyodide's interrupt buffer (their
    numbers come from the worker, which has them from src/names.rs) and what
    they reach: the run in progress, its output, the code it awaits.

    The host writes the interrupt again and again until the run ends
    (src/runtime/client.rs): Pyodide reads the buffer and then zeroes it in
    two steps, so a write landing between them is lost. Only the first that
    arrives may reach the code (``armed``), so the runner's own work after it
    (describing the error, putting the result together) is never cut short
    by a repeat."""

    def __init__(self):
        self.interrupt_signal: int | None = None
        self.nudge_signal: int | None = None
        #: Pyodide's interrupt buffer (an ``Int32Array``), when the page has one.
        self.word = None
        #: Whether a ``KeyboardInterrupt`` may reach Python: only from the
        #: start of a run's code until its first interrupt or its result.
        self.armed = False
        #: Whether the host's interrupt reached the run in progress: only then
        #: is a ``KeyboardInterrupt`` a cancellation rather than the code's own error.
        self.by_host = False
        #: The run whose code awaits at top level, while it goes on.
        self.awaiting = None
        #: Output of the run in progress, which a nudge or a sleep streams.
        self.capture = None
        self._real_sleep = time.sleep

    def configure(self, interrupt_signal: int, nudge_signal: int) -> None:
        self.interrupt_signal, self.nudge_signal = interrupt_signal, nudge_signal

    def install(self) -> None:
        """Makes ``time.sleep`` one that the host's signals reach."""
        if time.sleep is not self.sleep:
            self._real_sleep = time.sleep
            time.sleep = self.sleep

    def uninstall(self) -> None:
        if time.sleep is self.sleep:
            time.sleep = self._real_sleep

    def new_run(self) -> None:
        """A run begins: an interrupt that comes before its code starts is
        ignored (the host's next repeat stops the code), and the handlers are
        the runner's again, since earlier code may have replaced them."""
        self.armed = self.by_host = False
        for number, handler in ((self.interrupt_signal, self.on_interrupt), (self.nudge_signal, self.on_nudge)):
            if number is not None and signal.getsignal(number) != handler:
                signal.signal(number, handler)

    def reraise_if_stopped(self, failure: BaseException) -> None:
        """Lets the host's interrupt through where the code's own failures are caught."""
        if self.by_host and isinstance(failure, KeyboardInterrupt):
            raise failure

    def on_interrupt(self, signum, frame) -> None:
        """The first interrupt of a run raises ``KeyboardInterrupt`` (or
        cancels code suspended in an ``await``); later ones are ignored."""
        if self.armed:
            self.armed = False
            self.by_host = True
            # While the code awaits, Python runs only the event loop's own work
            # (the output ticker, say), where a KeyboardInterrupt would escape
            # the run and cost the interpreter: cancel the code where it waits.
            if self.awaiting is not None and self.awaiting.stop_waiting():
                return
            signal.default_int_handler(signum, frame)

    def on_nudge(self, signum, frame) -> None:
        """Streams the run's waiting output once it is old enough: output is
        otherwise streamed only when the code writes or flushes, so a line
        printed just before a long computation would wait for the next write."""
        if self.capture is not None:
            self.capture.flush_if_due()

    def deliver(self) -> None:
        """Hands a signal waiting in the interrupt buffer to its Python handler
        now, as Pyodide does when it next looks, which it does not while asleep."""
        signum = self.word[0]
        if signum:
            self.word[0] = 0
            handler = signal.getsignal(signum)
            if callable(handler):
                handler(signum, sys._getframe(1))

    def sleep(self, seconds) -> None:
        """``time.sleep``. In a browser worker Pyodide's sleep hears neither an
        interrupt nor the host's nudges: a stopped run would sleep on until the
        host terminates its worker, and what it printed just before would
        wait until it wakes."""
        try:
            waits_long = seconds >= SLEEP_SLICE_SECONDS and math.isfinite(seconds)
        except Exception:  # noqa: BLE001 - not a number: time.sleep says why
            waits_long = False
        if not waits_long:
            self._real_sleep(seconds)
            return
        if self.capture is not None:
            self.capture.flush()
        if self.word is None:
            self._real_sleep(seconds)
            return
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self._real_sleep(min(left, SLEEP_SLICE_SECONDS))
            self.deliver()
