"""The last value and rich outputs: ``_describe_value`` (repr, JSON, cut),
``_mime_bundle`` (the ``_repr_*_`` methods), ``_Displays`` (a byte budget)
and ``display()``."""

import base64
import json
import math

import pytest
from harness import assert_shape, describe_value, display, run


class TestDescribeValue:
    @pytest.mark.parametrize("value", ["text", 42, 2.5, True, None])
    def test_a_json_scalar_is_its_own_json(self, value):
        described = describe_value(value, 100)
        assert_shape(described, "LastValue")
        assert described == {"repr": repr(value), "json": value, "truncated": False}
        assert type(described["json"]) is type(value)

    def test_containers_read_back_as_json_text_would(self):
        described = describe_value({"a": (1, 2), 3: None}, 100)
        assert described["json"] == {"a": [1, 2], "3": None}
        assert described["repr"] == "{'a': (1, 2), 3: None}"

    @pytest.mark.parametrize("value", [{1, 2}, math.nan, [math.inf], b"bytes", object()])
    def test_a_value_json_cannot_express_has_no_json(self, value):
        assert describe_value(value, 100)["json"] is None

    def test_a_value_that_contains_itself_has_no_json(self):
        loop = []
        loop.append(loop)
        assert describe_value(loop, 100) == {"repr": "[[...]]", "json": None, "truncated": False}

    def test_a_long_repr_is_cut_at_the_limit_in_utf8_bytes(self):
        value = "é" * 10
        described = describe_value(value, 8)
        assert described["truncated"]
        assert described["repr"] == "'ééé"  # 1 + 3 * 2 bytes; the next é would pass 8
        # JSON longer than the limit is left out rather than cut.
        assert described["json"] is None

    def test_a_value_whose_json_fits_keeps_it_even_when_its_repr_is_cut(self):
        # A one-element tuple's repr is longer than its JSON: "(1,)" against "[1]".
        described = describe_value((1,), 3)
        assert described == {"repr": "(1,", "json": [1], "truncated": True}


class Rich:
    def __repr__(self):
        return "Rich()"

    def _repr_html_(self):
        return "<b>rich</b>"

    def _repr_markdown_(self):
        return ("**rich**", {"metadata": True})

    def _repr_png_(self):
        return b"\x89PNG"

    def _repr_svg_(self):
        return None

    def _repr_json_(self):
        return {"n": (1, 2)}


class TestMimeBundle:
    def test_every_representation_offered_in_the_schemas_keys(self):
        bundle = display.mime_bundle(Rich())
        assert_shape(bundle, "MimeBundle")
        assert bundle == {
            "text/plain": "Rich()",
            "text/html": "<b>rich</b>",
            "text/markdown": "**rich**",  # (data, metadata): the data
            "image/png": base64.b64encode(b"\x89PNG").decode(),
            "application/json": {"n": [1, 2]},
        }

    def test_a_representation_that_fails_or_cannot_be_json_is_left_out(self):
        class Broken:
            def _repr_html_(self):
                raise RuntimeError("broken")

            def _repr_json_(self):
                return {"x": math.nan}

            _repr_markdown_ = "not callable"

        assert list(display.mime_bundle(Broken())) == ["text/plain"]

    def test_text_in_bytes_is_decoded_and_a_png_in_text_kept(self):
        class Bytes:
            def _repr_svg_(self):
                return b"<svg>\xff</svg>"

            def _repr_png_(self):
                return "iVBORw0KGgo="

        bundle = display.mime_bundle(Bytes())
        assert bundle["image/svg+xml"] == "<svg>\ufffd</svg>"
        assert bundle["image/png"] == "iVBORw0KGgo="

    def test_a_class_is_only_its_repr(self):
        assert display.mime_bundle(Rich) == {"text/plain": repr(Rich)}


class TestDisplays:
    def test_bundles_are_kept_within_the_byte_budget(self):
        small, large = {"text/plain": "a"}, {"text/plain": "b" * 100}
        displays = display.Displays(len(json.dumps(small)) * 2, "png")
        displays.add(small)
        displays.add(large)
        displays.add(small)
        assert displays.bundles == [small, small]
        assert displays.truncated
        displays.add(small)
        assert displays.bundles == [small, small]

    def test_display_without_a_run_prints_the_text(self, capsys, runner):
        runner.display(Rich(), 3)
        assert capsys.readouterr().out == "Rich()\n3\n"


@pytest.mark.usefixtures("sandbox")
class TestInARun:
    def test_display_calls_then_the_last_values_rich_form(self):
        code = "class R:\n    def _repr_html_(self):\n        return '<i>r</i>'\ndisplay(1, R())\nR()"
        result = run(code)
        assert [bundle.get("text/html") for bundle in result["displays"]] == [None, "<i>r</i>", "<i>r</i>"]
        assert result["displays"][0] == {"text/plain": "1"}
        assert result["value"]["repr"].startswith("<__main__.R object at ")

    def test_a_built_in_value_gives_no_display(self):
        result = run("[1, 2]")
        assert result["displays"] == []
        assert result["value"] == {"repr": "[1, 2]", "json": [1, 2], "truncated": False}

    def test_displays_past_the_budget_are_dropped(self):
        # Room for the first and the last, not for the one between.
        room = len(json.dumps({"text/plain": "'xxxxxxxxxx'"})) + len(json.dumps({"text/plain": "'z'"}))
        limits = runner_limits(display_bytes=room)
        result = run("display('x' * 10)\ndisplay('y' * 100)\ndisplay('z')", limits=limits)
        assert [bundle["text/plain"] for bundle in result["displays"]] == ["'xxxxxxxxxx'", "'z'"]
        assert result["truncated"]["displays"]

    def test_a_value_whose_repr_fails_leaves_the_run_ok_and_says_why(self):
        result = run("class B:\n    def __repr__(self):\n        raise ValueError('no repr')\nB()")
        assert (result["status"], result["error"]) == ("ok", None)
        value = result["value"]
        assert_shape(value, "LastValue")
        assert value["repr_error"] == "ValueError: no repr"
        assert value["repr"].startswith("<__main__.B object at 0x")
        assert value["repr"].endswith("> (repr() failed: ValueError: no repr)")

    def test_a_repr_that_raises_what_is_no_error_or_gives_no_text_fails_no_run(self):
        for body, reason in [
            ("raise SystemExit(3)", "SystemExit: 3"),
            ("return 7", "TypeError: __repr__ returned non-string (type int)"),
        ]:
            result = run(f"class B:\n    def __repr__(self):\n        {body}\nB()")
            assert (result["status"], result["value"]["repr_error"]) == ("ok", reason)

    def test_a_value_with_rich_forms_and_a_broken_repr_keeps_them(self):
        code = (
            "class B:\n    def __repr__(self):\n        raise ValueError\n"
            "    def _repr_html_(self):\n        return '<b>b</b>'\nB()"
        )
        result = run(code)
        assert result["value"]["repr_error"] == "ValueError"
        [bundle] = result["displays"]
        assert bundle["text/html"] == "<b>b</b>"
        assert bundle["text/plain"] == result["value"]["repr"]

    def test_a_repr_that_recurses_is_a_recursion_error_on_the_value(self):
        result = run("class B:\n    def __repr__(self):\n        return repr(self)\nB()")
        assert (result["status"], result["value"]["repr_error"]) == (
            "ok",
            "RecursionError: maximum recursion depth exceeded",
        )

    def test_a_repr_that_works_has_no_note(self):
        assert "repr_error" not in run("7")["value"]


def runner_limits(**changes):
    from harness import LIMITS

    return LIMITS | changes
