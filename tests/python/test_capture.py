"""Output capture: stdout and stderr kept in write order up to a byte limit
(``Capture``), written through the text streams ``sys.stdout`` and
``sys.stderr`` are during a run (``output_stream``, its ``buffer``), and
streamed in batches whose timing is decided by a clock the test moves."""

import io

import pytest
from harness import capture as capturing
from harness import signals, streams

FLUSH = capturing.STREAM_FLUSH_SECONDS


class Sink:
    """The worker's ``emit``: what was streamed, in order."""

    def __init__(self):
        self.sent = []

    def __call__(self, stream, text):
        self.sent.append((stream, text))


def capture(limit=1000, eager=False):
    sink = Sink()
    return capturing.Capture(limit, sink, eager), sink


def stream(kept, name="stdout", errors="strict"):
    """A text stream as a run's ``sys.stdout`` (or stderr) is, writing into ``kept``."""
    made = streams.output_stream(name, errors)
    made.buffer.attach(kept)
    return made


class TestKeeping:
    def test_output_in_write_order_one_chunk_per_run_of_a_stream(self):
        kept, _ = capture()
        for stream, text in [("stdout", "a"), ("stdout", "b\n"), ("stderr", "oops\n"), ("stdout", "c")]:
            assert kept.write(stream, text) == len(text)
        assert kept.output() == [
            {"stream": "stdout", "text": "ab\n"},
            {"stream": "stderr", "text": "oops\n"},
            {"stream": "stdout", "text": "c"},
        ]
        assert (kept.total, kept.truncated) == (9, False)

    def test_an_empty_write_keeps_nothing(self):
        kept, _ = capture()
        assert kept.write("stdout", "") == 0
        assert kept.output() == []

    def test_only_text_may_be_written(self):
        kept, _ = capture()
        with pytest.raises(TypeError, match="must be str, not bytes"):
            kept.write("stdout", b"x")

    def test_output_past_the_limit_is_dropped_and_counted(self):
        kept, _ = capture(limit=10)
        kept.write("stdout", "12345678")
        assert kept.write("stderr", "abcdef") == 6  # a write reports its whole length
        kept.write("stdout", "more")
        assert kept.output() == [{"stream": "stdout", "text": "12345678"}, {"stream": "stderr", "text": "ab"}]
        assert (kept.total, kept.truncated) == (18, True)

    def test_the_limit_counts_utf8_bytes_and_never_cuts_a_character(self):
        kept, _ = capture(limit=5)
        kept.write("stdout", "éé€")  # 2 + 2 + 3 bytes
        assert kept.output() == [{"stream": "stdout", "text": "éé"}]
        assert (kept.total, kept.truncated) == (7, True)

    def test_nothing_after_a_cut_slips_in(self):
        # The cut above left a byte of room: a later short write stays out,
        # so the output is what was written first.
        kept, _ = capture(limit=5)
        kept.write("stdout", "éé€")
        kept.write("stderr", "!")
        kept.write("stdout", "x")
        assert kept.output() == [{"stream": "stdout", "text": "éé"}]
        assert kept.total == 9

    def test_a_cut_that_keeps_nothing_leaves_no_empty_chunk(self):
        kept, sink = capture(limit=1, eager=True)
        kept.write("stdout", "€\n")
        assert kept.output() == [] and sink.sent == []
        assert kept.truncated

    def test_lone_surrogates_are_counted_not_refused(self):
        kept, _ = capture()
        kept.write("stdout", "\udc80")
        assert kept.total == 3
        assert kept.output() == [{"stream": "stdout", "text": "\udc80"}]


