"""A run's output: stdout and stderr kept in write order up to a byte limit,
and streamed to the host in batches."""

import codecs
import time

#: Stream output to the host once the oldest waiting output is this old
#: (seconds): looked at when a line ends, when the code flushes, and at the
#: host's nudges while the code runs (a sleep sends what waits at once).
STREAM_FLUSH_SECONDS = 0.05
#: ...and, where every line is sent at once (``eager``), once this many bytes
#: of a line wait.
STREAM_FLUSH_BYTES = 16 * 1024


class Capture:
    """Keeps stdout and stderr in write order, up to a byte limit, and streams them.

    Streaming is batched to keep messages few: what waits is sent once it is
    old enough (``STREAM_FLUSH_SECONDS``) when a line ends (``\n``, or a
    progress bar's ``\r``), when the code flushes, or when the host nudges
    (signals.py), so output written just before a long computation is not
    held back until the next write. A run that prints fast and ends soon
    streams nothing: its result holds the output. ``eager`` sends every
    completed line, and every flush, at once, for when the worker may be
    terminated mid-run and anything unsent would be lost.

    A print is two writes, so a loop that prints writes thousands of times
    and each write must cost little: it is kept as it came, once, in runs of
    pieces per stream (joined once at the end: appending to one growing
    string would copy it at every print); what is still to be streamed is
    the tail of those runs after the point already sent, not a second copy;
    and the clock is read only where a line ends.
    """

    def __init__(self, limit: int, emit, eager: bool):
        self._room = limit
        self._emit = emit
        self._eager = eager
        self.total = 0
        self.truncated = False
        self._runs: list[tuple[str, list[bytes]]] = []
        # Streamed so far: runs before this index whole, and this many pieces of it.
        self._sent_run = 0
        self._sent_pieces = 0
        self._pending_bytes = 0
        self._pending_since = 0.0
        # A nudge can come while a flush is half done (see ``flush``).
        self._flushing = False
        # Streamed text is decoded as it goes: a character's bytes written
        # apart to ``sys.stdout.buffer`` may be streamed apart.
        self._decoders: dict = {}

    def write(self, stream: str, text: str) -> int:
        """Keeps ``text`` (a write to ``stream``); returns its length, as a file's write does."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.write_bytes(stream, text.encode("utf-8", "surrogatepass"))
        return len(text)

    def write_bytes(self, stream: str, data) -> int:
        """Keeps ``data``, text encoded in UTF-8 (a write to ``stream``'s
        buffer); returns its size. The text streams hand their writes here
        with nothing in between, since every print writes twice."""
        if type(data) is not bytes:
            data = bytes(memoryview(data))
        size = len(data)
        if not size:
            return 0
        self.total += size
        kept = data
        if size > self._room:
            self.truncated = True
            kept = utf8_prefix(data, self._room)
            # The output kept is a prefix of what was written: after a cut
            # inside a character, a later short write must not slip in.
            self._room = 0
            if not kept:
                return size
        else:
            self._room -= size
        runs = self._runs
        if runs and runs[-1][0] == stream:
            runs[-1][1].append(kept)
        else:
            runs.append((stream, [kept]))
        if not self._pending_bytes:
            self._pending_since = time.monotonic()
        self._pending_bytes += len(kept)
        if 10 in kept or 13 in kept:  # a "\n" or "\r": a byte looked up as its number is found fastest
            # The clock is read only where a line ends: a loop of prints
            # writes too often to read it at every write.
            if self._eager:
                self.flush()
            else:
                self.flush_if_due()
        elif self._eager and self._pending_bytes >= STREAM_FLUSH_BYTES:
            self.flush()
        return size

    def flush_requested(self) -> None:
        """The code flushed (``flush=True``, ``sys.stdout.flush()``)."""
        if self._eager:
            self.flush()
        else:
            self.flush_if_due()

    def flush_if_due(self) -> None:
        """Streams what waits once the oldest of it is old enough."""
        if self._pending_bytes and time.monotonic() - self._pending_since >= STREAM_FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Streams what was written since the last flush, one message per run of a stream."""
        # A nudge's flush landing inside this one would send the same text twice.
        if not self._pending_bytes or self._flushing:
            return
        self._flushing = True
        try:
            runs = self._runs
            first = self._sent_run
            for index in range(first, len(runs)):
                stream, pieces = runs[index]
                start = self._sent_pieces if index == first else 0
                if start < len(pieces):
                    text = self._streamed_text(stream, b"".join(pieces[start:]))
                    if text:
                        self._emit(stream, text)
            self._sent_run = len(runs) - 1
            self._sent_pieces = len(runs[-1][1])
            self._pending_bytes = 0
        finally:
            self._flushing = False

    def _streamed_text(self, stream: str, data: bytes) -> str:
        """``data``, written to ``stream`` after what was streamed of it
        before, as text; bytes of a character that are not all in yet wait
        for the next flush."""
        decoder = self._decoders.get(stream)
        if decoder is None:
            try:
                return data.decode("utf-8", "surrogatepass")
            except UnicodeDecodeError:
                decoder = self._decoders[stream] = codecs.getincrementaldecoder("utf-8")("replace")
        text = decoder.decode(data)
        if not decoder.getstate()[0]:
            del self._decoders[stream]
        return text

    def output(self) -> list[dict]:
        """The output in write order, one chunk per run of the same stream."""
        return [{"stream": stream, "text": as_text(b"".join(pieces))} for stream, pieces in self._runs]


def as_text(data: bytes) -> str:
    """Output's bytes as text: what is not UTF-8 (bytes the code wrote to a
    stream's buffer) becomes U+FFFD; lone surrogates the runner wrote stay."""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace")


def utf8_prefix(data: bytes, limit: int) -> bytes:
    """The longest start of ``data``, at most ``limit`` bytes, that does not
    end inside a character."""
    end = max(limit, 0)
    if end >= len(data):
        return data
    while end > 0 and data[end] & 0xC0 == 0x80:  # a continuation byte: the character began before
        end -= 1
    return data[:end]
