"""Fixes for the syntax errors CPython diagnoses: a missing ``:``, ``=``
for ``==``, a missing comma, an unclosed bracket or string, Python 2's
``print x``, other languages' ``&&``, indentation. Each candidate is only a
guess until the program compiles with it (see fixes/engine.py)."""

import io
import itertools
import re
import tokenize

from .edits import Candidate, Source

_CLOSERS = {"(": ")", "[": "]", "{": "}"}
#: Other languages' operators and their Python spelling.
_OPERATORS = {"&&": "and", "||": "or", "===": "==", "!==": "!="}


def candidates(error: SyntaxError, source: Source) -> list:
    """Fixes to try for ``error``, raised compiling ``source``, best first."""
    message, line = error.msg or "", error.lineno or 0
    column = (error.offset or 1) - 1
    text = source.line(line)
    if isinstance(error, TabError):
        return _tabs(source)
    if isinstance(error, IndentationError):
        return _indentation(message, line, source)
    if text.lstrip().startswith("else if ") and message == "expected ':'":
        start = source.offset(line, text.index("else if"))
        return [Candidate("`else if` → `elif`", [(start, start + len("else if"), "elif")])]
    if message == "expected ':'":
        return [_colon(line, column, source)]
    if message.startswith("invalid syntax. Maybe you meant '==' or ':=' instead of '='?"):
        return _equals(error, source)
    if message == "invalid syntax. Perhaps you forgot a comma?":
        return _comma(error, source)
    if message.endswith("was never closed"):
        return _close_bracket(message[1], line, source)
    if message.startswith("unterminated triple-quoted string literal"):
        quote = text[column:].lstrip("rRbBfFuU")[:3]
        end = len(source.code)
        ending = "" if source.code.endswith("\n") else "\n"
        return [Candidate(f"close the string opened on line {line} with {quote}", [(end, end, ending + quote + "\n")])]
    if message.startswith("unterminated string literal"):
        quote = text[column:].lstrip("rRbBfFuU")[:1]
        end = source.line_end(line)
        return [Candidate(f"close the string on line {line} with {quote}", [(end, end, quote)])]
    if message.startswith("Missing parentheses in call to 'print'"):
        return _print_statement(line, source)
    said = re.match(r"invalid syntax\. Did you mean '(\w+)'\?$", message)
    if said:
        return _keyword(said.group(1), line, column, source)
    return _operators(line, source)


def _colon(line: int, column: int, source: Source) -> Candidate:
    header = source.line(line)[:column].strip()
    at = source.offset(line, column)
    return Candidate(f"add ':' after `{header}`", [(at, at, ":")])


def _equals(error: SyntaxError, source: Source) -> list:
    line, start = error.lineno, (error.offset or 1) - 1
    end = (error.end_offset or 0) - 1 if error.end_lineno == line else len(source.line(line))
    found = []
    for token in _tokens(source.line(line)):
        if token.string == "=" and start <= token.start[1] < end:
            at = source.offset(line, token.start[1])
            found.append(Candidate(f"`=` → `==` on line {line}", [(at, at + 1, "==")]))
    return found[:1]


def _comma(error: SyntaxError, source: Source) -> list:
    """A comma between the two items the error spans, at the first place where
    one item ends and the next begins."""
    line, start = error.lineno, (error.offset or 1) - 1
    end = (error.end_offset or 0) - 1 if error.end_lineno == line else len(source.line(line))
    tokens = [token for token in _tokens(source.line(line)) if start <= token.start[1] and token.end[1] <= end]
    for before, after in itertools.pairwise(tokens):
        if _ends_item(before) and _begins_item(after) and before.end[1] <= after.start[1]:
            at = source.offset(line, before.end[1])
            return [Candidate(f"add a comma after `{before.string}` on line {line}", [(at, at, ",")])]
    return []


def _ends_item(token) -> bool:
    return token.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING) or token.string in (")", "]", "}")


def _begins_item(token) -> bool:
    return token.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING) or token.string in ("(", "[", "{", "-")


def _close_bracket(opener: str, line: int, source: Source) -> list:
    """The closing bracket at the end of the line it opened on, or at the end
    of the last line of its statement (before the next line that begins at
    no deeper indentation)."""
    closer = _CLOSERS.get(opener, ")")
    ends = [line]
    indent = _indent(source.line(line))
    last = line
    for number in range(line + 1, len(source.lines) + 1):
        text = source.line(number)
        if text.strip() and _indent(text) <= indent:
            break
        if text.strip():
            last = number
    if last != line:
        ends.append(last)
    return [
        Candidate(f"close the '{opener}' opened on line {line} with '{closer}'", [(at, at, closer)])
        for at in (source.line_end(end) for end in ends)
    ]


