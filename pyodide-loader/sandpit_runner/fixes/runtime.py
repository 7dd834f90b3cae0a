"""Fixes for errors a program raised while it ran: a name used without its
import, a misspelled name, attribute, method, module, imported name or dict
key, other languages' habits (``true``, ``xrange``, ``.push``, ``.length``),
and ``str + int``."""

import ast
import re
import sys
import traceback

from . import known
from .edits import Candidate, Source, import_position
from .suggest import closest, nearest


class Site:
    """Where a run failed: its exception, the innermost frame of the run's
    own code (``filename``) and the span of what failed there, as code
    positions count it (lines 1-based, UTF-8 byte columns)."""

    def __init__(self, error: BaseException, filename: str):
        self.error = error
        self.frame = None
        self.span = None
        tb = error.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                self.frame = tb.tb_frame
                summary = traceback.extract_tb(tb, limit=1)[0]
                self.span = (summary.lineno, summary.colno, summary.end_lineno, summary.end_colno)
            tb = tb.tb_next

    def lookup(self, name: str):
        """What ``name`` holds in the failing frame, read from its dictionaries
        (no code of the program's runs); ``None`` when it holds nothing."""
        if self.frame is None:
            return None
        for scope in (self.frame.f_locals, self.frame.f_globals):
            if name in scope:
                return scope[name]
        return None

    def known_names(self) -> tuple:
        """The program's own names where it failed, then the builtins."""
        if self.frame is None:
            return set(), set()
        return {*self.frame.f_locals, *self.frame.f_globals}, set(self.frame.f_builtins)

    def nodes(self, tree, kind):
        """Nodes of ``kind`` whose span is the failing one, else on its line."""
        found = [node for node in ast.walk(tree) if isinstance(node, kind)]
        if self.span is None:
            return []
        exact = [node for node in found if _span(node) == self.span]
        return exact or [node for node in found if node.lineno == self.span[0]]


def candidates(error: BaseException, site: Site, source: Source, tree, modules) -> list:
    """Fixes to try for ``error``, best first; ``modules`` are the import
    names of the packages Pyodide can load."""
    if isinstance(error, NameError) and not isinstance(error, UnboundLocalError):
        return _undefined(error, site, source, tree, modules)
    if isinstance(error, AttributeError):
        return _attribute(error, site, source, tree)
    if isinstance(error, ModuleNotFoundError):
        return _module(error, source, tree, modules)
    if isinstance(error, ImportError):
        return _imported_name(error, source, tree)
    if isinstance(error, KeyError):
        return _key(error, site, source, tree)
    if isinstance(error, TypeError):
        return _concatenation(error, site, source, tree)
    return []


def _undefined(error: NameError, site: Site, source: Source, tree, modules) -> list:
    name = getattr(error, "name", None)
    if not isinstance(name, str) or not name:
        return []
    stores = any(
        isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load) for node in ast.walk(tree)
    )
    found = []
    if name in known.HABITS and not stores:
        found.append(_rename(tree, source, name, known.HABITS[name]))
    for statement in _import_statements(name, modules):
        at = import_position(source, tree)
        text = (
            statement + "\n"
            if at < len(source.code) or source.code.endswith("\n") or not source.code
            else "\n" + statement + "\n"
        )
        found.append(Candidate(statement, [(at, at, text)]))
    if not stores:
        own, builtins = site.known_names()
        for meant in nearest(name, own, most=3) or nearest(name, builtins, most=1):
            found.append(_rename(tree, source, name, meant))
    return found


def _import_statements(name: str, modules) -> list:
    """The imports that would define ``name``: a module of that name, a
    conventional alias, a well-known name of a module (``datetime`` is both)."""
    found = []
    if name in known.ALIASES:
        found.append(f"import {known.ALIASES[name]} as {name}")
    if (name in sys.stdlib_module_names and not name.startswith("_")) or name in modules:
        found.append(f"import {name}")
    if name in known.FROM_IMPORTS:
        found.append(f"from {known.FROM_IMPORTS[name]} import {name}")
    return found


def _rename(tree, source: Source, old: str, new: str) -> Candidate:
    """Every use of the name ``old`` read as ``new``."""
    edits = [
        (*source.node_span(node), new)
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id == old and isinstance(node.ctx, ast.Load)
    ]
    return Candidate(f"`{old}` → `{new}`", edits)


