"""SQL built from strings and passed to ``execute``: the classic injection.
The fix is the parameterized query, the values passed as parameters."""

import ast
import re

from ..fixes.edits import Candidate

_MESSAGE = (
    "SQL built from strings ({how}) and passed to {call}(): a value holding a quote changes the query "
    "(SQL injection). Pass the values as parameters instead."
)
#: Words after which a query names a table or column, which parameters cannot stand for.
_IDENTIFIER_BEFORE = re.compile(r"\b(?:SELECT|FROM|JOIN|INTO|UPDATE|TABLE|BY|DISTINCT)\s*$|[,.]\s*$", re.IGNORECASE)
#: ``%`` placeholders of printf-style formatting.
_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifr]|%%")


def check(call: ast.Call, tree, source, sqlite: bool):
    """The finding for ``call`` (``x.execute(query, ...)``), when its query is built."""
    if not call.args:
        return
    query = call.args[0]
    assigned = None
    if isinstance(query, ast.Name):
        assigned = _assignment(tree, query.id, call.lineno)
        if assigned is None:
            return
        query_value = assigned.value
    else:
        query_value = query
    parts, how = _parts(query_value)
    if parts is None:
        return
    name = call.func.attr
    candidate = None
    if name == "execute" and len(call.args) == 1 and not call.keywords:
        candidate = _parameterized(call, query, query_value, assigned, parts, source, "?" if sqlite else "%s")
    yield ("sql-built-from-strings", call, _MESSAGE.format(how=how, call=name), candidate)


def _parts(node) -> "tuple[list | None, str]":
    """The query as pieces: ``("text", str)`` and ``("value", node)``; ``None``
    when it is not built from values, or cannot be taken apart."""
    if isinstance(node, ast.JoinedStr):
        parts = []
        for piece in node.values:
            if isinstance(piece, ast.Constant):
                parts.append(("text", piece.value))
            elif isinstance(piece, ast.FormattedValue) and piece.conversion == -1 and piece.format_spec is None:
                parts.append(("value", piece.value))
            else:
                return _opaque(node, "an f-string")
        return _built(parts, "an f-string")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, _ = _parts(node.left)
        right, _ = _parts(node.right)
        if left is None and _is_text(node.left):
            left = [("text", node.left.value)]
        if right is None and _is_text(node.right):
            right = [("text", node.right.value)]
        left = left if left is not None else [("value", node.left)]
        right = right if right is not None else [("value", node.right)]
        return _built(left + right, "concatenation")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_text(node.left):
        values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        pieces = _PERCENT.split(node.left.value)
        holes = [hole for hole in _PERCENT.findall(node.left.value) if hole != "%%"]
        if "%%" in node.left.value or "%(" in node.left.value or len(holes) != len(values):
            return _opaque(node, "% formatting")
        return _built(_interleave(pieces, values), "% formatting")
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and _is_text(node.func.value)
    ):
        text = node.func.value.value
        pieces = re.split(r"\{\}", text)
        if re.search(r"\{[^}]", text) or node.keywords or len(pieces) - 1 != len(node.args):
            return _opaque(node, "str.format")
        return _built(_interleave(pieces, node.args), "str.format")
    return None, ""


def _built(parts: list, how: str) -> tuple:
    return (parts, how) if any(kind == "value" for kind, _ in parts) else (None, "")


def _opaque(node, how: str) -> tuple:
    """A query built in a way the fix cannot take apart: flagged, not fixed."""
    return [("value", node)], how + " (not taken apart)"


def _interleave(pieces: list, values: list) -> list:
    parts = []
    for index, piece in enumerate(pieces):
        parts.append(("text", piece))
        if index < len(values):
            parts.append(("value", values[index]))
    return parts


def _is_text(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _assignment(tree, name: str, before: int):
    """The last ``name = <query>`` above line ``before``, if the name is bound only there."""
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == name
    ]
    earlier = [node for node in found if node.lineno < before]
    return earlier[-1] if len(found) == 1 and earlier else None


def _parameterized(call, query, query_value, assigned, parts, source, placeholder: str):
    if any(how == "value" and node is query_value for how, node in parts):
        return None  # not taken apart
    text, values = "", []
    for index, (kind, piece) in enumerate(parts):
        if kind == "text":
            text += piece
            continue
        if _IDENTIFIER_BEFORE.search(text):
            return None  # a table or column name: no parameter can stand there
        following = parts[index + 1][1] if index + 1 < len(parts) and parts[index + 1][0] == "text" else ""
        quote = text[-1:] if text[-1:] in ("'", '"') and following.startswith(text[-1:]) else ""
        if quote:
            text = text[:-1]
            parts[index + 1] = ("text", following[1:])
        text += placeholder
        if _is_str_call(piece):
            piece = piece.args[0]  # the parameter is the value itself, not its text
        values.append(source.segment(*source.node_span(piece)))
    literal = _string(text)
    params = f"({values[0]},)" if len(values) == 1 else f"({', '.join(values)})"
    edits = []
    if assigned is not None:
        edits.append((*source.node_span(assigned.value), literal))
        end = source.node_span(query)[1]
        edits.append((end, end, f", {params}"))
    else:
        edits.append((*source.node_span(query), f"{literal}, {params}"))
    return Candidate(f"the query parameterized: {literal} with {params}", edits)


def _is_str_call(node) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "str"
        and len(node.args) == 1
        and not node.keywords
    )


def _string(text: str) -> str:
    if '"' not in text and "\\" not in text and "\n" not in text:
        return f'"{text}"'
    return repr(text)