class TestBatching:
    def test_a_line_is_held_until_the_oldest_waiting_output_is_old_enough(self, clock):
        kept, sink = capture()
        kept.write("stdout", "a\n")
        clock.now += FLUSH / 2
        kept.write("stdout", "b\n")
        assert sink.sent == []
        clock.now += FLUSH / 2
        kept.write("stdout", "c")  # no line end: the clock is not even looked at
        assert sink.sent == []
        kept.write("stdout", "\n")
        assert sink.sent == [("stdout", "a\nb\nc\n")]

    def test_a_carriage_return_ends_a_line_for_progress_bars(self, clock):
        kept, sink = capture()
        kept.write("stderr", " 10%")
        clock.now += FLUSH
        kept.write("stderr", "\r 20%")
        assert sink.sent == [("stderr", " 10%\r 20%")]

    def test_a_flush_sends_each_run_of_a_stream_once(self, clock):
        kept, sink = capture()
        kept.write("stdout", "a\n")
        kept.write("stderr", "b\n")
        kept.write("stdout", "c")
        kept.flush()
        kept.flush()  # nothing new: nothing sent
        kept.write("stdout", "d\n")
        kept.flush()
        assert sink.sent == [("stdout", "a\n"), ("stderr", "b\n"), ("stdout", "c"), ("stdout", "d\n")]
        # What was streamed is still all in the result.
        assert "".join(chunk["text"] for chunk in kept.output()) == "a\nb\ncd\n"

    def test_the_codes_flush_sends_once_due(self, clock):
        kept, sink = capture()
        writer = stream(kept)
        writer.write("working")
        writer.flush()
        assert sink.sent == []
        clock.now += FLUSH
        writer.flush()
        assert sink.sent == [("stdout", "working")]

    def test_a_nudge_sends_what_waits_once_due(self, clock, host_signals):
        kept, sink = capture()
        interrupts = signals.Interrupts()
        interrupts.configure(*host_signals)
        interrupts.capture = kept
        kept.write("stdout", "before a long computation\n")
        interrupts.on_nudge(interrupts.nudge_signal, None)
        assert sink.sent == []
        clock.now += FLUSH
        interrupts.on_nudge(interrupts.nudge_signal, None)
        assert sink.sent == [("stdout", "before a long computation\n")]

    def test_eager_output_sends_every_line_and_flush_at_once(self, clock):
        kept, sink = capture(eager=True)
        kept.write("stdout", "a")
        assert sink.sent == []
        kept.write("stdout", "\n")
        kept.write("stdout", "b")
        kept.flush_requested()
        assert sink.sent == [("stdout", "a\n"), ("stdout", "b")]

    def test_eager_output_sends_a_long_line_in_pieces(self, clock):
        kept, sink = capture(limit=1 << 20, eager=True)
        piece = "x" * 1024
        writes = capturing.STREAM_FLUSH_BYTES // len(piece)
        for _ in range(writes - 1):
            kept.write("stdout", piece)
        assert sink.sent == []
        kept.write("stdout", piece)
        assert sink.sent == [("stdout", piece * writes)]

    def test_a_flush_inside_a_flush_sends_nothing_twice(self, clock):
        # A nudge may land while a flush is emitting.
        sink = Sink()

        def emit(stream, text):
            sink(stream, text)
            kept.flush()

        kept = capturing.Capture(1000, emit, False)
        kept.write("stdout", "a")
        kept.write("stderr", "b")
        kept.flush()
        assert sink.sent == [("stdout", "a"), ("stderr", "b")]


