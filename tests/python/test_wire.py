"""The protocol's Python side (tests/python/wire.py): current with the
schema, and strict enough to catch a runner that drifts from it."""

import subprocess
import sys

import pytest
from harness import ROOT, assert_shape, run


def test_the_committed_types_are_what_the_schema_gives():
    generated = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "protocol-python.py")], capture_output=True, text=True, check=True
    ).stdout
    committed = (ROOT / "tests" / "python" / "wire.py").read_text()
    assert generated == committed, "tests/python/wire.py is stale: run `make schema`"


@pytest.mark.usefixtures("sandbox")
class TestShapes:
    def test_a_real_result_conforms_all_the_way_down(self):
        # ``run`` checks every result it gives; this one holds every part.
        tested = run("import sys\nprint('a')\nprint('b', file=sys.stderr)\nx = 1", tests="assert x == 2")
        assert tested["verification"]["tests"][0]["compared"] and len(tested["output"]) == 2
        assert run("1 / 0")["error"]["source"]

    @pytest.mark.parametrize(
        "change, complaint",
        [
            (lambda r: r["output"].append({"stream": "stdin", "text": "x"}), "not one of"),
            (lambda r: r.update(duration_ms="1"), "no number"),
            (lambda r: r["truncated"].pop("output"), "lacks"),
            (lambda r: r["error"].update(colour=1), "unknown keys"),
            (lambda r: r["error"]["source"].append({"line": "1", "text": ""}), "no int"),
        ],
    )
    def test_a_drifted_result_is_caught(self, change, complaint):
        result = run("1 / 0")
        result.pop("streamed")
        change(result)
        with pytest.raises(AssertionError, match=complaint):
            assert_shape(result, "RunResult")