def _attribute(error: AttributeError, site: Site, source: Source, tree) -> list:
    name = getattr(error, "name", None)
    if not isinstance(name, str):
        return []
    nodes = [node for node in site.nodes(tree, ast.Attribute) if node.attr == name]
    if not nodes:
        return []
    node = nodes[0]
    start, end = source.node_span(node)
    value = source.segment(*source.node_span(node.value))
    habit = known.METHOD_HABITS.get(name)
    found = []
    if habit is not None and habit[1]:
        call = next((parent for parent in ast.walk(tree) if isinstance(parent, ast.Call) and parent.func is node), None)
        if call is not None and not call.args and not call.keywords:
            start, end = source.node_span(call)
        found.append(Candidate(f"`{source.segment(start, end)}` → `len({value})`", [(start, end, f"len({value})")]))
    else:
        meant = habit[0] if habit is not None else None
        owner = getattr(error, "obj", None)
        if meant is None or (owner is not None and not hasattr(owner, meant)):
            meant = closest(name, dir(owner)) if owner is not None else None
        if meant is not None:
            every = [other for other in ast.walk(tree) if isinstance(other, ast.Attribute) and other.attr == name]
            edits = [(at - len(name), at, meant) for at in (source.node_span(other)[1] for other in every)]
            found.append(Candidate(f"`.{name}` → `.{meant}`", edits))
    return found


def _module(error: ModuleNotFoundError, source: Source, tree, modules) -> list:
    name = getattr(error, "name", None)
    if not isinstance(name, str) or not name:
        return []
    top = name.split(".")[0]
    meant = known.MODULE_NAMES.get(top) or closest(
        top, {*sys.stdlib_module_names, *modules, *(module.split(".")[0] for module in sys.modules)}
    )
    if meant is None:
        return []
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == top:
                    start = source.offset(alias.lineno, source.char_column(alias.lineno, alias.col_offset))
                    edits.append((start, start + len(top), meant))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == top:
            line = source.line(node.lineno)
            found = re.search(rf"\bfrom\s+({re.escape(top)})\b", line)
            if found:
                start = source.offset(node.lineno, found.start(1))
                edits.append((start, start + len(top), meant))
    return [Candidate(f"`import {top}` → `import {meant}`", edits)] if edits else []


def _imported_name(error: ImportError, source: Source, tree) -> list:
    said = re.match(r"cannot import name '(\w+)' from '([\w.]+)'", str(error))
    if not said:
        return []
    wrong, module_name = said.groups()
    module = sys.modules.get(module_name)
    meant = closest(wrong, dir(module)) if module is not None else None
    if meant is None:
        return []
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == module_name:
            for alias in node.names:
                if alias.name == wrong:
                    start = source.offset(alias.lineno, source.char_column(alias.lineno, alias.col_offset))
                    edits.append((start, start + len(wrong), meant))
    return [Candidate(f"`{wrong}` → `{meant}` (from {module_name})", edits)] if edits else []


def _key(error: KeyError, site: Site, source: Source, tree) -> list:
    if len(error.args) != 1 or not isinstance(error.args[0], str):
        return []
    wrong = error.args[0]
    for node in site.nodes(tree, ast.Subscript):
        if not (
            isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Constant) and node.slice.value == wrong
        ):
            continue
        mapping = site.lookup(node.value.id)
        if type(mapping) is not dict:
            continue
        meant = closest(wrong, [key for key in mapping if isinstance(key, str)])
        if meant is None:
            continue
        start, end = source.node_span(node.slice)
        quote = source.segment(start, end)[-1] if source.segment(start, end)[-1:] in "'\"" else "'"
        text = quote + meant + quote if quote not in meant and "\\" not in meant else repr(meant)
        return [Candidate(f"key {wrong!r} → {meant!r}", [(start, end, text)])]
    return []


def _concatenation(error: TypeError, site: Site, source: Source, tree) -> list:
    message = str(error)
    if re.match(r'can only concatenate str \(not "\w+"\) to str', message):
        wrap = "right"
    elif re.match(r"unsupported operand type\(s\) for \+=?: '\w+' and 'str'", message):
        wrap = "left"
    else:
        return []
    for node in site.nodes(tree, (ast.BinOp, ast.AugAssign)):
        if not isinstance(node.op, ast.Add):
            continue
        operand = node.value if isinstance(node, ast.AugAssign) else (node.right if wrap == "right" else node.left)
        if isinstance(node, ast.AugAssign) and wrap == "left":
            continue
        start, end = source.node_span(operand)
        text = source.segment(start, end)
        return [Candidate(f"`{text}` → `str({text})` in the concatenation", [(start, end, f"str({text})")])]
    return []


def _span(node) -> tuple:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
