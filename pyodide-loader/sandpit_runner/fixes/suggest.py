"""The name that was meant, when exactly one known name is close to the one
written: CPython's rule for its own "Did you mean" (an edit distance where a
change of case costs half, within a bound that grows with the names'
lengths), with a swap of two neighbouring letters counted as one edit, and
ties giving no answer (or, for :func:`nearest`, a few answers to try)."""

_MOVE = 2
_CASE = 1


def closest(wrong: str, known) -> "str | None":
    """The one name in ``known`` nearest ``wrong`` within the bound, or ``None``."""
    found = nearest(wrong, known, most=1)
    return found[0] if found else None


def nearest(wrong: str, known, most: int) -> list:
    """The names in ``known`` nearest ``wrong`` within the bound, when there
    are at most ``most`` of them (in order); else none."""
    best, best_distance = [], None
    for name in known:
        if not isinstance(name, str) or name == wrong or not name or name.startswith("__"):
            continue
        bound = (len(name) + len(wrong) + 3) * _MOVE // 6
        distance = _distance(wrong, name)
        if distance > bound:
            continue
        if best_distance is None or distance < best_distance:
            best, best_distance = [name], distance
        elif distance == best_distance and name not in best:
            best.append(name)
    return sorted(best) if len(best) <= most else []


def _distance(a: str, b: str) -> int:
    """Edit distance from ``a`` to ``b``: insert, delete, replace or swap two
    neighbours cost 2, a change of case 1."""
    before = None
    row = list(range(0, (len(b) + 1) * _MOVE, _MOVE))
    for i, char_a in enumerate(a, 1):
        current = [i * _MOVE] + [0] * len(b)
        for j, char_b in enumerate(b, 1):
            if char_a == char_b:
                cost = 0
            elif char_a.lower() == char_b.lower():
                cost = _CASE
            else:
                cost = _MOVE
            current[j] = min(row[j] + _MOVE, current[j - 1] + _MOVE, row[j - 1] + cost)
            if before is not None and i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], before[j - 2] + _MOVE)
        before, row = row, current
    return row[-1]
