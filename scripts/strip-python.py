"""Python source on stdin, written to stdout without its comments and the
docstrings nobody reads with `help()`, to make the shipped Python smaller.
Called by minify.mjs with the file's path in the bundle.

Every line stays where it was (what is removed becomes blank lines), so line
numbers in tracebacks and `linecache` still match the source in the repo.
Docstrings that stay: in the `sandpit` package the code imports, those of
its public functions, classes and methods; in the runner, only those of what
the code meets as a builtin or an error (`display`, `show`,
`StdinUnavailableError`).
"""

import ast
import io
import sys
import tokenize

#: The runner's functions and classes whose docstrings the code may read.
USER_FACING = frozenset(("display", "show", "StdinUnavailableError"))


def strip(source: str, public_api: bool) -> str:
    lines = source.split("\n")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, column = token.start
            lines[row - 1] = lines[row - 1][:column].rstrip()
    for node, docstring in unread_docstrings(ast.parse(source), public_api):
        first, last = docstring.lineno - 1, docstring.end_lineno - 1
        # A body must not be empty: a lone docstring leaves an empty string.
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        lines[first] = f'{indent}""' if len(node.body) == 1 else ""
        for row in range(first + 1, last + 1):
            lines[row] = ""
    return "\n".join(lines)


def unread_docstrings(module: ast.Module, public_api: bool):
    """(node, docstring expression) for each docstring nobody reads with `help()`."""
    kept = set()
    for node in ast.walk(module):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if node.name in USER_FACING or (public_api and not node.name.startswith("_")):
            kept.add(node)
    for node in ast.walk(module):
        if node in kept or not isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        first = node.body[0] if node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            yield node, first


if __name__ == "__main__":
    source = sys.stdin.read()
    stripped = strip(source, public_api=sys.argv[1].startswith("pyodide-loader/sandpit/"))
    # Same statements, same lines: anything else is a bug here, not a smaller file.
    compile(stripped, "<stripped>", "exec")
    if stripped.count("\n") != source.count("\n"):
        sys.exit("strip-python: the line count changed")
    sys.stdout.write(stripped)
