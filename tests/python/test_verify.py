"""A run's ``tests``: run after the code in its namespace, each top-level
assert and ``def test_*`` a test, and a failed assert shown with the values
it compared (``_Tests``, ``_AssertRewriter``, ``_compared``)."""

import builtins

import pytest
from harness import UnderTest, assert_shape, run

ADD = "def add(a, b):\n    return a + b\n"


def verification(code: str, tests: str, **fields) -> dict:
    result = run(code, tests=tests, **fields)
    assert_shape(result["verification"], "Verification")
    for case in result["verification"]["tests"]:
        assert_shape(case, "TestCase")
    return result


@pytest.mark.usefixtures("sandbox")
class TestVerification:
    def test_a_run_without_tests_has_no_verification(self):
        assert run("1 + 1")["verification"] is None

    def test_top_level_asserts_and_test_functions_each_count(self):
        tests = "assert add(1, 2) == 3\n\ndef test_negative():\n    assert add(-1, -1) == -2\n\nassert add(0, 0) == 0\n"
        result = verification(ADD, tests)
        assert result["status"] == "ok"
        found = result["verification"]
        assert found["passed"] is True and found["not_run"] is None
        assert [(case["name"], case["line"], case["passed"]) for case in found["tests"]] == [
            ("assert add(1, 2) == 3", 1, True),
            ("assert add(0, 0) == 0", 6, True),
            ("test_negative", 3, True),
        ]

    def test_a_failed_comparison_shows_both_values_and_where_they_came_from(self):
        result = verification(ADD, "assert add(2, 2) == 5\nassert add(2, 2) == 4")
        found = result["verification"]
        assert found["passed"] is False
        failed, passed = found["tests"]
        assert passed["passed"] is True
        assert failed["compared"] == {"left": "4", "op": "==", "right": "5"}
        assert failed["explanation"] == "assert 4 == 5\n +  where 4 = add(2, 2)"
        assert failed["error"]["type"] == "AssertionError"
        assert failed["error"]["line"] == 1
        assert failed["error"]["source"][0] == {"line": 1, "text": "assert add(2, 2) == 5"}
        # The run itself went fine: only its verification failed.
        assert result["status"] == "ok"

    def test_each_side_is_evaluated_once(self):
        code = "calls = []\ndef once():\n    calls.append(1)\n    return len(calls)\n"
        result = verification(code + "", "assert once() == 2\nassert calls == [1]")
        first, second = result["verification"]["tests"]
        assert first["compared"] == {"left": "1", "op": "==", "right": "2"}
        assert second["passed"] is True, "the failing assert called once() only once"

    def test_other_operators_and_plain_asserts_are_explained(self):
        tests = (
            "def test_in():\n    assert 7 in [1, 2]\n"
            "def test_truthy():\n    assert add(1, -1)\n"
            "def test_message():\n    assert add(1, 1) > 3, 'too small'\n"
        )
        cases = {case["name"]: case for case in verification(ADD, tests)["verification"]["tests"]}
        assert cases["test_in"]["compared"] == {"left": "7", "op": "in", "right": "[1, 2]"}
        assert cases["test_truthy"]["compared"] is None
        assert cases["test_truthy"]["explanation"] == "assert 0\n +  where 0 = add(1, -1)"
        assert cases["test_message"]["error"]["message"] == "too small"
        assert cases["test_message"]["explanation"] == "assert 2 > 3\n +  where 2 = add(1, 1)"

    def test_equal_sequences_name_their_first_difference(self):
        found = verification("", "assert 'kitten' == 'kitchen'\nassert [1, 2] == [1, 2, 3]")["verification"]
        assert found["tests"][0]["explanation"].endswith("first difference at index 3: 't' != 'c'")
        assert found["tests"][1]["explanation"].endswith("the right side has 1 more item(s)")

    def test_an_error_in_a_test_is_a_failure_located_in_the_tests(self):
        tests = "def test_missing():\n    x = 1\n    return undefined_name\n"
        case = verification(ADD, tests)["verification"]["tests"][0]
        assert case["passed"] is False
        assert (case["error"]["type"], case["error"]["line"]) == ("NameError", 3)
        assert case["explanation"] is None
        assert "<tests-" in case["error"]["traceback"]

    def test_an_assert_failing_inside_the_code_is_not_explained_as_the_tests(self):
        code = "def checked(x):\n    assert x > 0, 'positive only'\n    return x\n"
        case = verification(code, "assert checked(1) == 1\nassert checked(-1) == -1")["verification"]["tests"][1]
        assert case["error"]["message"] == "positive only"
        assert case["explanation"] is None

    def test_a_failing_setup_line_stops_the_tests_after_it(self):
        found = verification(ADD, "assert add(1, 1) == 2\nvalue = add(1)\nassert value == 1")["verification"]
        assert found["passed"] is False
        assert [case["name"] for case in found["tests"]] == ["assert add(1, 1) == 2", "value = add(1)"]
        assert found["tests"][1]["error"]["type"] == "TypeError"
        assert found["not_run"] == "Line 2 of the tests raised TypeError, so the tests after it did not run."

    def test_tests_that_do_not_compile_say_where(self):
        found = verification(ADD, "assert add(1, 1) == 2\nassert (")["verification"]
        assert found["passed"] is False
        assert found["tests"][0]["name"] == "tests"
        assert found["tests"][0]["error"]["type"] == "SyntaxError"
        assert found["tests"][0]["error"]["line"] == 2
        assert found["not_run"] == "The tests do not compile, so none ran."

    def test_when_the_code_raises_no_test_runs(self):
        result = verification("x = 1\ny = 2\nprint(z)", "assert x == 1")
        assert result["status"] == "error"
        assert result["error"]["line"] == 3
        assert result["verification"] == {
            "passed": False,
            "tests": [],
            "not_run": "The code raised NameError, so no test ran.",
        }

    def test_tests_share_the_codes_namespace_and_output(self):
        result = verification("total = 41", "print('checking')\ntotal += 1\nassert total == 42")
        assert result["verification"]["passed"] is True
        assert result["stdout"] == "" and result["output"] == [{"stream": "stdout", "text": "checking\n"}]
        assert run("total")["value"]["repr"] == "42"

    def test_the_session_gains_no_name_from_the_rewriting(self):
        verification("", "assert 1 == 1\nassert True")
        names = run("sorted(name for name in globals() if not name.startswith('__'))")["value"]["json"]
        assert names == []

    def test_async_tests_are_awaited(self):
        tests = "import asyncio\nasync def test_sleeps():\n    await asyncio.sleep(0)\n    assert value == 3\n"
        found = verification("value = 3", tests)["verification"]
        assert found == {
            "passed": True,
            "tests": [
                {"name": "test_sleeps", "line": 2, "passed": True, "error": None, "explanation": None, "compared": None}
            ],
            "not_run": None,
        }

    def test_a_test_name_bound_to_something_else_fails(self):
        found = verification("", "def test_value():\n    pass\ntest_value = 3")["verification"]
        assert found["passed"] is False
        assert found["tests"][0]["error"]["message"] == "test_value is not callable"

    def test_the_last_value_is_the_codes_not_the_tests(self):
        result = verification("6 * 7", "assert 1 + 1 == 2\n1 + 1")
        assert result["value"]["repr"] == "42"

    def test_an_interrupt_during_the_tests_cancels_the_run(self, monkeypatch):
        def interrupt():
            UnderTest.runner.interrupts.by_host = True
            raise KeyboardInterrupt

        monkeypatch.setattr(builtins, "stop_here", interrupt, raising=False)
        result = run("", tests="assert 1 == 1\nstop_here()\nassert 2 == 2")
        assert result["status"] == "cancelled"
        found = result["verification"]
        assert found["passed"] is False
        assert [case["name"] for case in found["tests"]] == ["assert 1 == 1"]
        assert found["not_run"] == "The run was stopped before every test had run."
