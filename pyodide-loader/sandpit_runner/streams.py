"""What a run's code reads and writes as the process's streams: ``sys.stdout``
and ``sys.stderr`` as CPython has them (text wrappers over a buffer the
runner owns) writing into the run's capture, and a stdin that refuses."""

import builtins
import codecs
import functools
import io
import sys


class StdinUnavailableError(EOFError):
    """Raised by ``input()`` and stdin reads: a sandbox has nobody to type an answer.

    An ``EOFError`` so that code reading until end of input simply stops.
    """


STDIN_MESSAGE = "input() is not supported here: the sandbox has no stdin"
STDIN_ADVICE = (
    "Nobody can type an answer in a sandbox: put the input in the code "
    "(a variable or a file) instead of calling input() or reading stdin."
)


class NoStdin:
    """``sys.stdin`` during a run: every read fails at once instead of hanging."""

    encoding = "utf-8"
    name = "<stdin>"

    def _refuse(self, *args, **kwargs):
        raise StdinUnavailableError(STDIN_MESSAGE)

    read = readline = readlines = __next__ = _refuse

    def __iter__(self):
        return self

    def isatty(self) -> bool:
        return False

    def readable(self) -> bool:
        return True


def refuse_input(prompt: object = "") -> str:
    """``input()`` during a run: shows the prompt, then refuses."""
    if prompt:
        sys.stdout.write(str(prompt))
    raise StdinUnavailableError(STDIN_MESSAGE)


def _discard(text: str) -> int:
    return len(text)


#: File descriptors CPython's streams have, which ``fileno()`` answers.
_FILENOS = {"stdout": 1, "stderr": 2}


class OutputSink(io.BufferedIOBase):
    """The buffer under ``sys.stdout`` or ``sys.stderr``: bytes in, into the
    run's capture in the order written, or between runs to the process's
    own stream.

    The text stream hands it every write at once (see :func:`output_stream`),
    so stdout and stderr stay in write order. While the stream's encoding is
    UTF-8, a run's bytes go to the capture with nothing in between, since
    every print writes twice; otherwise they are decoded with that encoding
    (what is not valid becomes U+FFFD, since output is text). ``close()``
    only flushes: the next run writes to the same stream, and so does
    whatever keeps a reference to it (a ``logging`` handler made in an
    earlier run)."""

    mode = "wb"

    def __init__(self, stream: str):
        self.stream = stream
        self.name = f"<{stream}>"
        self.text: io.TextIOWrapper | None = None
        self._capture = None
        self._fallback, self._flush = _discard, None
        # Set while bytes of a character written to the buffer are not all in.
        self._decoder = None

    def attach(self, capture) -> None:
        """Writes go to ``capture`` from now on."""
        self._capture = capture
        self._flush = capture.flush_requested
        self.choose_write()

    def detach_to(self, fallback) -> None:
        """Writes go to ``fallback`` (the stream outside runs) from now on."""
        self.finish()
        self._capture = None
        usable = fallback is not None and fallback is not self.text
        self._fallback = fallback.write if usable else _discard
        self._flush = getattr(fallback, "flush", None) if usable else None
        self.choose_write()

    def choose_write(self) -> None:
        """Picks how writes are carried, for the target and the text stream's encoding now."""
        if self._capture is not None and codecs.lookup(self.text.encoding).name == "utf-8":
            self.write = functools.partial(self._capture.write_bytes, self.stream)
        else:
            self.__dict__.pop("write", None)

    def write(self, data) -> int:
        """A write decoded with the text stream's encoding."""
        if self._decoder is None:
            try:
                text = str(data, self.text.encoding)
            except UnicodeDecodeError:
                self._decoder = codecs.getincrementaldecoder(self.text.encoding)("replace")
                text = self._decoder.decode(bytes(data))
        else:
            text = self._decoder.decode(bytes(data))
        if text:
            self._put(text)
        return memoryview(data).nbytes

    def _put(self, text: str) -> None:
        if self._capture is not None:
            self._capture.write(self.stream, text)
        else:
            self._fallback(text)

    def finish(self) -> None:
        """Writes out a character whose bytes are not all in yet, as U+FFFD."""
        if self._decoder is not None:
            rest = self._decoder.decode(b"", final=True)
            self._decoder = None
            if rest:
                self._put(rest)

    def flush(self) -> None:
        if self._flush is not None:
            self._flush()

    def close(self) -> None:
        self.flush()

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return _FILENOS[self.stream]


def output_stream(stream: str, errors: str) -> io.TextIOWrapper:
    """``sys.stdout`` (``stream`` "stdout") or ``sys.stderr`` for the runner's
    lifetime: CPython's text stream for a file that is no terminal, over an
    :class:`OutputSink`. Its chunk size of one byte hands every write to the
    sink at once, whatever ``write_through`` says; ``reconfigure`` also
    tells the sink, whose way of carrying writes depends on the encoding."""
    sink = OutputSink(stream)
    text = io.TextIOWrapper(sink, encoding="utf-8", errors=errors)
    text._CHUNK_SIZE = 1
    text.mode = "w"
    sink.text = text
    reconfigure = text.reconfigure

    @functools.wraps(reconfigure)
    def reconfigured(*args, **kwargs):
        reconfigure(*args, **kwargs)
        sink.choose_write()

    text.reconfigure = reconfigured
    return text


def process_streams() -> tuple:
    """The process's streams and ``input``, as :class:`Redirection` saves them."""
    return sys.stdout, sys.stderr, sys.stdin, sys.__stdout__, sys.__stderr__, sys.__stdin__, builtins.input


class Redirection:
    """Points the process's output at a run's capture (``sys.stdout``,
    ``sys.stderr``) and its input at refusals (``sys.stdin``, ``input()``),
    until :meth:`restore`. ``sys.__stdout__`` and its twins are the same
    streams meanwhile, as in CPython."""

    def __init__(self, capture, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper):
        self._saved = process_streams()
        self._streams = stdout, stderr
        for stream in self._streams:
            stream.buffer.attach(capture)
        sys.stdout = sys.__stdout__ = stdout
        sys.stderr = sys.__stderr__ = stderr
        sys.stdin = sys.__stdin__ = NoStdin()
        builtins.input = refuse_input

    def restore(self) -> None:
        """Puts back what was there before (the code may have replaced it).
        Calling it again changes nothing."""
        (sys.stdout, sys.stderr, sys.stdin, sys.__stdout__, sys.__stderr__, sys.__stdin__, builtins.input) = self._saved
        for stream, fallback in zip(self._streams, (sys.stdout, sys.stderr), strict=True):
            stream.buffer.detach_to(fallback)
