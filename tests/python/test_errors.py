"""Errors described for repair: where they are (``_describe_error``, with
``_user_traceback``, ``_lines``, ``_source_around``), what to do about a
failed import (``_hint``, ``_import_hint``) and the dry run (``check``,
``_plan``)."""

import importlib.util
import json
import sys

import pytest
from harness import (
    RUNNER_DIR,
    UnderTest,
    assert_shape,
    capture,
    cells,
    describe_error,
    errors,
    packages,
    run,
    schema_enum,
    signals,
)

FILENAME = "<run-test>"


def described(code: str) -> dict:
    """The error a run of ``code`` reports."""
    result = run(code)
    assert result["status"] == "error"
    assert_shape(result["error"], "RunError")
    return result["error"]


@pytest.mark.usefixtures("sandbox")
class TestRunErrors:
    def test_an_error_points_at_its_line_and_columns(self):
        error = described("x = 0\n\ny = 1 / x")
        assert (error["type"], error["message"]) == ("ZeroDivisionError", "division by zero")
        assert (error["line"], error["column"], error["end_column"]) == (3, 5, 10)
        assert error["source"] == [
            {"line": 1, "text": "x = 0"},
            {"line": 2, "text": ""},
            {"line": 3, "text": "y = 1 / x"},
        ]
        assert error["hint"] is None

    def test_the_traceback_holds_the_codes_frames_and_none_of_the_runners(self):
        error = described("def f():\n    return g()\ndef g():\n    raise ValueError('no')\nf()")
        trace = error["traceback"]
        name = _run_file(trace)
        assert name.startswith("<run-")
        assert [line for line in trace.splitlines() if line.lstrip().startswith("File ")] == [
            f'  File "{name}", line 5, in <module>',
            f'  File "{name}", line 2, in f',
            f'  File "{name}", line 4, in g',
        ]
        assert RUNNER_DIR not in trace
        assert trace.endswith("ValueError: no\n")
        # The innermost frame of the code is the one the error points at.
        assert error["line"] == 4

    def test_an_error_raised_in_the_runner_for_the_code_ends_at_the_codes_call(self):
        error = described("x = 1\ninput('name? ')")
        assert error["type"] == "StdinUnavailableError"
        assert RUNNER_DIR not in error["traceback"]
        assert error["line"] == 2
        assert error["hint"]["code"] == "input_unsupported"

    def test_columns_count_characters_not_bytes(self):
        # Code positions are UTF-8 byte offsets; columns are characters, as in a SyntaxError.
        error = described('s = "ééé"; t = 1 / 0')
        start = 's = "ééé"; t = 1 / 0'.index("1 / 0") + 1
        assert (error["column"], error["end_column"]) == (start, start + len("1 / 0"))

    def test_an_error_over_several_lines_has_no_end_column(self):
        error = described("x = 0\ny = (1 /\n     x)")
        assert error["line"] == 2
        assert error["column"] == 6
        assert error["end_column"] is None

    def test_lines_are_numbered_as_python_numbers_them(self):
        # A form feed and a line separator inside a string end no line for Python.
        code = 'a = "x\u2028y\x0cz"\nb = 1 / 0'
        error = described(code)
        assert error["line"] == 2
        assert error["source"] == [{"line": 1, "text": 'a = "x\u2028y\x0cz"'}, {"line": 2, "text": "b = 1 / 0"}]
        assert "b = 1 / 0" in error["traceback"]

    def test_an_exception_whose_str_fails_is_still_reported(self):
        code = "class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError\nraise Odd()"
        error = described(code)
        assert error["type"] == "Odd"
        assert error["message"] == "<exception str() failed>"
        assert error["line"] == 4

    def test_a_syntax_error_keeps_its_own_location(self):
        code = "x = 1\nif x\n    y = 2"
        with pytest.raises(SyntaxError) as python:
            compile(code, "<probe>", "exec")
        error = described(code)
        assert error["type"] == "SyntaxError"
        assert (error["line"], error["column"], error["message"]) == (
            python.value.lineno,
            python.value.offset,
            python.value.msg,
        )
        assert error["traceback"].endswith(f"SyntaxError: {python.value.msg}\n")
        assert error["line"] == 2

    def test_an_error_in_code_from_an_earlier_run_points_at_this_runs_call(self):
        run("def f():\n    return 1 / 0")
        error = described("x = 1\nf()")
        assert (error["line"], error["source"][-1]["text"]) == (2, "f()")
        # The traceback goes on into the earlier run's code, with its line.
        assert error["traceback"].count("File ") == 2
        assert "return 1 / 0" in error["traceback"]


