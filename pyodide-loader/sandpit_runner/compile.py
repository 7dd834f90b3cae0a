"""Code compiled like a notebook cell: its body, and its last expression
apart, so that the value can be returned; top-level ``await`` allowed."""

import ast
import inspect
import keyword
import re

#: First characters of a line that cannot begin a top-level statement
#: (``""`` is an empty last line); see ``split_last_line``.
NOT_A_STATEMENT_START = frozenset(("", " ", "\t", "\f", "\r", "\n", "#", ")", "]", "}"))

#: Keywords that begin a statement and never an expression.
STATEMENT_KEYWORDS = frozenset(keyword.kwlist) - {"await", "lambda", "not", "None", "True", "False", "yield"}


def compile_cell(code: str, filename: str):
    """Compiles ``code`` like a notebook cell: the body, and its last expression apart
    (``None`` when it does not end with one) so that its value can be returned.
    Top-level ``await`` is allowed.

    Most code ends with an expression (a ``print``, a value) on a line of its
    own: that is split off by :func:`split_last_line` and both parts are
    compiled from source. Only when that fails is the code parsed into a tree
    and the tree compiled, which costs more: Python objects built for every
    node, then read back. Code that is one statement giving
    no value (a loop, say) has nothing to split off: it is compiled whole."""
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    split = split_last_line(code)
    if split is not None:
        head, tail = split
        if not head and one_statement_of_no_expression(code):
            return compile(code, filename, "exec", flags=flags), None
        try:
            # The tail first: when the last line is a statement it fails at
            # once, and the head is then compiled only once, by the tree (so
            # its SyntaxWarnings print once). Blank lines in place of the head
            # keep the tail's line numbers.
            last = compile("\n" * head.count("\n") + tail, filename, "eval", flags=flags)
            return compile(head, filename, "exec", flags=flags), last
        except SyntaxError:
            pass
    tree = ast.parse(code, filename, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, filename, "exec", flags=flags)
    return body, None if last is None else compile(last, filename, "eval", flags=flags)


def split_last_line(code: str) -> "tuple[str, str] | None":
    """``code`` cut before its last line that starts a statement, as far as a
    look at the lines tells: one that begins at column 0 with neither a
    comment nor a closing bracket. ``None`` when there is no such line.

    The cut can be wrong (the line may lie inside a string or a bracket that
    opened above it), so :func:`compile_cell` uses it only when the head compiles
    as statements and the tail as one expression. Then it is right: the head
    compiling on its own means nothing is left open where it ends, so the
    tail starts a statement of its own, and that statement is an expression.
    Code with a lone ``\\r`` (a line end that ``str.count`` would miss when
    numbering the tail's lines) is left to the tree."""
    if code.count("\r") != code.count("\r\n"):
        return None
    end = len(code)
    while end > 0:
        start = code.rfind("\n", 0, end) + 1
        if code[start : start + 1] not in NOT_A_STATEMENT_START:
            return code[:start], code[start:]
        end = start - 1
    return None


def one_statement_of_no_expression(code: str) -> bool:
    """Whether ``code``, whose only line that starts a statement is its first
    (see split_last_line), is one statement that gives no value (a
    ``pass``, a loop, an import): it begins with a keyword that begins no
    expression, and has no ``;`` (more statements on a line) and no form feed
    (after which a line that looks indented may start a statement)."""
    first = re.match(r"\w+", code)
    return first is not None and first.group() in STATEMENT_KEYWORDS and ";" not in code and "\f" not in code


def awaits(compiled) -> bool:
    """Whether compiled code uses top-level ``await`` (evaluating it gives a coroutine)."""
    return compiled is not None and bool(compiled.co_flags & inspect.CO_COROUTINE)
