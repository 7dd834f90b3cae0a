"""A run's parts: the request read (``_Request``), the streams pointed at the
run and back (``_Redirection``), the result put together (``_Outcome``,
``_run_result``), and whole runs through ``run`` as the worker calls it."""

import asyncio
import json
import sys

import pytest
from harness import LIMITS, UnderTest, assert_shape, capture, display, files, job, request, run, streams


def ignore(stream, text):
    """An ``emit`` for captures whose streaming is not looked at."""


class TestRequest:
    def test_fields_and_their_defaults(self):
        parsed = job.Request(request("1 + 1", "s1"))
        assert (parsed.code, parsed.session, parsed.limits) == ("1 + 1", "s1", LIMITS)
        assert (parsed.files, parsed.figure_format) == ([], "png")

    def test_given_fields_are_kept(self):
        files = [{"path": "a", "content_base64": ""}]
        parsed = job.Request(request("x", files=files, figure_format="svg", packages=["numpy"]))
        assert (parsed.files, parsed.figure_format) == (files, "svg")

    def test_a_request_without_code_is_refused(self):
        with pytest.raises(KeyError):
            job.Request(json.dumps({"session": "s", "limits": LIMITS}))


def redirect(kept) -> streams.Redirection:
    """The process's streams pointed at ``kept``, as a run points them."""
    return streams.Redirection(
        kept, streams.output_stream("stdout", "strict"), streams.output_stream("stderr", "strict")
    )


class TestRedirection:
    def test_output_goes_to_the_run_and_input_is_refused_until_restored(self, capsys):
        before = streams.process_streams()
        kept = capture.Capture(1000, ignore, False)
        redirection = redirect(kept)
        try:
            # As in CPython, the streams a run starts with are also sys.__stdout__ and its twins.
            assert (sys.stdout, sys.stderr, sys.stdin) == (sys.__stdout__, sys.__stderr__, sys.__stdin__)
            print("out")
            print("err", file=sys.stderr)
            with pytest.raises(streams.StdinUnavailableError):
                input("name? ")
            with pytest.raises(EOFError):
                sys.stdin.readline()
        finally:
            redirection.restore()
        assert streams.process_streams() == before
        assert kept.output() == [
            {"stream": "stdout", "text": "out\n"},
            {"stream": "stderr", "text": "err\n"},
            {"stream": "stdout", "text": "name? "},
        ]
        assert capsys.readouterr() == ("", "")

    def test_restoring_again_puts_back_the_same_streams(self):
        before = sys.stdout
        redirection = redirect(capture.Capture(10, ignore, False))
        redirection.restore()
        sys.stdout = replaced = object()
        try:
            redirection.restore()
            assert sys.stdout is before
        finally:
            if sys.stdout is replaced:
                sys.stdout = before

    def test_reading_stdin_line_by_line_stops_at_once(self):
        redirection = redirect(capture.Capture(10, ignore, False))
        try:
            with pytest.raises(EOFError):
                for _ in sys.stdin:
                    pass
        finally:
            redirection.restore()


class TestRunResult:
    def test_the_parts_of_a_run_make_a_run_result(self):
        kept = capture.Capture(5, ignore, False)
        kept.write("stdout", "hello world")
        displays = display.Displays(1000, "png")
        displays.add({"text/plain": "d"})
        outcome = job.Outcome()
        outcome.status, outcome.exit_code = "error", 3
        outcome.error = {"type": "E", "message": "", "source": [], "traceback": ""}
        artifacts = [{"path": "a", "size": 1, "mime": "text/plain", "content_base64": "eA=="}]
        listing = {"b": (2, 0), "a": (1, 0)}
        result = job.run_result(outcome, kept, displays, 1.5, artifacts, listing)
        assert_shape(result, "RunResult")
        assert result == {
            "status": "error",
            "stdout": "",
            "stderr": "",
            "output": [{"stream": "stdout", "text": "hello"}],
            "value": None,
            "displays": [{"text/plain": "d"}],
            "error": outcome.error,
            "exit_code": 3,
            "duration_ms": 1.5,
            "truncated": {"output": True, "output_bytes_total": 11, "displays": False},
            "blocked": [],
            "artifacts": artifacts,
            "files": [{"path": "a", "size": 1}, {"path": "b", "size": 2}],
            "restored": None,
            "verification": None,
        }
        assert_shape(result["truncated"], "Truncation")

    def test_the_file_list_is_capped(self):
        listing = {f"f{n:05}": (0, 0) for n in range(files.MAX_LISTED_FILES + 5)}
        result = job.run_result(
            job.Outcome(), capture.Capture(1, ignore, False), display.Displays(1, "png"), 0.0, [], listing
        )
        assert len(result["files"]) == files.MAX_LISTED_FILES
        assert result["files"][-1]["path"] == f"f{files.MAX_LISTED_FILES - 1:05}"


