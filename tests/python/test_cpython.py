"""Python as CPython runs it, in every session: interpreter-wide settings kept
per session (``_Settings``, ``_SessionSwitch``), the session's module as
``__main__``, ``logging`` in every run, and exceptions whose ``__str__``
fails."""

import logging
import sys
import warnings

import pytest
from harness import run, values


@pytest.fixture
def settings_back():
    """What a failing test could leave changed in this process's interpreter."""
    limit, filters = sys.getrecursionlimit(), list(warnings.filters)
    handlers, level = list(logging.root.handlers), logging.root.level
    yield
    sys.setrecursionlimit(limit)
    warnings.filters[:] = filters
    warnings._filters_mutated()
    logging.root.handlers, logging.root.level = handlers, level


def value(code: str, session: str = "test"):
    result = run(code, session=session)
    assert result["status"] == "ok", result["error"]
    return None if result["value"] is None else result["value"]["json"]


@pytest.mark.usefixtures("sandbox", "settings_back")
class TestSettingsPerSession:
    def test_the_recursion_limit_is_the_sessions_own(self):
        limit = sys.getrecursionlimit()
        run("import sys\nsys.setrecursionlimit(60)", session="a")
        assert value("import sys\nsys.getrecursionlimit()", session="b") == limit
        assert value("import sys\nsys.getrecursionlimit()", session="a") == 60
        assert sys.getrecursionlimit() == limit

    def test_warnings_filters_are_the_sessions_own(self):
        run("import warnings\nwarnings.simplefilter('error')", session="a")
        other = run("import warnings\nwarnings.warn('careful')\n'went on'", session="b")
        assert (other["status"], other["value"]["json"]) == ("ok", "went on")
        assert [chunk["stream"] for chunk in other["output"]] == ["stderr"]
        assert "UserWarning: careful" in other["output"][0]["text"]
        again = run("import warnings\nwarnings.warn('careful')", session="a")
        assert (again["status"], again["error"]["type"]) == ("error", "UserWarning")

    def test_a_warnings_hook_is_the_sessions_own(self):
        run("import warnings\nwarnings.showwarning = lambda *a, **k: print('hooked')", session="a")
        assert run("import warnings\nwarnings.warn('w')", session="a")["output"][0]["text"] == "hooked\n"
        assert "hooked" not in run("import warnings\nwarnings.warn('w')", session="b")["output"][0]["text"]

    def test_the_root_loggers_configuration_is_the_sessions_own(self):
        run("import logging\nlogging.basicConfig(level=logging.DEBUG, format='A %(message)s')", session="a")
        other = run("import logging\nlogging.debug('hidden')\nlogging.warning('shown')", session="b")
        assert other["output"] == [{"stream": "stderr", "text": "WARNING:root:shown\n"}]
        mine = run("import logging\nlogging.debug('seen')", session="a")
        assert mine["output"] == [{"stream": "stderr", "text": "A seen\n"}]


@pytest.mark.usefixtures("sandbox", "settings_back")
class TestLogging:
    def test_logging_prints_in_every_run_of_every_session(self):
        for session in ["a", "a", "b", "a"]:
            result = run("import logging\nlogging.warning('x')", session=session)
            assert result["output"] == [{"stream": "stderr", "text": "WARNING:root:x\n"}], session

    def test_a_handler_made_on_stdout_writes_into_later_runs(self):
        run("import logging, sys\nlog = logging.getLogger('app')\nlog.addHandler(logging.StreamHandler(sys.stdout))")
        later = run("log.warning('later')")
        assert later["output"] == [{"stream": "stdout", "text": "later\n"}]


@pytest.mark.usefixtures("sandbox")
class TestMain:
    def test_the_code_runs_in_mains_namespace(self):
        assert value("import __main__, sys\nx = 1\n(__main__.x, sys.modules['__main__'] is __main__)") == [1, True]

    def test_each_session_has_its_own_main_and_the_process_gets_its_own_back(self):
        main = sys.modules["__main__"]
        run("import sys\nmark = id(sys.modules['__main__'])", session="a")
        assert value("import sys\nid(sys.modules['__main__']) == mark", session="a") is True
        assert value("import sys\n'mark' in vars(sys.modules['__main__'])", session="b") is False
        assert sys.modules["__main__"] is main

    def test_a_class_defined_in_the_code_pickles(self):
        code = (
            "import pickle\nclass Point:\n    def __init__(self, x):\n        self.x = x\n"
            "pickle.loads(pickle.dumps(Point(3))).x"
        )
        assert value(code) == 3

    def test_doctest_finds_the_codes_tests(self):
        code = (
            "def double(n):\n"
            "    '''\n"
            "    >>> double(2)\n"
            "    4\n"
            "    >>> double(3)\n"
            "    7\n"
            "    '''\n"
            "    return 2 * n\n"
            "import doctest\n"
            "tuple(doctest.testmod())"
        )
        result = run(code)
        assert result["value"]["json"] == [1, 2]
        assert "Failed example:\n    double(3)" in result["output"][0]["text"]


@pytest.mark.usefixtures("sandbox")
class TestExceptionsWhoseStrFails:
    @pytest.mark.parametrize(
        "raised", ["RuntimeError", "KeyboardInterrupt", "SystemExit(3)", "GeneratorExit", "ZeroDivisionError"]
    )
    def test_it_is_the_codes_error_with_cpythons_placeholder(self, raised):
        code = f"class Odd(Exception):\n    def __str__(self):\n        raise {raised}\nraise Odd()"
        result = run(code)
        assert result["status"] == "error"
        error = result["error"]
        assert (error["type"], error["message"], error["line"]) == ("Odd", "<exception str() failed>", 4)
        assert error["traceback"].endswith("Odd: <exception str() failed>\n")

    def test_a_str_that_recurses_is_stopped_short_of_the_browsers_stack(self):
        # The runner calls the code's __str__ under a lower recursion limit,
        # which the code's own recursion keeps, and puts the limit back.
        code = (
            "import sys\n"
            "seen = []\n"
            "class Odd(Exception):\n"
            "    def __str__(self):\n"
            "        seen.append(sys.getrecursionlimit())\n"
            "        return str(self)\n"
            "raise Odd()"
        )
        limit = sys.getrecursionlimit()
        result = run(code)
        assert result["error"]["message"] == "<exception str() failed>"
        assert sys.getrecursionlimit() == limit
        seen = value("seen")
        assert len(seen) < values.DESCRIBING_DEPTH * 2 < limit
        assert max(seen) < limit

    @pytest.mark.usefixtures("settings_back")
    def test_a_str_under_a_lower_limit_of_the_codes_keeps_it(self):
        # Low, but above the depth pytest runs the code at.
        lowered = value(
            "import inspect, sys\nsys.setrecursionlimit(len(inspect.stack()) + 60)\nsys.getrecursionlimit()"
        )
        code = (
            "import sys\nclass Odd(Exception):\n    def __str__(self):\n"
            "        return str(sys.getrecursionlimit())\nraise Odd()"
        )
        assert run(code)["error"]["message"] == str(lowered)

    def test_sys_exit_with_an_argument_whose_str_fails_exits_1_saying_nothing(self):
        result = run("class Odd:\n    def __str__(self):\n        raise ValueError\nimport sys\nsys.exit(Odd())")
        assert (result["status"], result["exit_code"], result["output"]) == ("ok", 1, [])