def _print_statement(line: int, source: Source) -> list:
    text = source.line(line)
    comment = next((token.start[1] for token in _tokens(text) if token.type == tokenize.COMMENT), len(text))
    match = re.match(r"(\s*)print\s*(.+)", text[:comment].rstrip())
    if not match:
        return []
    start = source.offset(line, len(match.group(1)))
    call = f"print({match.group(2)})"
    return [
        Candidate(
            f"`print {match.group(2)}` → `{call}`", [(start, start + len(match.group()) - len(match.group(1)), call)]
        )
    ]


def _keyword(word: str, line: int, column: int, source: Source) -> list:
    for token in _tokens(source.line(line)):
        if token.type == tokenize.NAME and token.start[1] <= column < max(token.end[1], column + 1):
            at = source.offset(line, token.start[1])
            return [Candidate(f"`{token.string}` → `{word}`", [(at, at + len(token.string), word)])]
    return []


def _operators(line: int, source: Source) -> list:
    edits, seen = [], []
    text = source.line(line)
    for match in re.finditer(r"===|!==|&&|\|\|", text):
        if _in_code(text, match.start()):
            at = source.offset(line, match.start())
            left = "" if text[: match.start()].endswith(" ") else " "
            right = "" if text[match.end() :].startswith(" ") else " "
            edits.append((at, at + len(match.group()), f"{left}{_OPERATORS[match.group()]}{right}"))
            seen.append(f"`{match.group()}` → `{_OPERATORS[match.group()]}`")
    if not edits:
        return []
    return [Candidate(", ".join(dict.fromkeys(seen)) + f" on line {line}", edits)]


def _indentation(message: str, line: int, source: Source) -> list:
    text = source.line(line)
    previous = next((source.line(n) for n in range(line - 1, 0, -1) if source.line(n).strip()), "")
    if message == "unexpected indent":
        target = _indent(previous)
        return [_reindent(source, line, target, block=True), _reindent(source, line, target, block=False)]
    if message.startswith("expected an indented block"):
        header = re.search(r"on line (\d+)", message)
        base = _indent(source.line(int(header.group(1)))) if header else _indent(previous)
        return [_reindent(source, line, base + 4, block=False)]
    if message == "unindent does not match any outer indentation level":
        levels = sorted({_indent(source.line(n)) for n in range(1, line) if source.line(n).strip()})
        below = [level for level in levels if level < _indent(text)]
        return [_reindent(source, line, below[-1] if below else 0, block=False)]
    return []


def _reindent(source: Source, line: int, target: int, block: bool) -> Candidate:
    """``line`` (and, for a ``block``, the lines after it indented at least
    as deep, with blank lines between) moved to indentation ``target``."""
    first = _indent(source.line(line))
    shift = target - first
    lines = [line]
    if block:
        for number in range(line + 1, len(source.lines) + 1):
            text = source.line(number)
            if text.strip() and _indent(text) < first:
                break
            lines.append(number)
    edits = []
    for number in lines:
        text = source.line(number)
        if not text.strip():
            continue
        width = len(text) - len(text.lstrip())
        new = " " * max(_indent(text) + shift, 0)
        edits.append((source.offset(number, 0), source.offset(number, width), new))
    where = f"lines {line}-{lines[-1]}" if len(lines) > 1 else f"line {line}"
    said = f"indent {where} to {target} spaces" if target else f"remove the indent of {where}"
    return Candidate(said, edits)


def _tabs(source: Source) -> list:
    found = []
    for size in (4, 8):
        edits = []
        for number in range(1, len(source.lines) + 1):
            text = source.line(number)
            width = len(text) - len(text.lstrip())
            if "\t" in text[:width]:
                edits.append((source.offset(number, 0), source.offset(number, width), text[:width].expandtabs(size)))
        if edits:
            found.append(Candidate(f"indent with spaces, not tabs (a tab as {size} spaces)", edits))
    return found


def _indent(text: str) -> int:
    return len(text.expandtabs(8)) - len(text.expandtabs(8).lstrip())


def _tokens(text: str) -> list:
    """The tokens of one line, as far as it tokenizes."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text + "\n").readline):
            found.append(token)
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _in_code(text: str, column: int) -> bool:
    """Whether ``column`` of a line lies outside strings and comments."""
    for token in _tokens(text):
        if token.type in (tokenize.STRING, tokenize.COMMENT) and token.start[1] <= column < token.end[1]:
            return False
    return True