class TestOutputStream:
    def test_print_writes_through_it(self):
        kept, _ = capture()
        out, err = stream(kept), stream(kept, "stderr")
        print("x", 1, file=out)
        print("warning", file=err)
        out.writelines(["a", "b\n"])
        assert kept.output() == [
            {"stream": "stdout", "text": "x 1\n"},
            {"stream": "stderr", "text": "warning\n"},
            {"stream": "stdout", "text": "ab\n"},
        ]

    def test_it_looks_like_cpythons_text_stream_that_is_no_terminal(self):
        writer = stream(capture()[0], "stderr", "backslashreplace")
        assert isinstance(writer, io.TextIOBase)
        assert (writer.name, writer.encoding, writer.errors, writer.mode) == (
            "<stderr>",
            "utf-8",
            "backslashreplace",
            "w",
        )
        assert (writer.line_buffering, writer.write_through, writer.newlines) == (False, False, None)
        assert writer.writable() and not writer.readable() and not writer.isatty() and not writer.seekable()
        assert isinstance(writer.buffer, io.BufferedIOBase) and writer.buffer.writable()

    def test_it_is_cpythons_own_text_stream_type(self):
        writer = stream(capture()[0])
        assert type(writer) is io.TextIOWrapper
        assert isinstance(writer, io.TextIOWrapper)

    def test_it_has_the_file_descriptors_cpythons_streams_have(self):
        out, err = stream(capture()[0]), stream(capture()[0], "stderr")
        assert (out.fileno(), out.buffer.fileno(), err.fileno()) == (1, 1, 2)

    def test_every_write_reaches_the_capture_in_order_whatever_the_buffering(self):
        kept, _ = capture()
        out, err = stream(kept), stream(kept, "stderr")
        out.reconfigure(write_through=False, line_buffering=False)
        out.write("a")
        err.write("b")
        out.write("c")
        assert kept.output() == [
            {"stream": "stdout", "text": "a"},
            {"stream": "stderr", "text": "b"},
            {"stream": "stdout", "text": "c"},
        ]

    def test_a_stream_reconfigured_to_another_encoding_writes_text_in_it(self):
        kept, _ = capture()
        writer = stream(kept)
        writer.reconfigure(encoding="latin-1")
        writer.write("é")
        writer.buffer.write("è".encode("latin-1"))
        writer.reconfigure(encoding="utf-16")
        writer.write("ü")
        assert kept.output() == [{"stream": "stdout", "text": "éèü"}]

    def test_a_write_of_bytes_is_refused_as_cpython_refuses_it(self):
        with pytest.raises(TypeError, match="must be str, not bytes"):
            stream(capture()[0]).write(b"x")

    def test_bytes_written_to_its_buffer_join_the_text_in_order(self):
        kept, _ = capture()
        writer = stream(kept)
        writer.write("a")
        assert writer.buffer.write(b"b\xc3") == 2
        writer.buffer.write(memoryview(b"\xa9c"))
        writer.write("d")
        assert kept.output() == [{"stream": "stdout", "text": "abécd"}]

    def test_bytes_that_are_no_text_become_replacement_characters(self):
        kept, _ = capture()
        writer = stream(kept)
        writer.buffer.write(b"\xff!\xc3")
        # A character cut short when the run ends is not lost either.
        writer.buffer.detach_to(None)
        assert kept.output() == [{"stream": "stdout", "text": "\ufffd!\ufffd"}]

    def test_reconfigure_changes_the_encoding_and_errors_as_cpython(self):
        kept, _ = capture()
        writer = stream(kept)
        writer.reconfigure(encoding="ascii")
        assert (writer.encoding, writer.errors) == ("ascii", "strict")
        with pytest.raises(UnicodeEncodeError):
            writer.write("é")
        writer.reconfigure(errors="replace")
        writer.write("é!")
        writer.reconfigure(encoding="utf-8")
        writer.write("é")
        assert kept.output() == [{"stream": "stdout", "text": "?!é"}]
        with pytest.raises(LookupError):
            writer.reconfigure(encoding="no-such-codec")

    def test_reconfigure_sets_line_ends_and_buffering(self):
        kept, _ = capture()
        writer = stream(kept)
        writer.reconfigure(newline="\r\n", line_buffering=True, write_through=True)
        print("a", file=writer)
        assert (writer.line_buffering, writer.write_through) == (True, True)
        writer.reconfigure(newline=None)
        print("b", file=writer)
        assert kept.output() == [{"stream": "stdout", "text": "a\r\nb\n"}]
        with pytest.raises(ValueError, match="illegal newline"):
            writer.reconfigure(newline="x")

    def test_between_runs_it_writes_where_the_process_writes(self, capsys):
        import sys

        kept, _ = capture()
        writer = stream(kept)
        writer.buffer.detach_to(sys.stdout)
        print("later", file=writer)
        writer.close()
        print("still open", file=writer)
        assert capsys.readouterr().out == "later\nstill open\n"
        assert kept.output() == []
