# Small data tasks: aggregating records, joining, cleaning, error handling.
# Each `# %% name` cell is one independent program with its own asserts.

# %% csv aggregation
import csv
import io
from collections import defaultdict

data = """region,product,units,price
north,widget,10,2.50
south,widget,4,2.50
north,gadget,3,10.00
east,widget,7,2.40
south,gadget,5,9.50
north,widget,2,2.50
"""
revenue = defaultdict(float)
units = defaultdict(int)
for row in csv.DictReader(io.StringIO(data)):
    revenue[row["region"]] += int(row["units"]) * float(row["price"])
    units[row["product"]] += int(row["units"])
assert dict(units) == {"widget": 23, "gadget": 8}
assert round(revenue["north"], 2) == 60.0
assert max(revenue, key=revenue.get) == "north"
{k: round(v, 2) for k, v in sorted(revenue.items())}

# %% pivot table
records = [
    ("2024-01", "ana", 5), ("2024-01", "ben", 3), ("2024-02", "ana", 2),
    ("2024-02", "cho", 7), ("2024-03", "ben", 4), ("2024-03", "ana", 1),
]
months = sorted({m for m, _, _ in records})
people = sorted({p for _, p, _ in records})
pivot = {p: {m: 0 for m in months} for p in people}
for month, person, n in records:
    pivot[person][month] += n
assert pivot["ana"] == {"2024-01": 5, "2024-02": 2, "2024-03": 1}
totals = {p: sum(row.values()) for p, row in pivot.items()}
assert totals == {"ana": 8, "ben": 7, "cho": 7}
lines = ["person  " + " ".join(months)] + [f"{p:<8}" + " ".join(f"{pivot[p][m]:>7}" for m in months) for p in people]
print("\n".join(lines))

# %% join two tables
users = [{"id": 1, "name": "ana"}, {"id": 2, "name": "ben"}, {"id": 3, "name": "cho"}]
orders = [{"user_id": 1, "total": 30}, {"user_id": 3, "total": 12}, {"user_id": 1, "total": 8}, {"user_id": 4, "total": 99}]
by_id = {u["id"]: u for u in users}
inner = [(by_id[o["user_id"]]["name"], o["total"]) for o in orders if o["user_id"] in by_id]
assert inner == [("ana", 30), ("cho", 12), ("ana", 8)]
left = {u["name"]: sum(o["total"] for o in orders if o["user_id"] == u["id"]) for u in users}
assert left == {"ana": 38, "ben": 0, "cho": 12}
orphans = [o for o in orders if o["user_id"] not in by_id]
assert orphans == [{"user_id": 4, "total": 99}]
left

# %% clean messy records
raw = [
    {"name": "  Ada Lovelace ", "email": "ADA@Example.org", "age": "36"},
    {"name": "grace hopper", "email": "grace@example.org ", "age": "n/a"},
    {"name": "", "email": "nobody@example.org", "age": "20"},
    {"name": "Alan Turing", "email": "alan@example", "age": "41"},
]

def clean(record):
    name = " ".join(record["name"].split()).title()
    email = record["email"].strip().lower()
    age = int(record["age"]) if record["age"].isdigit() else None
    problems = [msg for ok, msg in [(name, "no name"), ("." in email.split("@")[-1], "bad email")] if not ok]
    return {"name": name, "email": email, "age": age}, problems

cleaned = [clean(r) for r in raw]
assert cleaned[0] == ({"name": "Ada Lovelace", "email": "ada@example.org", "age": 36}, [])
assert cleaned[1][0]["age"] is None
assert cleaned[2][1] == ["no name"]
assert cleaned[3][1] == ["bad email"]
valid = [c for c, problems in cleaned if not problems]
[v["name"] for v in valid]

# %% deduplicate records
people = [
    {"email": "a@x.org", "name": "Ana", "updated": 3},
    {"email": "b@x.org", "name": "Ben", "updated": 1},
    {"email": "A@X.org", "name": "Ana M.", "updated": 5},
    {"email": "b@x.org", "name": "Benjamin", "updated": 0},
]
latest = {}
for p in people:
    key = p["email"].lower()
    if key not in latest or p["updated"] > latest[key]["updated"]:
        latest[key] = p
