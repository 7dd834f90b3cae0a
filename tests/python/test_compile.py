"""Compiling code like a notebook cell: the last line split off by a look at
the lines (``_split_last_line``), both halves compiled from source, and the
parse tree where that look is fooled (``_compile``)."""

import ast
import asyncio
import warnings

import pytest
from harness import cells

FILENAME = "<run-test>"


def evaluate(code: str):
    """Compiles ``code`` as a run does and runs it; the last expression's value."""
    body, last = cells.compile_cell(code, FILENAME)
    namespace = {"__name__": "__main__"}

    async def go_on():
        outcome = eval(body, namespace)
        if asyncio.iscoroutine(outcome):
            await outcome
        value = None if last is None else eval(last, namespace)
        return await value if asyncio.iscoroutine(value) else value

    if cells.awaits(body) or cells.awaits(last):
        return asyncio.run(go_on())
    exec(body, namespace)
    return None if last is None else eval(last, namespace)


def splits_cleanly(code: str) -> bool:
    """Whether ``code`` takes the fast way: split, the head compiling as
    statements and the tail as one expression."""
    split = cells.split_last_line(code)
    if split is None:
        return False
    head, tail = split
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    try:
        compile(head, FILENAME, "exec", flags=flags)
        compile(tail, FILENAME, "eval", flags=flags)
    except SyntaxError:
        return False
    return True


class TestSplitLastLine:
    def test_cuts_before_the_last_line_that_starts_a_statement(self):
        assert cells.split_last_line("x = 6\nx * 7") == ("x = 6\n", "x * 7")
        assert cells.split_last_line("x * 7") == ("", "x * 7")

    @pytest.mark.parametrize(
        "code, cut",
        [
            ("x = 1\n# done\n", ""),  # the empty last line, then a comment
            ("f(\n    1,\n)", ""),  # indented and closing-bracket lines
            ("a = [\n1]\n\n\t\n", "a = [\n"),  # "1]" starts at column 0
        ],
    )
    def test_lines_that_cannot_start_a_statement_are_passed_over(self, code, cut):
        head, tail = cells.split_last_line(code)
        assert head == cut
        assert head + tail == code

    def test_none_without_a_line_that_starts_a_statement(self):
        assert cells.split_last_line("") is None
        assert cells.split_last_line("   \n# only a comment\n)") is None

    def test_crlf_line_ends_split_like_lf(self):
        assert cells.split_last_line("x = 4\r\nx\r\n") == ("x = 4\r\n", "x\r\n")

    def test_a_lone_carriage_return_is_left_to_the_tree(self):
        # str.count("\n") would number the tail's lines wrong.
        assert cells.split_last_line("x = 4\rx") is None
        assert cells.split_last_line("x = 4\r\ny = 1\rx") is None


# The e2e contract test runs these in the browser; here each is also marked
# with the way it takes, which the test checks before comparing values.
CASES = [
    # (code, takes the fast way, value of the last expression)
    ("1 + 1", True, 2),
    ("x = 6\nx * 7", True, 42),
    ("x = 1\n\n# done\n", False, None),
    ("def f(*args):\n    return len(args)\nf(\n    1,\n    2,\n)", True, 2),
    ("y = f'''\n{6 * 7}\n'''\ny.strip()", True, "42"),
    ("x = 1 + \\\n2", False, None),
    ("n = 2 + \\\n3\nn", True, 5),
    ("a = 5; a", False, 5),
    ("if True:\n    z = 3\nz", True, 3),
    ("x = 4\r\nx\r\n", True, 4),
    ("x = 4\rx", False, 4),
    ("import asyncio\nawait asyncio.sleep(0)\n40 + 2", True, 42),
    ("import asyncio\nasync def f():\n    return 42\nawait f()", True, 42),
    ('text = """\n1 + 1\n"""', False, None),
    ("x = [\n1,\n]\nx[0]", True, 1),
    ("@staticmethod\ndef f(): pass\nf", True, None),  # a decorator line is no expression
]


