"""Rich outputs: ``display()``'s MIME bundles, within a run's byte budget,
and matplotlib's figures, captured without ``plt.show()`` tricks."""

import base64
import io
import json
import sys

#: Rich representations looked for on values, in the order they are offered.
REPR_METHODS = (
    ("text/html", "_repr_html_"),
    ("text/markdown", "_repr_markdown_"),
    ("text/latex", "_repr_latex_"),
    ("image/png", "_repr_png_"),
    ("image/svg+xml", "_repr_svg_"),
    ("application/json", "_repr_json_"),
)

#: The key of a figure's summary in its display's bundle.
FIGURE_MIME = "application/vnd.sandpit.figure+json"


def mime_bundle(obj, text: "str | None" = None) -> dict:
    """``text/plain`` (``text``, when its repr is known already) plus every
    rich representation ``obj`` offers."""
    bundle = {"text/plain": repr(obj) if text is None else text}
    if isinstance(obj, type):
        return bundle  # a class's _repr_*_ are unbound methods, not its representation
    for mime, method in REPR_METHODS:
        render = getattr(obj, method, None)
        if not callable(render):
            continue
        try:
            data = render()
        except Exception:  # noqa: BLE001 - a broken repr must not fail the run
            continue
        if isinstance(data, tuple):  # (data, metadata), as IPython allows
            data = data[0]
        if data is None:
            continue
        if mime == "image/png":
            data = base64.b64encode(data).decode("ascii") if isinstance(data, bytes) else str(data)
        elif mime == "application/json":
            try:
                data = json.loads(json.dumps(data, allow_nan=False))
            except (TypeError, ValueError):
                continue
        elif isinstance(data, bytes):
            data = data.decode("utf-8", "replace")
        else:
            data = str(data)
        bundle[mime] = data
    return bundle


class Displays:
    """Rich outputs of one run, within a byte budget."""

    def __init__(self, limit: int, figure_format: str):
        self._room = limit
        self.figure_format = figure_format
        self.bundles: list[dict] = []
        self.truncated = False

    def add(self, bundle: dict) -> None:
        size = len(json.dumps(bundle))
        if size > self._room:
            self.truncated = True
            return
        self._room -= size
        self.bundles.append(bundle)


def open_figures() -> list:
    """matplotlib's open figures, in order; none when pyplot was never imported."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    return [] if pyplot is None else [pyplot.figure(number) for number in pyplot.get_fignums()]


def figure_summary(figure) -> "dict | None":
    """What ``figure`` shows (figures.py); ``None`` when it cannot be read."""
    from .figures import summarize

    try:
        return summarize(figure)
    except Exception:  # noqa: BLE001 - a figure the summary cannot read is still shown
        return None


def capture_figures(displays: Displays) -> None:
    """Every open matplotlib figure as an image display output, with its
    summary, then closed."""
    figures = open_figures()
    for figure in figures:
        buffer = io.BytesIO()
        if displays.figure_format == "svg":
            figure.savefig(buffer, format="svg", bbox_inches="tight")
            bundle = {"text/plain": repr(figure), "image/svg+xml": buffer.getvalue().decode()}
        else:
            figure.savefig(buffer, format="png", bbox_inches="tight")
            bundle = {"text/plain": repr(figure), "image/png": base64.b64encode(buffer.getvalue()).decode("ascii")}
        summary = figure_summary(figure)
        if summary is not None:
            bundle[FIGURE_MIME] = summary
        displays.add(bundle)
    if figures:
        sys.modules["matplotlib.pyplot"].close("all")
