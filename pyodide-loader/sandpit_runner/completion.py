"""Completions for the editor: names that could be typed at the cursor,
found without running any of the session's code."""

import builtins
import importlib
import inspect
import keyword
import re
import sys
import types
import warnings

#: Most names a completion answer lists.
_COMPLETION_LIMIT = 1000
#: Standard modules a completion never imports to list their names: they act on import.
_NO_IMPORT_TO_COMPLETE = frozenset(("antigravity", "this", "idlelib", "turtledemo", "__hello__", "__phello__"))
#: The end of a line where an import names a module: ``import a, b.c`` or ``from a.b``.
_IMPORTING = re.compile(r"^\s*(?:import\s+(?:[\w.]+\s*(?:as\s+\w+\s*)?,\s*)*|from\s+)([\w.]*)$")
#: ``from module import a, b``: the module whose names complete the end.
_IMPORTING_FROM = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+(?:\(?\s*(?:\w+\s*(?:as\s+\w+\s*)?,\s*)*)(\w*)$")
#: A dotted name ending at the cursor: ``a.b.c`` then the part being typed.
_DOTTED = re.compile(r"(?<![\w.)\]}'\"])((?:[^\W\d]\w*\.)+)(\w*)$")


def complete(namespace: "dict | None", package_names, code: str, cursor: int) -> dict:
    """Names that could be typed at ``cursor`` (a character offset into
    ``code``): after ``import`` or ``from``, module names; after
    ``from m import``, the names of ``m``; after ``name.``, the attributes
    of what the session holds under that name; elsewhere, the session's
    globals, the builtins and the keywords.

    ``namespace`` is the session's globals (``None`` for a session that has
    not run), ``package_names`` the import names of Pyodide's packages.
    Returns ``Completions`` (src/protocol/): the name being typed,
    which the chosen one replaces, and every candidate (the editor filters
    them as typing goes on). Runs none of the session's code: values are
    looked up in dictionaries, never through properties, ``__getattr__`` or
    ``__dir__``. Only a standard module may be imported to list its names.
    """
    line = code[:cursor].rsplit("\n", 1)[-1]
    token = re.search(r"\w*$", line).group()
    names: dict[str, str] = {}
    importing = _IMPORTING.match(line)
    importing_from = _IMPORTING_FROM.match(line)
    dotted = _DOTTED.search(line)
    if importing:
        token = importing.group(1).rsplit(".", 1)[-1]
        names = _module_names(importing.group(1), package_names)
    elif importing_from:
        module = _module_to_complete(importing_from.group(1))
        names = {} if module is None else _kinds(_static_attributes(module))
    elif dotted:
        owner = _resolve(namespace or {}, dotted.group(1)[:-1])
        names = {} if owner is _MISSING else _kinds(_static_attributes(owner))
    elif not line[: len(line) - len(token)].endswith("."):
        # A soft keyword that is also a name (``type``, ``_``) is offered as the name.
        names = dict.fromkeys(keyword.kwlist + keyword.softkwlist, "keyword")
        names |= _kinds(vars(builtins)) | _kinds(namespace or {})
    private = token.startswith("_")
    options = [
        {"name": name, "kind": kind}
        for name, kind in names.items()
        if name.isidentifier() and (private or not name.startswith("_"))
    ]
    return {"token": token, "options": options[:_COMPLETION_LIMIT]}


#: What ``_resolve`` returns for a name that leads nowhere.
_MISSING = object()
#: Attributes whose value is computed when read: completion stops at them.
_ATTRIBUTE_DESCRIPTORS = (property, types.GetSetDescriptorType, types.MemberDescriptorType)


def _resolve(namespace: dict, dotted: str):
    """The value ``dotted`` names in the session, looked up without running
    code (``inspect.getattr_static``), or ``_MISSING``; a property or other
    computed attribute along the way is ``_MISSING`` too."""
    first, *rest = dotted.split(".")
    value = namespace.get(first, vars(builtins).get(first, _MISSING))
    for name in rest:
        if value is _MISSING:
            break
        try:
            value = inspect.getattr_static(value, name)
        except AttributeError:
            return _MISSING
        if issubclass(type(value), _ATTRIBUTE_DESCRIPTORS):
            return _MISSING
    return value


def _static_attributes(value) -> dict:
    """``value``'s attributes by name as ``dir()`` would list them, read from
    the dictionaries of the value and of its classes."""
    is_class = issubclass(type(value), type)
    try:
        owners = type.__getattribute__(value if is_class else type(value), "__mro__")
    except Exception:  # noqa: BLE001 - an odd class lists nothing
        return {}
    found: dict = {}
    for owner in reversed(owners):
        found.update(type.__getattribute__(owner, "__dict__"))
    if not is_class:
        try:
            own = object.__getattribute__(value, "__dict__")
        except Exception:  # noqa: BLE001 - no dictionary of its own to read
            own = None
        if type(own) is dict:
            found.update(own)
    return {name: item for name, item in found.items() if type(name) is str}


def _kinds(values: dict) -> dict:
    """Each name's kind of value, as ``CompletionKind`` (src/protocol/) names it."""
    return {name: _kind(value) for name, value in values.items()}


def _kind(value) -> str:
    # By the value's type alone: isinstance() may ask the value for its
    # ``__class__``, which runs a class's own ``__getattribute__``.
    kind = type(value)
    if issubclass(kind, types.ModuleType):
        return "module"
    if issubclass(kind, type):
        return "class"
    if issubclass(kind, _ATTRIBUTE_DESCRIPTORS):
        return "property"
    if callable(value) or issubclass(kind, (staticmethod, classmethod)):
        return "function"
    return "variable"


def _module_names(typed: str, package_names) -> dict:
    """Modules whose name begins with ``typed``'s package part: top-level
    ones (the standard library, Pyodide's packages, what is installed), or
    the submodules of a package already imported."""
    package, _, _ = typed.rpartition(".")
    if not package:
        names = set(sys.stdlib_module_names) | set(package_names)
        names |= {name for name in sys.modules if "." not in name}
        return dict.fromkeys(sorted(names), "module")
    prefix = package + "."
    return {
        name[len(prefix) :]: "module"
        for name in sorted(sys.modules)
        if name.startswith(prefix) and "." not in name[len(prefix) :]
    }


def _module_to_complete(name: str):
    """Module ``name`` if it is imported already, or a standard module that
    imports (once) without acting; else ``None``."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    top = name.split(".")[0]
    if top not in sys.stdlib_module_names or top in _NO_IMPORT_TO_COMPLETE:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - a module that fails to import completes nothing
        return None
