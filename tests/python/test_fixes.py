"""Verified fixes (``error.fix``): each class of mechanical fix proposed,
tried and offered; none for errors that have no mechanical fix; a fix is
verified only when its trial ran clean; a trial leaves nothing behind."""

import os

import pytest
from harness import UnderTest, run


def fix_of(code: str, **fields) -> dict:
    result = run(code, **fields)
    assert result["status"] == "error"
    return result["error"].get("fix")


def verified(code: str, **fields) -> dict:
    fix = fix_of(code, **fields)
    assert fix is not None, "no fix offered"
    assert fix["verified"] is True and fix["outcome"] is None, fix
    return fix


VERIFIED = [
    # a name used without its import: modules and well-known names
    ("x = math.sqrt(16)\nprint(x)", "import math", "import math\nx = math.sqrt(16)"),
    ("print(json.dumps({'a': 1}))", "import json", "import json\n"),
    ("m = re.match('a', 'abc')\nm.group()", "import re", "import re\n"),
    ("c = Counter('hello')\nc", "from collections import Counter", "from collections import Counter\n"),
    ("d = defaultdict(list)\nd", "from collections import defaultdict", "from collections import defaultdict\n"),
    ("p = Path('a.txt')\np", "from pathlib import Path", "from pathlib import Path\n"),
    (
        "@dataclass\nclass P:\n    x: int\nP(1)",
        "from dataclasses import dataclass",
        "from dataclasses import dataclass\n@dataclass",
    ),
    ("datetime(2024, 1, 1).year", "from datetime import datetime", "from datetime import datetime\n"),
    # misspelled name, attribute, method, module, imported name, dict key
    ("values = [1, 2, 3]\ntotal = sum(values)\nprint(totl)", "`totl` → `total`", "print(total)"),
    ("import math\nmath.sqr(4)", "`.sqr` → `.sqrt`", "math.sqrt(4)"),
    ("items = [3, 1]\nitems.sortt()\nitems", "`.sortt` → `.sort`", "items.sort()"),
    ("import jsn\njson.dumps(1)", "`import jsn` → `import json`", "import json\n"),
    ("from collections import Countr\nCounter('a')", "`Countr` → `Counter` (from collections)", "import Counter\n"),
    ("d = {'name': 'a'}\nd['nmae']", "key 'nmae' → 'name'", "d['name']"),
    # other languages' habits
    ("flag = true\nflag", "`true` → `True`", "flag = True"),
    ("x = null\nx", "`null` → `None`", "x = None"),
    ("for i in xrange(3): print(i)", "`xrange` → `range`", "range(3)"),
    ("print 'hello'", "`print 'hello'` → `print('hello')`", "print('hello')"),
    ("items = []\nitems.push(3)\nitems", "`.push` → `.append`", "items.append(3)"),
    ("s = 'abc'\nprint(s.length)", "`s.length` → `len(s)`", "print(len(s))"),
    # syntax errors CPython diagnoses
    ("def double(x)\n    return x * 2\ndouble(4)", "add ':' after `def double(x)`", "def double(x):\n"),
    ("x = 3\nif x = 3:\n    print('yes')", "`=` → `==` on line 2", "if x == 3:"),
    ("x = [1, 2 3]\nx", "add a comma after `2` on line 1", "[1, 2, 3]"),
    ("print('a'\ny = 2", "close the '(' opened on line 1 with ')'", "print('a')\n"),
    ("s = 'abc\nprint(s)", "close the string on line 1 with '", "s = 'abc'\n"),
    # indentation
    ("x = 1\n    y = 2\nx", "remove the indent of line 2", "x = 1\ny = 2\n"),
    ("if True:\nprint(1)", "indent line 2 to 4 spaces", "if True:\n    print(1)"),
    ("if True:\n\tx = 1\n        y = 2\nx + y", "indent with spaces, not tabs (a tab as 8 spaces)", "        x = 1"),
    # str + int
    ("n = 5\nprint('n is ' + n)", "`n` → `str(n)` in the concatenation", "'n is ' + str(n)"),
    ("n = 5\nprint(n + ' items')", "`n` → `str(n)` in the concatenation", "str(n) + ' items'"),
]