@pytest.mark.usefixtures("sandbox")
class TestRun:
    def test_a_trivial_run(self):
        result = run("print('hi')\n6 * 7")
        assert result["status"] == "ok"
        assert result["output"] == [{"stream": "stdout", "text": "hi\n"}]
        assert result["value"] == {"repr": "42", "json": 42, "truncated": False}
        assert result["duration_ms"] >= 0
        assert (result["error"], result["exit_code"], result["displays"]) == (None, None, [])

    def test_a_fresh_run_sees_nothing_of_its_session_and_leaves_nothing_behind(self, sandbox):
        run("x = 1\nopen('kept.txt', 'w').write('k')", session="lane")
        fresh = run("open('own.txt', 'w').write('o')\n'x' in globals()", session="lane", fresh=True)
        assert (fresh["status"], fresh["value"]["json"]) == ("ok", False)
        assert [a["path"] for a in fresh["artifacts"]] == ["own.txt"]
        assert fresh["files"] == [], "its directory is gone with it"
        after = run("import os\nsorted(os.listdir()), x", session="lane")
        assert after["value"]["json"] == [["kept.txt"], 1]
        assert sorted(p.name for p in sandbox.iterdir()) == ["lane"]

    def test_globals_last_within_a_session_and_no_further(self):
        run("x = 41", session="one")
        assert run("x + 1", session="one")["value"]["json"] == 42
        other = run("x", session="two")
        assert (other["status"], other["error"]["type"]) == ("error", "NameError")

    def test_the_processs_streams_are_back_after_every_ending(self):
        before = streams.process_streams()
        for code in ["1", "1 / 0", "import sys; sys.exit(1)", "raise KeyboardInterrupt", "raise GeneratorExit"]:
            run(code)
            assert streams.process_streams() == before
            assert UnderTest.runner.current is None

    def test_code_that_replaces_the_streams_does_not_keep_them(self):
        streams = sys.stdout, sys.stderr
        run("import io, sys\nsys.stdout = io.StringIO()\nsys.stderr = None")
        assert (sys.stdout, sys.stderr) == streams

    def test_the_hosts_interrupt_cancels_the_run(self, host_signals):
        # The signal reaches the runner's handler as the host's write into
        # Pyodide's interrupt buffer does.
        code = f"print('started')\nimport signal\nsignal.raise_signal({host_signals[0]})"
        result = run(code)
        assert result["status"] == "cancelled"
        assert (result["error"]["type"], result["error"]["line"]) == ("KeyboardInterrupt", 3)
        assert result["output"] == [{"stream": "stdout", "text": "started\n"}]

    def test_a_keyboard_interrupt_the_code_raises_is_its_error(self):
        result = run("print('started')\nraise KeyboardInterrupt")
        assert result["status"] == "error"
        assert (result["error"]["type"], result["error"]["line"]) == ("KeyboardInterrupt", 2)
        assert result["output"] == [{"stream": "stdout", "text": "started\n"}]

    @pytest.mark.parametrize("raised", ["GeneratorExit", "BaseException('odd')", "asyncio.CancelledError"])
    def test_an_exception_that_is_no_error_is_the_codes_error_too(self, raised):
        # A CPython program ends with its traceback whatever it raises.
        result = run(f"import asyncio\n\nraise {raised}")
        assert result["status"] == "error"
        assert (result["error"]["type"], result["error"]["line"]) == (raised.split("(")[0].split(".")[-1], 3)

    def test_output_past_the_limit(self):
        limits = LIMITS | {"output_bytes": 4}
        result = run("print('abc')\nprint('def')", limits=limits)
        assert result["output"] == [{"stream": "stdout", "text": "abc\n"}]
        assert result["truncated"] == {"output": True, "output_bytes_total": 8, "displays": False}

    def test_eager_output_streams_each_line_and_still_returns_it(self):
        result = run("print('a')\nimport sys\nprint('b', file=sys.stderr)", eager=True)
        assert result["streamed"] == [("stdout", "a\n"), ("stderr", "b\n")]
        assert result["output"] == [{"stream": "stdout", "text": "a\n"}, {"stream": "stderr", "text": "b\n"}]

    def test_code_that_awaits_gives_a_coroutine_with_the_result(self):
        outcome = UnderTest.runner.run(request("import asyncio\nawait asyncio.sleep(0)\n'done'"), ignore)
        assert not isinstance(outcome, str)
        result = json.loads(asyncio.run(outcome))
        assert_shape(result, "RunResult")
        assert (result["status"], result["value"]["json"]) == ("ok", "done")

    def test_an_error_in_code_that_awaits_is_reported_like_any(self):
        result = run("import asyncio\nawait asyncio.sleep(0)\nraise ValueError('late')")
        assert (result["status"], result["error"]["line"], result["error"]["message"]) == ("error", 3, "late")

    def test_each_run_has_its_own_file_name_in_tracebacks(self):
        first = run("1 / 0")["error"]["traceback"]
        second = run("1 / 0")["error"]["traceback"]
        assert first != second
        assert first.replace(_file(first), "F") == second.replace(_file(second), "F")

    def test_an_exit_code_past_32_bits_fits_the_protocol(self):
        result = run("import sys\nsys.exit(2**32 + 7)")
        assert (result["status"], result["exit_code"]) == ("ok", 7)


