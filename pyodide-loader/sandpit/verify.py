"""Checks for a program's tests: formulas, numbers, figures.

Each check returns ``True`` when it holds and raises ``VerificationError``
(an ``AssertionError``) saying why when it does not, so it works alone and
under ``assert``. A formula check's message names a point where the two
sides differ and both values there, with the formulas in LaTeX (``$...$``).
sympy is imported only by the checks that need it.
"""

import math
import random

#: Points every symbol takes in the numeric check, besides random ones:
#: negative, small, large, and zero.
_POINTS = (-1000.0, -7.25, -1.0, -0.5, -1e-3, 0.0, 1e-3, 0.5, 1.0, 2.75, 10.0, 1000.0)
#: Random points added to those (seeded: a check gives the same verdict every time).
_RANDOM_POINTS = 24
#: How close two values must be, relatively, to count as equal in the numeric check.
_REL = 1e-8


class VerificationError(AssertionError):
    """A check of ``sandpit.verify`` found its claim false."""


def equivalent(a, b, *symbols) -> bool:
    """Whether the formulas ``a`` and ``b`` are equal for every value of
    ``symbols`` (sympy expressions, or strings sympy parses; the symbols as
    names or sympy symbols, every free symbol when none are given).

    Symbolic first (their difference simplifies to 0); then numeric, at
    points over the whole domain (negative, small, large), complex where a
    real point is outside a side's domain."""
    sympy = _sympy()
    left, right = _expression(sympy, a), _expression(sympy, b)
    names = _symbols(sympy, symbols, left, right)
    try:
        if sympy.simplify(left - right) == 0:
            return True
    except Exception:  # noqa: BLE001 - simplify gives up on some forms: the numbers decide
        pass
    point = _counterexample(sympy, left, right, names)
    if point is None:
        return True
    values, shown = point
    raise VerificationError(
        f"${sympy.latex(left)}$ and ${sympy.latex(right)}$ differ at {shown}: "
        f"{_number(values[0])} against {_number(values[1])}"
    )


def antiderivative(F, f, x) -> bool:
    """Whether ``F`` is an antiderivative of ``f`` in ``x``: dF/dx equals f."""
    sympy = _sympy()
    variable = _symbol(sympy, x)
    derivative = sympy.diff(_expression(sympy, F), variable)
    try:
        return equivalent(derivative, _expression(sympy, f), variable)
    except VerificationError as failure:
        raise VerificationError(f"the derivative of the antiderivative is not the integrand: {failure}") from None


def solves(equation, solution, x) -> bool:
    """Whether ``x = solution`` satisfies ``equation`` (a sympy ``Eq``, a
    string with one ``=`` or ``==``, or an expression meant to equal 0)."""
    sympy = _sympy()
    variable = _symbol(sympy, x)
    left, right = _sides(sympy, equation)
    value = _expression(sympy, solution)
    residual = (left - right).subs(variable, value)
    if (
        equivalent(residual, 0, *sorted(residual.free_symbols, key=str))
        if residual.free_symbols
        else _is_zero(residual)
    ):
        return True
    raise VerificationError(
        f"${sympy.latex(variable)} = {sympy.latex(value)}$ does not solve ${sympy.latex(sympy.Eq(left, right))}$: "
        f"the two sides differ by ${sympy.latex(sympy.simplify(residual))}$"
    )


def close(a, b, rel: float = 1e-9, abs: float = 0.0) -> bool:
    """Whether ``a`` and ``b`` are equal within the tolerances, as
    ``math.isclose`` says for numbers; lists, tuples and dicts item by item."""
    failure = _difference(a, b, rel, abs, "")
    if failure is not None:
        raise VerificationError(failure)
    return True


def figures() -> list:
    """The summaries of the figures this run drew so far (captured by
    ``plt.show()``, then those still open), as its displays carry them."""
    import _sandpit_run

    return _sandpit_run.figures()