assert len(latest) == 2
assert latest["a@x.org"]["name"] == "Ana M."
assert latest["b@x.org"]["name"] == "Ben"
sorted(p["name"] for p in latest.values())

# %% histogram bins
import random

rng = random.Random(5)
values = [rng.gauss(50, 10) for _ in range(2000)]
width = 10
bins = {}
for v in values:
    start = int(v // width) * width
    bins[start] = bins.get(start, 0) + 1
assert sum(bins.values()) == 2000
peak = max(bins, key=bins.get)
assert peak in (40, 50)
rows = [f"{start:>4}-{start + width:<4} {'*' * (count // 20)}" for start, count in sorted(bins.items()) if count >= 20]
print("\n".join(rows))

# %% normalise scores
scores = {"ana": 72, "ben": 88, "cho": 95, "dev": 60, "eli": 88}
lo, hi = min(scores.values()), max(scores.values())
minmax = {k: (v - lo) / (hi - lo) for k, v in scores.items()}
assert minmax["dev"] == 0 and minmax["cho"] == 1
mean = sum(scores.values()) / len(scores)
std = (sum((v - mean) ** 2 for v in scores.values()) / len(scores)) ** 0.5
z = {k: round((v - mean) / std, 2) for k, v in scores.items()}
assert abs(sum(z.values())) < 0.02
ranks = {name: rank for rank, name in enumerate(sorted(scores, key=lambda k: -scores[k]), start=1)}
assert ranks["cho"] == 1 and ranks["dev"] == 5
z

# %% top n per group
from collections import defaultdict
import heapq

sales = [("eu", "ana", 50), ("eu", "ben", 70), ("eu", "cho", 65), ("us", "dev", 90), ("us", "eli", 40), ("us", "fay", 85), ("asia", "gus", 30)]
groups = defaultdict(list)
for region, person, amount in sales:
    groups[region].append((amount, person))
top2 = {region: [p for _, p in heapq.nlargest(2, members)] for region, members in groups.items()}
assert top2 == {"eu": ["ben", "cho"], "us": ["dev", "fay"], "asia": ["gus"]}
top2

# %% percentiles and outliers
def percentile(sorted_values, p):
    k = (len(sorted_values) - 1) * p
    f, c = int(k), min(int(k) + 1, len(sorted_values) - 1)
    return sorted_values[f] + (sorted_values[c] - sorted_values[f]) * (k - f)

latencies = sorted([12, 15, 11, 14, 13, 250, 16, 12, 14, 13, 15, 17, 12, 300, 14])
q1, q3 = percentile(latencies, 0.25), percentile(latencies, 0.75)
iqr = q3 - q1
outliers = [v for v in latencies if v < q1 - 1.5 * iqr or v > q3 + 1.5 * iqr]
assert outliers == [250, 300]
assert percentile(latencies, 0.5) == 14
assert percentile([1, 2, 3, 4], 0.5) == 2.5
{"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95), "outliers": outliers}

# %% retry with exceptions
class TransientError(Exception):
    pass

def flaky(failures):
    state = {"calls": 0}
    def call():
        state["calls"] += 1
        if state["calls"] <= failures:
            raise TransientError(f"attempt {state['calls']} failed")
        return "ok"
    return call, state

def retry(fn, attempts=3):
    errors = []
    for _ in range(attempts):
        try:
            return fn(), errors
        except TransientError as exc:
            errors.append(str(exc))
    raise RuntimeError(f"gave up after {attempts} attempts") from TransientError(errors[-1])

call, state = flaky(2)
result, errors = retry(call)
assert result == "ok" and state["calls"] == 3 and len(errors) == 2
call, _ = flaky(5)
try:
    retry(call)
except RuntimeError as exc:
    assert str(exc) == "gave up after 3 attempts"
    assert isinstance(exc.__cause__, TransientError)
errors

# %% exception groups of validation errors
def validate_order(order):
    problems = []
    if order.get("qty", 0) <= 0:
        problems.append(ValueError("qty must be positive"))
    if not isinstance(order.get("sku"), str):
        problems.append(TypeError("sku must be a string"))
    if problems:
        raise ExceptionGroup("invalid order", problems)
    return True

assert validate_order({"qty": 1, "sku": "A1"})
try:
    validate_order({"qty": 0, "sku": 7})
except* ValueError as group:
    value_errors = [str(e) for e in group.exceptions]
except* TypeError as group:
    type_errors = [str(e) for e in group.exceptions]
assert value_errors == ["qty must be positive"]
assert type_errors == ["sku must be a string"]
print(value_errors + type_errors)

# %% inventory reorder report
from dataclasses import dataclass

@dataclass
class Stock:
    sku: str
    on_hand: int
    daily_use: float
    lead_days: int

    @property
    def days_left(self):
        return self.on_hand / self.daily_use if self.daily_use else float("inf")

    @property
    def reorder(self):
        return self.days_left <= self.lead_days

stock = [Stock("A", 100, 10, 7), Stock("B", 30, 5, 7), Stock("C", 5, 0, 3), Stock("D", 12, 4, 3)]
to_order = [s.sku for s in stock if s.reorder]
assert to_order == ["B", "D"]
assert stock[2].days_left == float("inf")
report = [f"{s.sku}: {s.days_left:.1f} days" for s in sorted(stock, key=lambda s: s.days_left)]
assert report[0] == "D: 3.0 days"
report

# %% moving median
import bisect
from collections import deque

def moving_median(values, k):
    window, ordered, out = deque(), [], []
    for v in values:
        window.append(v)
        bisect.insort(ordered, v)
        if len(window) > k:
            ordered.pop(bisect.bisect_left(ordered, window.popleft()))
        if len(window) == k:
            mid = k // 2
            out.append(ordered[mid] if k % 2 else (ordered[mid - 1] + ordered[mid]) / 2)
    return out

assert moving_median([1, 3, -1, -3, 5, 3, 6, 7], 3) == [1, -1, -1, 3, 5, 6]
assert moving_median([1, 2, 3, 4], 2) == [1.5, 2.5, 3.5]
moving_median([5, 15, 1, 3, 2, 8, 7, 9, 10, 6], 4)

# %% schedule round robin tournament
def round_robin(teams):
    teams = list(teams)
    if len(teams) % 2:
        teams.append(None)
    rounds = []
    for _ in range(len(teams) - 1):
        pairs = [(teams[i], teams[-1 - i]) for i in range(len(teams) // 2)]
        rounds.append([p for p in pairs if None not in p])
        teams = [teams[0], teams[-1]] + teams[1:-1]
    return rounds

rounds = round_robin(["A", "B", "C", "D"])
assert len(rounds) == 3
games = {frozenset(g) for r in rounds for g in r}
assert len(games) == 6
odd = round_robin(["A", "B", "C", "D", "E"])
assert len(odd) == 5 and all(len(r) == 2 for r in odd)
rounds

# %% text report with totals
expenses = [("rent", 1200.0), ("food", 345.67), ("transport", 89.5), ("fun", 120.25), ("food", 54.33)]
by_category = {}
for category, amount in expenses:
    by_category[category] = by_category.get(category, 0) + amount
total = sum(by_category.values())
width = max(map(len, by_category)) + 2
lines = [f"{c:<{width}}{a:>10.2f} {a / total:>6.1%}" for c, a in sorted(by_category.items(), key=lambda kv: -kv[1])]
lines.append(f"{'total':<{width}}{total:>10.2f}")
assert lines[0].startswith("rent") and lines[1].startswith("food")
assert lines[1].split()[1] == "400.00"
assert lines[-1].split()[-1] == "1809.75"
print("\n".join(lines))

# %% sparse vectors similarity
import math

docs = {
    "a": "python runs in the browser",
    "b": "the browser runs javascript",
    "c": "snakes are not pythons",
}
vocab = sorted({w for text in docs.values() for w in text.split()})
vectors = {k: {w: text.split().count(w) for w in set(text.split())} for k, text in docs.items()}

def cosine(u, v):
    dot = sum(u[w] * v.get(w, 0) for w in u)
    return dot / (math.sqrt(sum(x * x for x in u.values())) * math.sqrt(sum(x * x for x in v.values())))

sim_ab = cosine(vectors["a"], vectors["b"])
sim_ac = cosine(vectors["a"], vectors["c"])
assert sim_ab > sim_ac == 0
assert math.isclose(cosine(vectors["a"], vectors["a"]), 1.0)
assert len(vocab) == 10
round(sim_ab, 4)