def fresh(code: str, **fields) -> dict:
    """A fresh run in the session ``lane``, as runMany makes them."""
    return run(code, session="lane", fresh=True, **fields)


@pytest.mark.usefixtures("sandbox")
class TestFreshRun:
    def test_variables_reach_neither_the_next_fresh_run_nor_the_session(self):
        run("kept = 1", session="lane")
        assert fresh("seen = 'kept' in globals()\nown = kept = 2\nseen")["value"]["json"] is False
        assert fresh("sorted(k for k in globals() if not k.startswith('__'))")["value"]["json"] == []
        after = run("'own' in globals(), kept", session="lane")
        assert after["value"]["json"] == [False, 1]

    def test_files_come_back_as_artifacts_and_reach_neither_the_next_nor_the_session(self):
        first = fresh("import os\nos.mkdir('sub')\nopen('sub/a.txt', 'w').write('a')\nopen('b.txt', 'w').write('bb')")
        assert [(a["path"], a["size"]) for a in first["artifacts"]] == [("b.txt", 2), ("sub/a.txt", 1)]
        assert first["files"] == []
        for _ in range(2):
            # The same again: what the first left must be gone, not merely unchanged.
            again = fresh("import os\nopen('b.txt', 'w').write('bb')\nsorted(os.listdir())")
            assert again["value"]["json"] == ["b.txt"]
            assert [a["path"] for a in again["artifacts"]] == ["b.txt"]
        assert run("import os\nos.listdir()", session="lane")["value"]["json"] == []

    @pytest.mark.parametrize(
        "leaves",
        [
            "os.mkdir('empty')",  # no file in it, so no artifact either
            "os.mkdir('__pycache__')\nopen('__pycache__/m.pyc', 'w').write('x')",
            "os.symlink('nowhere', 'dangling')",
        ],
    )
    def test_what_no_artifact_shows_is_gone_too(self, leaves):
        assert fresh(f"import os\n{leaves}")["artifacts"] == []
        assert fresh("import os\nos.listdir()")["value"]["json"] == []

    def test_the_requests_files_are_its_own_and_no_artifacts(self):
        files = [{"path": "in.txt", "content_base64": "NDI="}]
        first = fresh("int(open('in.txt').read())", files=files)
        assert (first["value"]["json"], first["artifacts"]) == (42, [])
        assert fresh("import os\nos.listdir()")["value"]["json"] == []

    def test_a_fresh_run_that_fails_or_awaits_still_returns_its_files_and_leaves_none(self):
        failed = fresh("open('f.txt', 'w').write('f')\n1 / 0")
        assert (failed["status"], [a["path"] for a in failed["artifacts"]]) == ("error", ["f.txt"])
        awaited = fresh("import asyncio\nawait asyncio.sleep(0)\nopen('g.txt', 'w').write('g')")
        assert (awaited["status"], [a["path"] for a in awaited["artifacts"]]) == ("ok", ["g.txt"])
        assert fresh("import os\nos.listdir()")["value"]["json"] == []

    def test_a_fresh_run_that_leaves_its_directory_or_deletes_it_harms_no_other(self):
        fresh("import os, shutil\nhere = os.getcwd()\nos.chdir('..')\nshutil.rmtree(here)")
        fresh("import os\nopen('x', 'w').write('x')\nos.chdir('/')")
        assert fresh("import os\nos.listdir()")["value"]["json"] == []

    def test_fresh_runs_leave_no_directory_but_an_empty_one_to_reuse(self, sandbox):
        run("open('kept.txt', 'w').write('k')", session="lane")
        for code in ["pass", "open('a', 'w').write('a')", "1 / 0", "import os\nos.mkdir('d')"]:
            fresh(code)
        assert sorted(p.name for p in sandbox.iterdir() if any(p.iterdir())) == ["lane"]
        assert len(list(sandbox.iterdir())) <= 2

    def test_a_fresh_run_inside_a_run_has_a_directory_of_its_own(self):
        # Code may call the runner itself: the inner fresh run must not take the outer's directory.
        code = (
            "import os, sys, json\nopen('outer.txt', 'w').write('o')\n"
            "r = display.__self__\n"
            "inner = json.loads(r.run(json.dumps({'code': 'import os\\nos.listdir()', 'session': 'lane',"
            " 'limits': LIMITS, 'fresh': True}), lambda s, t: None))\n"
            "inner['value']['json']"
        )
        outer = fresh(f"LIMITS = {LIMITS!r}\n{code}")
        assert (outer["status"], outer["value"]["json"]) == ("ok", [])
        assert [a["path"] for a in outer["artifacts"]] == ["outer.txt"]


def _file(trace: str) -> str:
    return trace.split('File "', 1)[1].split('"', 1)[0]
