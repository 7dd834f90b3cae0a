"""Where an import comes from (the standard library, a bundled wheel, the
package CDN, nowhere) and, when it failed, why and what to do instead."""

import importlib.util
import sys

#: What to use instead of modules that cannot work in a browser sandbox.
ALTERNATIVES = {
    "requests": "use `pyodide.http.pyfetch` (async) or `pyodide.http.open_url`, or pass the data in as a file",
    "urllib3": "use `pyodide.http.pyfetch`, or pass the data in as a file",
    "httpx": "use `pyodide.http.pyfetch`, or pass the data in as a file",
    "aiohttp": "use `pyodide.http.pyfetch`",
    "torch": "no deep-learning framework runs here; use numpy or scikit-learn",
    "tensorflow": "no deep-learning framework runs here; use numpy or scikit-learn",
    "cv2": "use Pillow (`PIL`) or scikit-image",
    "psycopg2": "there is no network database access; use sqlite3 on a file",
    "tkinter": "there is no display; draw with matplotlib, or return HTML",
}


def findable(module: str) -> bool:
    """Whether ``module`` is importable now (installed earlier, say with micropip)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


class PackageIndex:
    """Import name -> package name, from the lockfile, and the packages
    shipped with the app (``PackageIndex`` in the worker); and the packages
    whose download failed in the run in progress: name -> "blocked", or why
    the download failed (what Pyodide said, else "network")."""

    def __init__(self):
        self.package_of: dict[str, str] = {}
        self.bundled: set[str] = set()
        self.load_failures: dict[str, str] = {}

    def configure(self, index: dict) -> None:
        self.package_of.update({name: package.lower() for name, package in index["imports"].items()})
        self.bundled.update(index["bundled"])

    def import_hint(self, name: str) -> dict:
        """Says why ``import name`` failed and what to do: the four cases models need apart."""
        instead = ALTERNATIVES.get(name)
        package = self.package_of.get(name)
        failure = self.load_failures.get(package or name)
        if failure == "blocked":
            return {
                "code": "package_blocked",
                "message": f"Loading the package {package!r} was refused by the network policy.",
            }
        if package is not None and package not in self.bundled:
            return {
                "code": "package_needs_network",
                "message": f"{package!r} is a Pyodide package that is downloaded on first use, "
                "and the download failed: the sandbox seems to be offline. "
                "It works once the network is back; offline, only the bundled packages "
                f"({', '.join(sorted(self.bundled))}) are available." + (f" Offline, {instead}." if instead else ""),
            }
        if package is not None and failure is not None:
            said = "." if failure == "network" else f": {failure}"
            return {
                "code": "module_not_found",
                "message": f"{package!r} ships with Sandpit but failed to load{said}",
            }
        if package is not None:
            return {
                "code": "module_not_found",
                "message": f"{package!r} ships with Sandpit but was not loaded: packages load "
                f"for the imports the code names. Add `import {name}` to the code, or list "
                f"{package!r} in the run's packages.",
            }
        if instead is not None:
            return {
                "code": "package_unavailable",
                "message": f"{name!r} is not available in this browser sandbox: {instead}.",
            }
        return {
            "code": "module_not_found",
            "message": f"No module {name!r} here and no Pyodide package provides it. "
            "If it is a pure-Python package, `import micropip; await micropip.install(...)` "
            "can fetch it when the network policy allows; otherwise use the standard library.",
        }

    def plan(self, module: str, line: int) -> dict:
        """Where ``import module`` would come from: offline, the network, or nowhere."""
        package = self.package_of.get(module)
        plan = {"module": module, "line": line, "package": package}
        if package is not None and package in self.bundled:
            return plan | {"availability": "offline", "message": f"{package!r} ships with Sandpit."}
        if package is not None:
            return plan | {
                "availability": "network",
                "message": f"{package!r} is downloaded from the package CDN on first use, then works offline.",
            }
        if module in sys.stdlib_module_names:
            return plan | {"availability": "offline", "message": "In the standard library."}
        if findable(module):
            return plan | {"availability": "offline", "message": "Installed in this sandbox."}
        instead = ALTERNATIVES.get(module)
        return plan | {
            "availability": "unavailable",
            "message": f"Not available in this browser sandbox: {instead}."
            if instead
            else "No Pyodide package provides it. If it is pure Python, "
            "`await micropip.install(...)` can fetch it when the network policy allows.",
        }
