"""Completion (``complete``): names from a session's globals and their
attributes, the builtins, keywords and modules, found without running any
of the session's code."""

import json

import pytest
from harness import UnderTest, assert_shape, run, schema_enum


def complete(code: str, session: str = "test", cursor: "int | None" = None) -> dict:
    """The answer for the cursor at the end of ``code`` (or at ``cursor``), checked against the schema."""
    answer = json.loads(UnderTest.runner.complete(session, code, len(code) if cursor is None else cursor))
    assert_shape(answer, "Completions")
    for option in answer["options"]:
        assert_shape(option, "CompletionOption")
        assert option["kind"] in schema_enum("CompletionKind")
    return answer


def offered(answer: dict) -> dict:
    """Each name offered that begins with the token, with its kind."""
    return {o["name"]: o["kind"] for o in answer["options"] if o["name"].startswith(answer["token"])}


@pytest.mark.usefixtures("sandbox", "package_index")
class TestComplete:
    def test_the_sessions_globals_builtins_and_keywords(self):
        assert run("total_count = 3\ndef tally(): pass\nclass Tabulate: pass")["status"] == "ok"
        answer = complete("x = to")
        assert answer["token"] == "to"
        assert offered(answer) == {"total_count": "variable"}
        assert offered(complete("ta")) == {"tally": "function"}
        assert offered(complete("Tabu")) == {"Tabulate": "class"}
        assert offered(complete("pri"))["print"] == "function"
        assert offered(complete("whi"))["while"] == "keyword"
        assert offered(complete("mat"))["match"] == "keyword"

    def test_each_session_sees_its_own_names(self):
        assert run("only_here = 1", session="one")["status"] == "ok"
        assert "only_here" in offered(complete("only", session="one"))
        assert "only_here" not in offered(complete("only", session="two"))
        assert UnderTest.runner.sessions.namespace("two") is None, "asking made no session"

    def test_attributes_of_what_the_session_holds(self):
        assert (
            run("import math\nclass Box:\n    size = 1\n    def open(self): pass\nbox = Box()\nbox.label = 'x'")[
                "status"
            ]
            == "ok"
        )
        answer = complete("math.sq")
        assert (answer["token"], offered(answer)) == ("sq", {"sqrt": "function"})
        names = offered(complete("box."))
        assert names == {"size": "variable", "open": "function", "label": "variable"}
        assert "__init__" not in names, "private names only when typed"
        assert "__init__" in offered(complete("box.__"))

    def test_nothing_of_the_session_runs(self):
        code = (
            "calls = []\n"
            "class Trap:\n"
            "    @property\n"
            "    def prop(self):\n"
            "        calls.append('property')\n"
            "        return 1\n"
            "    def __getattr__(self, name):\n"
            "        calls.append('getattr')\n"
            "    def __getattribute__(self, name):\n"
            "        calls.append('getattribute')\n"
            "        return object.__getattribute__(self, name)\n"
            "    def __dir__(self):\n"
            "        calls.append('dir')\n"
            "        return []\n"
            "trap = Trap()"
        )
        assert run(code)["status"] == "ok"
        assert offered(complete("trap.pr")) == {"prop": "property"}
        assert offered(complete("trap.prop.")) == {}, "a property is not read to go further"
        assert offered(complete("trap.missing.")) == {}
        assert offered(complete("tra")) == {"trap": "variable"}
        assert run("calls")["value"]["repr"] == "[]"

    def test_module_names_after_import_and_from(self):
        answer = complete("import js")
        assert answer["token"] == "js"
        assert offered(answer)["json"] == "module"
        assert "numpy" in offered(complete("import numpy as np, nu")), "a Pyodide package, downloaded on first use"
        assert "json" in offered(complete("from js"))
        assert "path" in offered(complete("import os.")), "a submodule already imported"

    def test_names_of_a_module_after_from_import(self):
        answer = complete("from collections import Counter, Ord")
        assert (answer["token"], offered(answer)) == ("Ord", {"OrderedDict": "class"})
        assert offered(complete("from antigravity import ")) == {}, "a module that acts on import is left alone"

    def test_nothing_after_a_dot_that_follows_no_name(self):
        for code in ("foo().", "'text'.", "x = 1.", "items[0]."):
            assert complete(code)["options"] == [], code

    def test_the_cursor_may_be_inside_the_code(self):
        code = "import math\nmath.fl\nprint()"
        answer = complete(code, cursor=code.index("\nprint"))
        assert answer["token"] == "fl"
        assert run("import math")["status"] == "ok"
        assert "floor" in offered(complete(code, cursor=code.index("\nprint")))

    def test_a_soft_keyword_that_is_also_a_name_is_offered_as_the_name(self):
        assert offered(complete("typ"))["type"] == "class"
        assert offered(complete("matc"))["match"] == "keyword"
