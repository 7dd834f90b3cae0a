"""A proposed fix as text edits on the submitted program, and what a fix
hands back (``Fix`` in src/protocol/): the fixed program and its diff."""

import io


class Source:
    """A program's text with its lines as Python numbers them, for turning
    positions (line and column, as errors and the tree give them) into
    offsets into the text."""

    def __init__(self, code: str):
        self.code = code
        self.lines = io.StringIO(code, newline="").readlines()
        self._starts = []
        offset = 0
        for line in self.lines:
            self._starts.append(offset)
            offset += len(line)
        self._starts.append(offset)

    def line(self, number: int) -> str:
        """Line ``number`` (1-based) without its end; ``""`` past the last."""
        return self.lines[number - 1].rstrip("\r\n") if 0 < number <= len(self.lines) else ""

    def offset(self, line: int, column: int) -> int:
        """The offset of a 0-based character ``column`` of ``line`` (1-based)."""
        if line > len(self.lines):
            return len(self.code)
        return self._starts[line - 1] + column

    def line_end(self, line: int) -> int:
        """The offset just before ``line``'s end of line."""
        return self.offset(line, len(self.line(line)))

    def char_column(self, line: int, byte_column: int) -> int:
        """A 0-based UTF-8 byte offset into ``line`` (as the tree and code
        positions count) as a character offset."""
        return len(self.line(line).encode("utf-8", "surrogatepass")[:byte_column].decode("utf-8", "ignore"))

    def node_span(self, node) -> tuple[int, int]:
        """The offsets where a tree ``node`` starts and ends."""
        start = self.offset(node.lineno, self.char_column(node.lineno, node.col_offset))
        end = self.offset(node.end_lineno, self.char_column(node.end_lineno, node.end_col_offset))
        return start, end

    def segment(self, start: int, end: int) -> str:
        return self.code[start:end]


class Candidate:
    """A fix to try: edits ``(start, end, text)`` on the program's text, and
    the line saying what it does."""

    __slots__ = ("edits", "summary")

    def __init__(self, summary: str, edits: list):
        self.summary = summary
        self.edits = edits

    def apply(self, code: str) -> str:
        """``code`` with the edits made (they do not overlap)."""
        for start, end, text in sorted(self.edits, key=lambda edit: edit[0], reverse=True):
            code = code[:start] + text + code[end:]
        return code


def unified_diff(before: str, after: str) -> str:
    """A unified diff of the submitted program and the fixed one."""
    # Imported on the first fix, not at start, where every cold start would
    # pay for it (the runner's ``warm`` puts it in the start-up snapshot).
    import difflib

    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), "submitted", "fixed", n=1
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def import_position(source: Source, tree) -> int:
    """Where a new import goes: after the module's docstring, its
    ``__future__`` imports and the imports that open it."""
    line = 1
    for index, node in enumerate(getattr(tree, "body", [])):
        opening_docstring = index == 0 and _is_docstring(node)
        if opening_docstring or node.__class__.__name__ in ("Import", "ImportFrom"):
            line = node.end_lineno + 1
        else:
            break
    return source.offset(line, 0)


def _is_docstring(node) -> bool:
    value = getattr(node, "value", None)
    return node.__class__.__name__ == "Expr" and isinstance(getattr(value, "value", None), str)
