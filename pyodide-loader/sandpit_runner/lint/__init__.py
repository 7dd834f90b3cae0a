"""Code that runs but is dangerous (``warnings`` in a result and a check):
SQL built from strings, ``eval`` of input, unsafe deserialization, weak
randomness or hashes for secrets; each with a mechanical fix where there is
one (``fixes.edits.Candidate``)."""

import ast

#: Words without which no rule can match: most programs are not parsed for
#: the lint, nor are its rules imported for them.
_TRIGGERS = ("execute", "eval", "exec", "pickle", "yaml", "random", "md5", "sha1")


class Finding:
    """One dangerous place: its rule, where it is, why, and a fix (or ``None``)."""

    __slots__ = ("candidate", "message", "node", "rule")

    def __init__(self, rule: str, node, message: str, candidate=None):
        self.rule, self.node, self.message, self.candidate = rule, node, message, candidate

    def warning(self, source) -> dict:
        """``LintWarning`` (src/protocol/), without its fix; ``source`` is
        the code's ``fixes.edits.Source``."""
        node = self.node
        start = source.char_column(node.lineno, node.col_offset) + 1
        same_line = node.end_lineno == node.lineno
        return {
            "rule": self.rule,
            "line": node.lineno,
            "column": start,
            "end_column": source.char_column(node.lineno, node.end_col_offset) + 1 if same_line else None,
            "message": self.message,
        }


def findings(code: str) -> list:
    """What the lint finds in ``code``, in order; nothing for code that does not parse."""
    if not any(word in code for word in _TRIGGERS):
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    from ..fixes.edits import Source
    from . import rules

    source = Source(code)
    found = [Finding(*found) for found in rules.check(tree, source)]
    return sorted(found, key=lambda finding: (finding.node.lineno, finding.node.col_offset))
