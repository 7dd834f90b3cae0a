"""What a matplotlib figure shows, as data a model can read and a test can
check (``FigureSummary`` in src/protocol/): per axes its title, labels
and legend; per series its kind, point count, ranges, NaN and infinity
counts and whether y only rises or only falls. Plain Python over
matplotlib's object model, which the code has imported whenever a figure
exists; numpy comes with it."""


def summarize(figure) -> dict:
    """``FigureSummary`` of a ``matplotlib.figure.Figure``."""
    return {"axes": [_axes(axes) for axes in figure.get_axes()]}


def _axes(axes) -> dict:
    legend = axes.get_legend()
    series = [_line(line) for line in axes.get_lines()]
    series += [_collection(collection) for collection in axes.collections]
    series += [_bars(container) for container in axes.containers if hasattr(container, "patches")]
    series += [_image(image) for image in axes.get_images()]
    return {
        "title": axes.get_title(),
        "xlabel": axes.get_xlabel(),
        "ylabel": axes.get_ylabel(),
        "legend": [text.get_text() for text in legend.get_texts()] if legend is not None else [],
        "series": series,
    }


def _line(line) -> dict:
    return _series("line", line.get_label(), line.get_xdata(orig=True), line.get_ydata(orig=True))


def _collection(collection) -> dict:
    offsets = collection.get_offsets()
    kind = "scatter" if type(collection).__name__ == "PathCollection" else type(collection).__name__.lower()
    if len(offsets) == 0 or getattr(offsets, "ndim", 2) != 2:
        return _series(kind, collection.get_label(), [], [])
    return _series(kind, collection.get_label(), offsets[:, 0], offsets[:, 1])


def _bars(container) -> dict:
    horizontal = getattr(container, "orientation", "vertical") == "horizontal"
    centres, sizes = [], []
    for patch in container.patches:
        if horizontal:
            centres.append(patch.get_y() + patch.get_height() / 2)
            sizes.append(patch.get_width())
        else:
            centres.append(patch.get_x() + patch.get_width() / 2)
            sizes.append(patch.get_height())
    label = container.get_label() if hasattr(container, "get_label") else None
    return _series("barh" if horizontal else "bar", label, centres, sizes)


def _image(image) -> dict:
    shape = getattr(image.get_array(), "shape", ())
    points = shape[0] * shape[1] if len(shape) >= 2 else 0
    return {
        "kind": "image",
        "label": None,
        "points": int(points),
        "x": None,
        "y": None,
        "nan": 0,
        "inf": 0,
        "monotonic": None,
    }


def _series(kind: str, label, xs, ys) -> dict:
    import numpy

    y = _numbers(numpy, ys)
    x = _numbers(numpy, xs)
    nan = int(numpy.isnan(y).sum()) if y is not None else 0
    inf = int(numpy.isinf(y).sum()) if y is not None else 0
    return {
        "kind": kind,
        "label": None if not isinstance(label, str) or label.startswith("_") else label,
        "points": len(ys),
        "x": _range(numpy, x),
        "y": _range(numpy, y),
        "nan": nan,
        "inf": inf,
        "monotonic": _monotonic(numpy, y),
    }


def _numbers(numpy, values):
    """``values`` as floats, or ``None`` when they are not numbers (categories, dates)."""
    try:
        return numpy.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return None


def _range(numpy, values) -> "dict | None":
    if values is None:
        return None
    finite = values[numpy.isfinite(values)]
    if finite.size == 0:
        return None
    return {"min": float(finite.min()), "max": float(finite.max())}


def _monotonic(numpy, values) -> "str | None":
    """ "increasing" (never falls), "decreasing" (never rises), "constant", or
    "neither", over the finite values in order; ``None`` for fewer than two."""
    if values is None:
        return None
    finite = values[numpy.isfinite(values)]
    if finite.size < 2:
        return None
    steps = numpy.diff(finite)
    if not steps.any():
        return "constant"
    if (steps >= 0).all():
        return "increasing"
    if (steps <= 0).all():
        return "decreasing"
    return "neither"


def warnings_of(summary: dict, number: int) -> list:
    """``LintWarning``s about figure ``number`` (1-based, in display order):
    an empty axes, a series that is all NaN, axes plotted with no labels."""
    found = []
    for index, axes in enumerate(summary["axes"], 1):
        where = f"figure {number}, axes {index}" + (f" ({axes['title']!r})" if axes["title"] else "")
        if not axes["series"]:
            found.append(_figure_warning("figure-empty-axes", f"{where} has nothing plotted."))
            continue
        for series in axes["series"]:
            if series["points"] and series["nan"] == series["points"]:
                name = series["label"] or series["kind"]
                found.append(_figure_warning("figure-all-nan", f"{where}: every y value of {name!r} is NaN."))
        plotted = any(series["kind"] != "image" for series in axes["series"])
        if plotted and not axes["xlabel"] and not axes["ylabel"]:
            found.append(
                _figure_warning(
                    "figure-unlabelled", f"{where} has no axis labels: set them with set_xlabel and set_ylabel."
                )
            )
    return found


def _figure_warning(rule: str, message: str) -> dict:
    return {"rule": rule, "line": None, "column": None, "end_column": None, "message": message}