def _run_file(trace: str) -> str:
    """The pseudo file name the run's code was compiled under, as the traceback shows it."""
    return trace.split('File "', 2)[1].split('"', 1)[0]


class TestSourceAround:
    def test_two_lines_either_side_within_the_code(self):
        lines = errors.lines("a\nb\nc\nd\ne\nf")
        assert [item["line"] for item in errors.source_around(lines, 3)] == [1, 2, 3, 4, 5]
        assert [item["text"] for item in errors.source_around(lines, 6)] == ["d", "e", "f"]
        assert errors.source_around(lines, None) == []

    def test_line_ends_are_not_part_of_the_text(self):
        lines = errors.lines("a\r\nb\rc\n")
        assert lines == ["a\r\n", "b\r", "c\n"]
        assert [item["text"] for item in errors.source_around(lines, 2)] == ["a", "b", "c"]


class TestDescribeSyntaxError:
    @pytest.mark.parametrize("code", ["x = (1,\ny = 2\n", "print('a'\n", "x = 1 +", "def f(:\n  pass"])
    def test_the_error_python_raises_is_reshaped(self, code):
        with pytest.raises(SyntaxError) as raised:
            cells.compile_cell(code, FILENAME)
        error = raised.value
        described = describe_error(error, FILENAME, code)
        assert_shape(described, "RunError")
        assert (described["line"], described["column"], described["message"]) == (error.lineno, error.offset, error.msg)
        # An end column only for a span within the line.
        spans = error.end_lineno == error.lineno and (error.end_offset or 0) > (error.offset or 0)
        assert described["end_column"] == (error.end_offset if spans else None)
        if error.lineno <= len(errors.lines(code)):
            assert error.lineno in [item["line"] for item in described["source"]]

    def test_a_syntax_error_from_other_code_is_described_from_frames(self):
        # Raised by compile() inside the code: it points at the call, not into another source.
        error = SyntaxError("invalid syntax", ("<string>", 1, 2, "x x", 1, 4))
        described = describe_error(error, FILENAME, "compile('x x', '<string>', 'exec')")
        assert described["line"] is None
        assert described["message"] == str(error)


class TestExitCode:
    @pytest.mark.parametrize(
        "argument, code, stderr",
        [
            (None, 0, ""),
            (3, 3, ""),
            (True, 1, ""),
            (False, 0, ""),
            ("bye", 1, "bye\n"),
            (-1, -1, ""),
            (2**32 + 5, 5, ""),  # CPython keeps the low 32 bits
            (2**31, -(2**31), ""),
            (2**64, -1, ""),  # and gives -1 past 64 bits
        ],
    )
    def test_like_the_interpreter_exits(self, argument, code, stderr):
        kept = capture.Capture(1000, lambda stream, text: None, False)
        assert errors.exit_code(SystemExit(argument), kept, signals.Interrupts()) == code
        assert "".join(chunk["text"] for chunk in kept.output()) == stderr

    @pytest.mark.usefixtures("sandbox")
    def test_a_run_that_exits_is_ok_and_says_its_code(self):
        result = run("import sys\nprint('a')\nsys.exit(2)\nprint('b')")
        assert (result["status"], result["exit_code"], result["error"]) == ("ok", 2, None)
        assert result["output"] == [{"stream": "stdout", "text": "a\n"}]


