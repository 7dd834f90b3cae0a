"""Python source on stdin, written to stdout without its comments and its
private docstrings, to make the shipped runner.py smaller (bench figure 7).
Called by minify.mjs.

Every line stays where it was (what is removed becomes blank lines), so line
numbers in tracebacks and `linecache` still match the source in the repo. The
docstrings of public top-level functions and classes (`display`, `show`,
`StdinUnavailableError`, ...) stay: user code can read them with `help()`.
"""

import ast
import io
import sys
import tokenize


def strip(source: str) -> str:
    lines = source.split("\n")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, column = token.start
            lines[row - 1] = lines[row - 1][:column].rstrip()
    for node, docstring in private_docstrings(ast.parse(source)):
        first, last = docstring.lineno - 1, docstring.end_lineno - 1
        # A body must not be empty: a lone docstring leaves an empty string.
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        lines[first] = f'{indent}""' if len(node.body) == 1 else ""
        for row in range(first + 1, last + 1):
            lines[row] = ""
    return "\n".join(lines)


def private_docstrings(module: ast.Module):
    """(node, docstring expression) for each docstring nobody reads with `help()`."""
    public = {
        node
        for node in module.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and not node.name.startswith("_")
    }
    for node in ast.walk(module):
        if node in public or not isinstance(
            node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            continue
        first = node.body[0] if node.body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            yield node, first


if __name__ == "__main__":
    source = sys.stdin.read()
    stripped = strip(source)
    # Same statements, same lines: anything else is a bug here, not a smaller file.
    compile(stripped, "<stripped>", "exec")
    if stripped.count("\n") != source.count("\n"):
        sys.exit("strip-python: the line count changed")
    sys.stdout.write(stripped)