def _difference(a, b, rel: float, tolerance: float, path: str) -> "str | None":
    where = path or "the values"
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return f"{where}: the keys differ: {sorted(map(repr, a.keys() ^ b.keys()))}"
        for key in a:
            found = _difference(a[key], b[key], rel, tolerance, f"{path}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{where}: lengths {len(a)} and {len(b)}"
        for index, (left, right) in enumerate(zip(a, b, strict=True)):
            found = _difference(left, right, rel, tolerance, f"{path}[{index}]")
            if found:
                return found
        return None
    if _is_number(a) and _is_number(b):
        if a == b or (_finite(a) and _finite(b) and math.isclose(a, b, rel_tol=rel, abs_tol=tolerance)):
            return None
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return None
        return f"{where}: {a!r} and {b!r} differ by {_gap(a, b)} (rel={rel}, abs={tolerance})"
    if a == b:
        return None
    return f"{where}: {a!r} != {b!r}"


def _gap(a, b) -> str:
    try:
        return f"{abs(a - b):.3g}"
    except (TypeError, OverflowError):
        return "?"


def _is_number(value) -> bool:
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def _finite(value) -> bool:
    return math.isfinite(abs(value))


def _sympy():
    import sympy

    return sympy


def _expression(sympy, value):
    if isinstance(value, str):
        return sympy.sympify(value.replace("^", "**"), locals={name: sympy.Symbol(name) for name in _LETTERS})
    return sympy.sympify(value)


#: One-letter names read as symbols, not as sympy's constants (``E``, ``I``, ``S``, ``N``, ``O``, ``Q``).
_LETTERS = [chr(code) for code in range(ord("a"), ord("z") + 1)]


def _symbol(sympy, name):
    return sympy.Symbol(name) if isinstance(name, str) else name


def _symbols(sympy, given, *expressions) -> list:
    if given:
        return [_symbol(sympy, name) for name in given]
    free = set().union(*(expression.free_symbols for expression in expressions))
    return sorted(free, key=str)


def _sides(sympy, equation):
    if isinstance(equation, str):
        text = equation.replace("==", "=")
        if text.count("=") == 1:
            left, right = text.split("=")
            return _expression(sympy, left), _expression(sympy, right)
        return _expression(sympy, text), sympy.Integer(0)
    if isinstance(equation, sympy.Equality):
        return equation.lhs, equation.rhs
    return _expression(sympy, equation), sympy.Integer(0)


def _is_zero(value) -> bool:
    try:
        return abs(complex(value)) <= 1e-9
    except (TypeError, ValueError):
        return False


def _counterexample(sympy, left, right, names):
    """A point where the two sides' values differ, and the point as text; ``None`` when none is found."""
    if not names:
        values = (_evaluate(left, {}), _evaluate(right, {}))
        return None if _same(*values) else (values, "every point")
    functions = [sympy.lambdify(names, side, modules="mpmath") for side in (left, right)]
    generator = random.Random(0)
    points = [
        [_POINTS[(index + offset) % len(_POINTS)] for offset in range(len(names))] for index in range(len(_POINTS))
    ]
    points += [[generator.uniform(-100, 100) for _ in names] for _ in range(_RANDOM_POINTS)]
    compared = 0
    for point in points:
        values = tuple(_call(function, point) for function in functions)
        if values[0] is None and values[1] is None:
            continue
        if values[0] is None or values[1] is None:
            values = tuple(_call(function, [complex(value) for value in point]) for function in functions)
            if values[0] is None or values[1] is None:
                continue
        compared += 1
        if not _same(*values):
            shown = ", ".join(
                f"${sympy.latex(name)} = {_number(value)}$" for name, value in zip(names, point, strict=True)
            )
            return values, shown
    if compared == 0:
        raise VerificationError("no point was found where both sides have a value: they cannot be compared")
    return None


def _evaluate(expression, _):
    try:
        return complex(expression.evalf())
    except (TypeError, ValueError):
        return None


def _call(function, point):
    try:
        value = complex(function(*point))
    except (ArithmeticError, ValueError, TypeError, OverflowError):
        return None
    return value if math.isfinite(value.real) and math.isfinite(value.imag) else None


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= _REL * max(1.0, abs(a), abs(b))


def _number(value) -> str:
    if isinstance(value, complex):
        if abs(value.imag) > 1e-12 * max(1.0, abs(value.real)):
            return f"{_number(value.real)} {'-' if value.imag < 0 else '+'} {_number(abs(value.imag))}i"
        value = value.real
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}" if isinstance(value, float) else str(value)