@pytest.mark.usefixtures("sandbox")
class TestVerifiedFixes:
    @pytest.mark.parametrize("code, summary, fixed", VERIFIED, ids=[case[1] for case in VERIFIED])
    def test_the_fix_is_proposed_tried_and_offered(self, code, summary, fixed):
        fix = verified(code)
        assert fix["summary"] == summary
        assert fixed in fix["code"]
        assert fix["diff"].startswith("--- submitted\n+++ fixed\n@@ ")
        assert all(line[0] in " +-@" for line in fix["diff"].splitlines()[2:])

    def test_two_missing_imports_are_followed_to_one_fix(self):
        fix = verified("print(json.dumps(math.pi))")
        assert fix["summary"] == "import json; import math"
        assert fix["code"].startswith("import json\nimport math\n")

    def test_a_fix_must_pass_the_calls_tests(self):
        fix = verified("def add(a, b):\n    return a + b\nprint(ad(1, 2))", tests="assert add(1, 2) == 3")
        assert fix["summary"] == "`ad` → `add`"

    def test_the_diff_is_a_unified_diff_of_the_submitted_program(self):
        fix = verified("import math\nx = 1\ny = math.sqr(x)\nz = 3")
        assert fix["diff"] == (
            "--- submitted\n+++ fixed\n@@ -2,3 +2,3 @@\n x = 1\n-y = math.sqr(x)\n+y = math.sqrt(x)\n z = 3\n"
        )


@pytest.mark.usefixtures("sandbox")
class TestNoFix:
    @pytest.mark.parametrize(
        "code",
        [
            "assert 1 == 2",
            "1 / 0",
            "raise ValueError('the code raises this on purpose')",
            "def f():\n    return f()\nf()",
            "int('x')",
            "[][3]",
            "d = {'a': 1}\nd['zzzzzz']",
        ],
    )
    def test_an_error_with_no_mechanical_fix_gets_none(self, code):
        assert fix_of(code) is None

    def test_a_run_that_succeeds_has_no_fix_and_no_warning(self):
        result = run("x = 1\nx + 1")
        assert result["error"] is None and "warnings" not in result


@pytest.mark.usefixtures("sandbox")
class TestNeverAGuessDressedAsVerified:
    def test_a_fix_whose_trial_fails_is_not_verified_and_says_why(self):
        fix = fix_of("x = math.pi * radius")
        assert fix["verified"] is False
        assert fix["outcome"]["status"] == "error"
        assert fix["outcome"]["error_type"] == "NameError"
        assert "radius" in fix["outcome"]["message"]

    def test_a_fix_whose_tests_fail_is_not_verified(self):
        fix = fix_of("def add(a, b):\n    return a - b\nprint(ad(1, 2))", tests="assert add(1, 2) == 3")
        assert fix["verified"] is False
        assert fix["outcome"]["status"] == "ok"
        assert "tests failed" in fix["outcome"]["message"]

    def test_a_trial_that_runs_past_its_budget_is_not_verified(self):
        fix = fix_of("while True\n    pass")
        assert (fix["verified"], fix["outcome"]["status"]) == (False, "timeout")

    def test_a_trial_never_runs_past_the_calls_own_timeout(self):
        fix = fix_of("while True\n    pass", timeout_ms=100)
        assert (fix["verified"], fix["outcome"]["status"]) == (False, "not_run")


@pytest.mark.usefixtures("sandbox")
class TestATrialLeavesNothing:
    def test_no_name_no_file_no_output_of_the_trial_stays(self, sandbox):
        run("kept = 1\nopen('kept.txt', 'w').write('k')")
        # The run stops at line 2; the fixed program goes on to set a name,
        # write a file and print, in its trial only.
        code = "print('before')\nprint(math.pi)\nafter = 2\nopen('after.txt', 'w').write('a')\nprint('after')"
        result = run(code)
        assert result["error"]["fix"]["verified"] is True
        assert result["output"] == [{"stream": "stdout", "text": "before\n"}]
        assert result["artifacts"] == [] and result["files"] == [{"path": "kept.txt", "size": 1}]
        session = run("sorted(name for name in globals() if not name.startswith('__'))")
        assert session["value"]["json"] == ["kept"]
        assert sorted(os.listdir(sandbox / "test")) == ["kept.txt"]
        assert not [name for name in os.listdir(sandbox) if name.startswith(".fresh") and os.listdir(sandbox / name)]

    def test_the_trial_sees_a_copy_of_the_sessions_files(self, sandbox):
        run("open('data.txt', 'w').write('42')")
        fix = verified("n = int(open('data.txt').read())\nprint(math.sqrt(n))\nopen('data.txt', 'w').write('gone')")
        assert "import math" in fix["code"]
        assert (sandbox / "test" / "data.txt").read_text() == "42", "the trial's write stays in its copy"

    def test_the_trial_does_not_stream(self):
        result = run("print('once')\nprint(math.e)", eager=True)
        assert result["streamed"] == [("stdout", "once\n")]
        assert UnderTest.runner.current is None
