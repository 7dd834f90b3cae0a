"""The lint's rules over a program's tree: each yields ``(rule, node,
message, candidate)``."""

import ast
import re

from ..fixes.edits import Candidate, import_position
from . import sql

#: Names that say a value is a secret.
_SECRET = re.compile(r"token|passw|secret|salt|nonce|otp|api_?key|session_?id|auth|credential", re.IGNORECASE)
#: Modules whose loading runs code the data names.
_PICKLERS = ("pickle", "cPickle", "dill", "shelve")
#: ``random`` functions and what ``secrets`` offers instead (``None``: no drop-in).
_RANDOM = {
    "choice": "choice",
    "getrandbits": "randbits",
    "random": None,
    "randint": None,
    "randrange": None,
    "choices": None,
    "sample": None,
    "shuffle": None,
}


def check(tree, source):
    """Every finding in ``tree``, the parsed ``source``."""
    imported = _imported(tree)
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _called(node)
        if name in ("execute", "executemany", "executescript") and isinstance(node.func, ast.Attribute):
            yield from sql.check(node, tree, source, "sqlite3" in source.code)
        elif name in ("eval", "exec") and isinstance(node.func, ast.Name) and node.args:
            yield from _eval(node, name, tree, source, imported)
        elif name in ("loads", "load") and _module_of(node) in _PICKLERS and not _own_pickle(node):
            yield (
                "unsafe-deserialization",
                node,
                f"{_module_of(node)}.{name}() runs code the data carries: never unpickle what you did not write; "
                "use json for data from elsewhere.",
                None,
            )
        elif name == "load" and _module_of(node) == "yaml":
            yield from _yaml(node, source)
        elif name in _RANDOM and _module_of(node) == "random" and _secret_context(node, parents, source):
            yield _random(node, name, tree, source, imported)
        elif name in ("md5", "sha1") and _module_of(node) == "hashlib" and _secret_context(node, parents, source):
            yield (
                "weak-hash-for-password",
                node,
                f"hashlib.{name} is fast and broken for passwords: use hashlib.scrypt or hashlib.pbkdf2_hmac "
                "with a random salt.",
                None,
            )


def _own_pickle(node: ast.Call) -> bool:
    """``pickle.loads(pickle.dumps(...))``: data the program just made itself."""
    argument = node.args[0] if node.args else None
    return (
        isinstance(argument, ast.Call) and _called(argument) in ("dumps", "dump") and _module_of(argument) in _PICKLERS
    )


def _eval(node, name: str, tree, source, imported):
    argument = node.args[0]
    if isinstance(argument, ast.Constant):
        return
    candidate = None
    if name == "eval":
        start, end = source.node_span(node.func)
        edits = [(start, end, "ast.literal_eval")]
        if "ast" not in imported:
            at = import_position(source, tree)
            edits.append((at, at, "import ast\n"))
        candidate = Candidate("`eval(...)` → `ast.literal_eval(...)`", edits)
    yield (
        "eval-of-input",
        node,
        f"{name}() of a string made at run time runs whatever the string holds; "
        + ("ast.literal_eval reads Python literals without running code." if name == "eval" else "avoid it."),
        candidate,
    )


def _yaml(node, source):
    loader = next((keyword.value for keyword in node.keywords if keyword.arg == "Loader"), None)
    safe = loader is not None and "Safe" in ast.unparse(loader)
    if safe:
        return
    candidate = None
    if loader is None and len(node.args) == 1:
        start, end = source.node_span(node.func)
        candidate = Candidate("`yaml.load(...)` → `yaml.safe_load(...)`", [(start, end, "yaml.safe_load")])
    yield (
        "unsafe-deserialization",
        node,
        "yaml.load without a safe loader can build any Python object the document names: use yaml.safe_load.",
        candidate,
    )


def _random(node, name: str, tree, source, imported):
    instead = _RANDOM[name]
    candidate = None
    if instead is not None:
        start, end = source.node_span(node.func)
        edits = [(start, end, f"secrets.{instead}")]
        if "secrets" not in imported:
            at = import_position(source, tree)
            edits.append((at, at, "import secrets\n"))
        candidate = Candidate(f"`random.{name}` → `secrets.{instead}`", edits)
    return (
        "weak-random-for-secret",
        node,
        f"random.{name} is predictable: use the secrets module for tokens and passwords.",
        candidate,
    )


def _secret_context(node, parents, source) -> bool:
    """Whether the value is a secret: what it is assigned to, the function it
    is in, or the text around it says so."""
    current = node
    while current in parents:
        current = parents[current]
        if isinstance(current, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = current.targets if isinstance(current, ast.Assign) else [current.target]
            if any(_SECRET.search(ast.unparse(target)) for target in targets):
                return True
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return bool(_SECRET.search(current.name))
        if isinstance(current, ast.Call) and _SECRET.search(ast.unparse(current.func)):
            return True
    return bool(_SECRET.search(source.line(node.lineno)))


def _called(node: ast.Call) -> "str | None":
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _module_of(node: ast.Call) -> "str | None":
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id
    return None


def _imported(tree) -> set:
    """The names ``import`` statements bind to modules."""
    return {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
