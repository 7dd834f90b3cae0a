"""``from sandpit import verify``: formulas, numbers and figures checked in
a run's tests, with messages that say where a claim fails."""

import pytest
from harness import run
from sandpit import verify


class TestEquivalent:
    @pytest.mark.parametrize(
        "a, b, symbols",
        [
            ("sin(x)**2 + cos(x)**2", "1", ("x",)),
            ("(x + 1)**2", "x**2 + 2*x + 1", ()),
            ("exp(I*x)", "cos(x) + I*sin(x)", ("x",)),
            ("x^2 - 1", "(x - 1)*(x + 1)", ("x",)),
            ("a*b + a*c", "a*(b + c)", ("a", "b", "c")),
        ],
    )
    def test_equal_formulas_hold(self, a, b, symbols):
        assert verify.equivalent(a, b, *symbols) is True

    def test_a_wrong_formula_names_a_counterexample_and_both_values(self):
        with pytest.raises(verify.VerificationError) as failed:
            verify.equivalent("(x + 1)**2", "x**2 + x + 1", "x")
        assert str(failed.value) == (
            "$\\left(x + 1\\right)^{2}$ and $x^{2} + x + 1$ differ at $x = -1000$: 998001 against 999001"
        )

    def test_a_formula_true_only_for_positive_values_is_caught_at_a_negative_one(self):
        with pytest.raises(verify.VerificationError, match=r"differ at \$x = -1000\$: 1000 against -1000"):
            verify.equivalent("sqrt(x**2)", "x", "x")

    def test_outside_the_real_domain_the_check_goes_complex(self):
        with pytest.raises(verify.VerificationError, match=r"6.28319i"):
            verify.equivalent("log(x*y)", "log(x) + log(y)")

    def test_sympy_objects_are_taken_as_they_are(self):
        import sympy

        x = sympy.Symbol("x")
        assert verify.equivalent(sympy.sin(2 * x), 2 * sympy.sin(x) * sympy.cos(x), x)


class TestCalculus:
    def test_an_antiderivative(self):
        assert verify.antiderivative("x**3/3 + 5", "x**2", "x")
        with pytest.raises(verify.VerificationError, match="derivative of the antiderivative"):
            verify.antiderivative("x**3", "x**2", "x")

    def test_a_solution(self):
        assert verify.solves("x**2 - 4 = 0", "-2", "x")
        assert verify.solves("x**2 == 2*x", "2", "x")
        with pytest.raises(verify.VerificationError, match=r"does not solve .* differ by \$5\$"):
            verify.solves("x**2 - 4", "3", "x")


class TestClose:
    def test_within_tolerance_holds_through_nested_values(self):
        assert verify.close({"a": [1, 0.1 + 0.2], "b": (2.0,)}, {"a": [1, 0.3], "b": (2,)})
        assert verify.close(100.0, 101.0, rel=0.02)
        assert verify.close(0.0, 1e-12, abs=1e-9)

    @pytest.mark.parametrize(
        "a, b, message",
        [
            ({"a": [1, 2.1]}, {"a": [1, 2]}, "['a'][1]: 2.1 and 2 differ by 0.1"),
            ([1, 2], [1, 2, 3], "the values: lengths 2 and 3"),
            ({"a": 1}, {"b": 1}, "the keys differ"),
            ([[1, "x"]], [[1, "y"]], "[0][1]: 'x' != 'y'"),
        ],
    )
    def test_a_difference_names_its_path_and_both_values(self, a, b, message):
        with pytest.raises(verify.VerificationError) as failed:
            verify.close(a, b)
        assert message in str(failed.value)


@pytest.mark.usefixtures("sandbox")
class TestInARunsTests:
    def test_a_failed_check_is_a_failed_test_with_its_message(self):
        code = "def area(r):\n    return 3.14 * r ** 2"
        tests = (
            "from sandpit import verify\n"
            "import math\n"
            "def test_area():\n    verify.close(area(2), math.pi * 4, rel=1e-6)\n"
            "assert verify.equivalent('3.14*r**2', 'pi*r**2', 'r')"
        )
        found = run(code, tests=tests)["verification"]
        assert found["passed"] is False
        by_name = {case["name"]: case for case in found["tests"]}
        assert "12.56 and 12.566" in by_name["test_area"]["error"]["message"]
        assert by_name["test_area"]["error"]["type"] == "VerificationError"
        equivalent = next(case for case in found["tests"] if case["name"].startswith("assert verify.equivalent"))
        assert "differ at $r = -1000$" in equivalent["error"]["message"]

    def test_the_sandpit_modules_frames_are_not_in_the_traceback(self):
        tests = "from sandpit import verify\nverify.close(1, 2)"
        case = run("", tests=tests)["verification"]["tests"][0]
        assert "sandpit/verify.py" not in case["error"]["traceback"]
        assert case["error"]["line"] == 2
