"""The modules a program imports: the one scanner that both the check and
the worker's package loading use."""

import ast
import re

#: ``sandpit.verify``'s checks that need sympy, which ships with Sandpit but
#: is loaded only for them.
_SYMBOLIC = re.compile(r"\b(?:equivalent|antiderivative|solves)\b")


def imported_modules(code: str) -> dict[str, int]:
    """Each top-level module ``code`` imports (absolute imports only), with
    the first line that imports it, in order of that line. Code that does
    not parse imports nothing: running it reports the ``SyntaxError``."""
    if "import" not in code:
        return {}
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    return modules_in(tree)


def modules_in(tree: ast.AST) -> dict[str, int]:
    """:func:`imported_modules` of a parsed program."""
    first_line: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            first_line[top] = min(first_line.get(top, node.lineno), node.lineno)
    return dict(sorted(first_line.items(), key=lambda item: item[1]))


def packages_to_load(code: str, package_of: dict, findable) -> list:
    """The packages to load before ``code`` runs: those of the modules it
    imports that are not importable yet, and sympy for the symbolic checks
    of ``sandpit.verify``. ``package_of`` maps import names to package
    names; ``findable(module)`` says whether a module is importable now."""
    modules = imported_modules(code)
    wanted = [module for module in modules if module in package_of and not findable(module)]
    if "sandpit" in modules and _SYMBOLIC.search(code) and not findable("sympy"):
        wanted.append("sympy")
    return list(dict.fromkeys(package_of.get(module, module) for module in wanted))