class TestImportHints:
    @pytest.fixture(autouse=True)
    def _index(self, package_index):
        self.codes = schema_enum("HintCode")
        self.packages = UnderTest.runner.packages

    def hint(self, name: str, failures=None) -> dict:
        self.packages.load_failures = failures or {}
        hint = errors.hint(ModuleNotFoundError(f"No module named {name!r}", name=name), self.packages)
        assert_shape(hint, "Hint")
        assert hint["code"] in self.codes
        return hint

    def test_a_package_the_network_policy_refused(self):
        hint = self.hint("numpy.linalg", {"numpy": "blocked"})
        assert hint["code"] == "package_blocked"
        assert "'numpy'" in hint["message"]

    def test_a_package_downloaded_on_first_use_while_offline(self):
        hint = self.hint("numpy", {"numpy": "network"})
        assert hint["code"] == "package_needs_network"
        assert "beautifulsoup4" in hint["message"]  # the bundled ones are named
        # An alternative is offered where there is one.
        assert "pyfetch" in self.hint("requests")["message"]

    def test_a_bundled_package_that_failed_to_load(self):
        hint = self.hint("bs4", {"beautifulsoup4": "network"})
        assert hint["code"] == "module_not_found"
        assert "failed to load" in hint["message"]
        # What the download said, naming its file, where Pyodide said it.
        said = "Failed to load 'https://host.example/pyodide/beautifulsoup4-4.14.3-py3-none-any.whl': request failed."
        hint = self.hint("bs4", {"beautifulsoup4": said})
        assert hint["message"].endswith(f"failed to load: {said}")

    def test_a_bundled_package_that_was_not_loaded(self):
        hint = self.hint("bs4")
        assert hint["code"] == "module_not_found"
        assert "import bs4" in hint["message"]

    def test_a_module_that_cannot_work_in_a_browser(self):
        hint = self.hint("tensorflow")
        assert hint["code"] == "package_unavailable"
        assert packages.ALTERNATIVES["tensorflow"] in hint["message"]

    def test_a_module_nobody_provides(self):
        hint = self.hint("no_such_module_anywhere")
        assert hint["code"] == "module_not_found"
        assert "micropip" in hint["message"]

    def test_other_errors_have_no_hint(self):
        assert errors.hint(ValueError("x"), self.packages) is None
        assert errors.hint(ModuleNotFoundError("no name"), self.packages) is None
        assert errors.hint(ModuleNotFoundError("odd", name=3), self.packages) is None

    @pytest.mark.usefixtures("sandbox")
    def test_a_run_that_fails_to_import_carries_the_hint(self):
        if packages.findable("tensorflow"):
            pytest.skip("tensorflow is installed in this interpreter")
        error = described("import os\nimport tensorflow as tf")
        assert error["type"] == "ModuleNotFoundError"
        assert error["line"] == 2
        assert error["hint"]["code"] == "package_unavailable"


