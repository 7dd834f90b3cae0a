"""Figure summaries, on real matplotlib (the version Pyodide 314.0.7 ships,
as a CPython wheel on this machine): what each axes and series shows, as
a run's displays carry it, ``sandpit.verify.figures()`` and the figure
warnings."""

import importlib.util

import pytest
from harness import run

# Looked for, not imported: matplotlib picks its backend when first imported,
# and must pick the runner's, as it does in the browser.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="installed by scripts/setup.sh test (tests/python/requirements.txt)",
)

FIGURE = "application/vnd.sandpit.figure+json"


def figures_of(code: str) -> list:
    result = run("import matplotlib.pyplot as plt\n" + code)
    assert result["status"] == "ok", result["error"]
    return [display[FIGURE] for display in result["displays"] if FIGURE in display], result


@pytest.mark.usefixtures("sandbox")
class TestSummaries:
    def test_a_line_plot_with_labels_and_a_legend(self):
        (summary,), result = figures_of(
            "import math\nxs = [i / 10 for i in range(50)]\n"
            "plt.plot(xs, [x * x for x in xs], label='square')\nplt.plot(xs, [math.sin(x) for x in xs], label='sine')\n"
            "plt.title('Curves')\nplt.xlabel('x')\nplt.ylabel('y')\nplt.legend()"
        )
        (axes,) = summary["axes"]
        assert (axes["title"], axes["xlabel"], axes["ylabel"], axes["legend"]) == (
            "Curves",
            "x",
            "y",
            ["square", "sine"],
        )
        square, sine = axes["series"]
        assert (square["kind"], square["label"], square["points"]) == ("line", "square", 50)
        assert square["x"] == {"min": 0.0, "max": 4.9} and square["y"]["max"] == pytest.approx(24.01)
        assert (square["monotonic"], sine["monotonic"]) == ("increasing", "neither")
        assert "warnings" not in result
        assert "image/png" in result["displays"][0]

    def test_scatter_bars_and_nan(self):
        (summary,), _ = figures_of(
            "fig, (a, b) = plt.subplots(1, 2)\n"
            "a.scatter([1, 2, 3], [3, 2, 1])\na.set_xlabel('n')\n"
            "b.bar(['x', 'y'], [5, float('nan')])\nb.set_ylabel('count')"
        )
        scatter, bars = summary["axes"]
        assert scatter["series"][0] | {"label": None} == {
            "kind": "scatter", "label": None, "points": 3, "x": {"min": 1.0, "max": 3.0},
            "y": {"min": 1.0, "max": 3.0}, "nan": 0, "inf": 0, "monotonic": "decreasing",
        }  # fmt: skip
        (bar,) = bars["series"]
        assert (bar["kind"], bar["points"], bar["nan"], bar["y"]) == ("bar", 2, 1, {"min": 5.0, "max": 5.0})

    def test_show_captures_in_order_and_verify_sees_them_so_far(self):
        code = (
            "from sandpit import verify\nplt.plot([1, 2], [1, 4])\nplt.xlabel('t')\nplt.show()\n"
            "plt.plot([1, 2, 3], [3, 2, 1])\nplt.ylabel('v')\n"
            "[len(f['axes'][0]['series'][0]['y'] and f['axes'][0]['series']) for f in verify.figures()]"
        )
        summaries, result = figures_of(code)
        assert len(summaries) == 2
        assert result["value"]["json"] == [1, 1]

    def test_verify_figures_can_check_a_plot_in_the_tests(self):
        code = (
            "import matplotlib.pyplot as plt\nplt.plot([0, 1, 2], [0, 1, 4])\nplt.xlabel('x')\nplt.ylabel('x squared')"
        )
        tests = (
            "from sandpit import verify\n"
            "(figure,) = verify.figures()\n"
            "series = figure['axes'][0]['series'][0]\n"
            "assert series['monotonic'] == 'increasing'\n"
            "assert series['points'] == 3"
        )
        assert run(code, tests=tests)["verification"]["passed"] is True


@pytest.mark.usefixtures("sandbox")
class TestWarnings:
    def test_empty_axes_all_nan_and_no_labels_are_named(self):
        _, result = figures_of(
            "fig, (a, b, c) = plt.subplots(1, 3)\n"
            "b.plot([1, 2], [float('nan')] * 2)\nb.set_title('broken')\nb.set_xlabel('x')\n"
            "c.plot([1, 2], [1, 2])"
        )
        rules = [(warning["rule"], warning["message"]) for warning in result["warnings"]]
        assert rules == [
            ("figure-empty-axes", "figure 1, axes 1 has nothing plotted."),
            ("figure-all-nan", "figure 1, axes 2 ('broken'): every y value of 'line' is NaN."),
            (
                "figure-unlabelled",
                "figure 1, axes 3 has no axis labels: set them with set_xlabel and set_ylabel.",
            ),
        ]
        assert all(warning["line"] is None for warning in result["warnings"])