class TestCompile:
    @pytest.mark.parametrize("code, fast, value", CASES)
    def test_the_value_is_the_last_expression_on_either_way(self, code, fast, value):
        assert splits_cleanly(code) == fast
        got = evaluate(code)
        if code.endswith("\nf"):
            assert isinstance(got, staticmethod)
        else:
            assert got == value

    @pytest.mark.parametrize(
        "code, whole, value",
        [
            # (code, compiled whole as one statement, value of the last expression)
            ("pass", True, None),
            ("for i in range(3):\n    i", True, None),
            ("import os\n", True, None),
            ("import os; os.sep", False, "/"),  # more statements on a line
            ("pass\n\fos = 7\n\fos", False, 7),  # a form feed, then statements at column 0
            ("not False", False, True),  # a keyword that begins an expression
            ("lambda: 1\n", False, "function"),
            ("format(7)", False, "7"),  # a keyword's letters begin a name
            ("while False:\n    pass", True, None),
            ("if True:\n    x = 1\nelse:\n    x = 2", False, None),  # `else` looks like a statement's start
        ],
    )
    def test_one_statement_of_no_value_is_compiled_whole(self, code, whole, value):
        head, _ = cells.split_last_line(code)
        assert (not head and cells.one_statement_of_no_expression(code)) == whole
        got = evaluate(code)
        assert (type(got).__name__ if value == "function" else got) == value
        # The tree sees the same: a last expression exactly where a value is expected.
        tree = ast.parse(code)
        assert isinstance(tree.body[-1], ast.Expr) == (value is not None)

    def test_code_ending_with_a_statement_has_no_last_expression(self):
        body, last = cells.compile_cell("x = 1\ndel x", FILENAME)
        assert last is None
        assert body.co_filename == FILENAME

    @pytest.mark.parametrize(
        "code, line",
        [
            ("x = 0\n\n1 / x", 3),  # in the tail, compiled on its own
            ("x = 0\n1 / x\ny = 2", 2),  # in the head
            ("x = 0\ry = 1\n1 / x", 3),  # the tree: a lone \r ends a line too
            ("x = 0\n(1 +\n 1 / x)", 3),  # the tree: the tail is no statement's start
        ],
    )
    def test_errors_keep_their_line_in_the_code(self, code, line):
        with pytest.raises(ZeroDivisionError) as raised:
            evaluate(code)
        frames = [tb for tb in _walk(raised.value.__traceback__) if tb.tb_frame.f_code.co_filename == FILENAME]
        assert frames[-1].tb_lineno == line

    def test_a_syntax_error_is_raised_where_python_puts_it(self):
        code = "x = 1\ny = = 2\nz = 3"
        with pytest.raises(SyntaxError) as expected:
            compile(code, FILENAME, "exec")
        with pytest.raises(SyntaxError) as raised:
            cells.compile_cell(code, FILENAME)
        assert raised.value.filename == FILENAME
        assert raised.value.lineno == 2
        assert (raised.value.offset, raised.value.msg) == (expected.value.offset, expected.value.msg)

    @pytest.mark.parametrize(
        "code",
        [
            "y = 1\nif y is 1: pass\ny",  # the fast way: the head compiled once
            "y = 1\nif y is 1: pass\nz = y",  # the tail fails first; the tree compiles once
        ],
    )
    def test_a_syntax_warning_is_given_once(self, code):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cells.compile_cell(code, FILENAME)
        assert [type(w.message) for w in caught] == [SyntaxWarning]

    def test_top_level_await_is_compiled_as_a_coroutine(self):
        body, last = cells.compile_cell("import asyncio\nawait asyncio.sleep(0)\nx = 1", FILENAME)
        assert cells.awaits(body) and last is None
        body, last = cells.compile_cell("import asyncio\nawait asyncio.sleep(0)", FILENAME)
        assert not cells.awaits(body) and cells.awaits(last)
        body, last = cells.compile_cell("x = 1\nx", FILENAME)
        assert not cells.awaits(body) and not cells.awaits(last)
        assert not cells.awaits(None)


def _walk(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next