class TestCheck:
    @pytest.fixture(autouse=True)
    def _index(self, package_index):
        self.index = package_index

    def check(self, code: str) -> dict:
        report = json.loads(UnderTest.runner.check(code))
        assert_shape(report, "CheckReport")
        for plan in report["imports"]:
            assert_shape(plan, "ImportPlan")
            assert plan["availability"] in schema_enum("Availability")
        return report

    def test_imports_in_order_of_first_appearance_each_once(self):
        code = (
            "import json\nfrom bs4 import BeautifulSoup\nimport numpy.linalg, json\n"
            "from . import sibling\ndef f():\n    import yaml"
        )
        report = self.check(code)
        assert report["syntax_error"] is None
        assert [(plan["module"], plan["line"], plan["package"]) for plan in report["imports"]] == [
            ("json", 1, None),
            ("bs4", 2, "beautifulsoup4"),
            ("numpy", 3, "numpy"),
            ("yaml", 6, "pyyaml"),  # configure() keeps package names lower-cased
        ]

    def test_where_each_import_comes_from(self):
        plans = {
            plan["module"]: plan for plan in self.check("import json, bs4, numpy, no_such_module_anywhere")["imports"]
        }
        assert plans["json"]["availability"] == "offline"
        assert plans["bs4"]["availability"] == "offline"
        assert plans["numpy"]["availability"] == "network"
        assert plans["no_such_module_anywhere"]["availability"] == "unavailable"

    def test_a_module_installed_in_this_interpreter_is_offline(self):
        # pytest is importable here and is neither in the index nor in the standard library.
        assert importlib.util.find_spec("pytest") is not None and "pytest" not in sys.stdlib_module_names
        (plan,) = self.check("import pytest")["imports"]
        assert (plan["availability"], plan["message"]) == ("offline", "Installed in this sandbox.")

    def test_a_module_that_cannot_work_says_what_to_use(self):
        name = next(
            (
                name
                for name in packages.ALTERNATIVES
                if name not in self.index["imports"]
                and not packages.findable(name)
                and name not in sys.stdlib_module_names
            ),
            None,
        )
        if name is None:
            pytest.skip("every module with an alternative is importable on this machine")
        (plan,) = self.check(f"import {name}")["imports"]
        assert plan["availability"] == "unavailable"
        assert packages.ALTERNATIVES[name] in plan["message"]

    def test_a_syntax_error_is_shaped_as_a_runs(self):
        report = self.check("import json\nx = = 1")
        assert report["imports"] == []
        assert_shape(report["syntax_error"], "RunError")
        assert report["syntax_error"]["line"] == 2
        assert report["syntax_error"]["type"] == "SyntaxError"

    def test_top_level_await_is_allowed(self):
        assert self.check("import asyncio\nawait asyncio.sleep(0)")["syntax_error"] is None


@pytest.mark.usefixtures("sandbox")
class TestNameHints:
    def test_an_undefined_name_gets_pythons_guess_and_its_line(self):
        error = described("values = [1, 2, 3]\ntotal = sum(values)\nprint(totl)")
        assert (error["type"], error["line"]) == ("NameError", 3)
        assert error["hint"] == {
            "code": "undefined_name",
            "message": "Did you mean 'total'? 'totl' is not defined when line 3 runs: fix the spelling, "
            "or define it (assign or import it) before it is used.",
        }

    def test_without_a_guess_the_hint_still_says_what_to_do(self):
        error = described("print(qzxv_unknown)")
        assert error["hint"]["code"] == "undefined_name"
        assert error["hint"]["message"].startswith("'qzxv_unknown' is not defined when line 1 runs")

    def test_other_errors_get_no_name_hint(self):
        assert described("1 / 0")["hint"] is None


@pytest.mark.usefixtures("runner")
class TestPackagesToLoad:
    """The one import scanner, as the worker asks it before a run."""

    @pytest.fixture(autouse=True)
    def importable(self, monkeypatch):
        """Which modules are importable, as this test says (this interpreter has numpy and sympy)."""
        found = {"json"}
        monkeypatch.setattr("sandpit_runner.runner.findable", lambda name: name in found)
        return found

    def load(self, code: str) -> list:
        return json.loads(UnderTest.runner.packages_to_load(code))

    def test_the_packages_of_the_imports_not_yet_importable(self):
        assert self.load("import numpy.linalg\nfrom yaml import safe_load\nimport json\nimport numpy") == [
            "numpy",
            "pyyaml",
        ]

    def test_code_without_imports_or_that_does_not_parse_needs_nothing(self):
        assert self.load("x = 1") == []
        assert self.load("import numpy\nx = = 1") == []

    def test_an_importable_module_needs_no_load(self, importable):
        importable.add("numpy")
        assert self.load("import numpy") == []

    def test_symbolic_checks_load_sympy_and_numeric_ones_do_not(self):
        assert self.load("from sandpit import verify\nverify.equivalent('x', 'x')") == ["sympy"]
        assert self.load("from sandpit import verify\nverify.close(1, 1)") == []
