"""What the code reaches of the runner: the ``sandpit`` module's hooks (one
object, installed in ``sys.modules`` under ``HOOKS_MODULE``) and matplotlib's
backend, which finds the runner through them."""

import sys
import types

from .display import FIGURE_MIME, capture_figures, figure_summary, open_figures

#: The name the ``sandpit`` module imports the hooks under.
HOOKS_MODULE = "_sandpit_run"
#: The name matplotlib imports its backend under (``MPLBACKEND=module://...``).
BACKEND_MODULE = "_sandpit_matplotlib_backend"


class Hooks:
    """The run in progress, as ``sandpit.verify`` and ``sandpit.host`` see it."""

    def __init__(self, runner):
        self._runner = runner

    def figures(self) -> list:
        """Summaries of the run's figures: those captured so far, then those still open."""
        job = self._runner.current
        captured = (
            [] if job is None else [bundle[FIGURE_MIME] for bundle in job.displays.bundles if FIGURE_MIME in bundle]
        )
        still_open = [figure_summary(figure) for figure in open_figures()]
        return captured + [summary for summary in still_open if summary is not None]

    def host_call(self, name: str, arguments: dict):
        """``sandpit.host``'s calls: the run's (see host_calls.py)."""
        job = self._runner.current
        if job is None:
            from sandpit.host import HostFunctionError

            raise HostFunctionError("host functions are called from a run's code", name, "refused")
        return job.host.call(name, arguments)

    def host_functions(self) -> list:
        """The functions the run in progress may call, as its request lists them."""
        job = self._runner.current
        return [] if job is None else list(job.host.functions)

    def show(self) -> None:
        """``plt.show()``: captures the open figures now, in order, then closes them."""
        job = self._runner.current
        if job is not None:
            capture_figures(job.displays)


def _backend_classes(name: str):
    """The canvas and manager classes matplotlib asks its backend for: Agg's
    (non-interactive, renders to memory), looked up only when asked, so the
    runner never imports matplotlib itself. Each is kept in the module once
    found: matplotlib then copies the module's names into a class of its own
    (``vars(module)``), where a lookup on demand would not reach."""
    if name == "FigureCanvas":
        from matplotlib.backends.backend_agg import FigureCanvasAgg as found
    elif name == "FigureManager":
        from matplotlib.backend_bases import FigureManagerBase as found
    else:
        raise AttributeError(name)
    setattr(sys.modules[BACKEND_MODULE], name, found)
    return found


def show(*args, **kwargs) -> None:
    """``plt.show()``: the figures open now become the run's displays."""
    hooks = sys.modules.get(HOOKS_MODULE)
    if hooks is not None:
        hooks.show()


def matplotlib_backend() -> types.ModuleType:
    """A module to be matplotlib's backend: the runner installs it in
    ``sys.modules`` under ``BACKEND_MODULE`` and points ``MPLBACKEND`` at it.
    matplotlib keeps its ``show`` once chosen, so that reaches the runner
    through the hooks installed now."""
    backend = types.ModuleType(BACKEND_MODULE, "Sandpit's matplotlib backend: figures become the run's displays.")
    backend.__getattr__ = _backend_classes
    backend.show = show
    return backend
