# itertools, functools, generators and comprehensions.
# Each `# %% name` cell is one independent program with its own asserts.

# %% groupby runs
from itertools import groupby

readings = [1, 1, 2, 2, 2, 3, 1, 1]
runs = [(key, len(list(group))) for key, group in groupby(readings)]
assert runs == [(1, 2), (2, 3), (3, 1), (1, 2)]
people = [("ana", "eng"), ("ben", "eng"), ("cho", "ops"), ("dev", "eng")]
by_team = {team: [n for n, _ in members] for team, members in groupby(sorted(people, key=lambda p: p[1]), key=lambda p: p[1])}
assert by_team == {"eng": ["ana", "ben", "dev"], "ops": ["cho"]}
by_team

# %% combinations of a team
from itertools import combinations
from math import comb

players = ["ana", "ben", "cho", "dev", "eli"]
pairs = list(combinations(players, 2))
assert len(pairs) == comb(5, 2) == 10
skills = {"ana": 7, "ben": 5, "cho": 9, "dev": 4, "eli": 6}
best_pair = max(pairs, key=lambda p: sum(skills[x] for x in p))
assert best_pair == ("ana", "cho")
balanced = [t for t in combinations(players, 3) if sum(skills[x] for x in t) == 18]
assert ("ana", "ben", "eli") in balanced
print(best_pair, len(balanced))

# %% product grid
from itertools import product

sizes = ["S", "M", "L"]
colors = ["red", "blue"]
variants = [f"{s}-{c}" for s, c in product(sizes, colors)]
assert variants[:3] == ["S-red", "S-blue", "M-red"]
assert len(variants) == 6
dice = [a + b for a, b in product(range(1, 7), repeat=2)]
assert dice.count(7) == 6
assert sum(1 for bits in product([0, 1], repeat=8) if sum(bits) == 4) == 70
print(variants)

# %% accumulate running totals
from itertools import accumulate
import operator

deposits = [100, -20, 50, -80, 30]
balances = list(accumulate(deposits))
assert balances == [100, 80, 130, 50, 80]
assert list(accumulate([3, 1, 4, 1, 5], max)) == [3, 3, 4, 4, 5]
assert list(accumulate(range(1, 6), operator.mul)) == [1, 2, 6, 24, 120]
assert list(accumulate([1, 2, 3], initial=10)) == [10, 11, 13, 16]
min(balances)

# %% chain and islice
from itertools import chain, count, islice

evens = (n for n in count() if n % 2 == 0)
assert list(islice(evens, 5)) == [0, 2, 4, 6, 8]
merged = list(chain([1, 2], (3, 4), range(5, 7)))
assert merged == [1, 2, 3, 4, 5, 6]
lists = [[1], [2, 3], [], [4, 5, 6]]
assert list(chain.from_iterable(lists)) == [1, 2, 3, 4, 5, 6]
page = list(islice(range(100), 20, 30))
assert page == list(range(20, 30))
print(page)

# %% zip longest table
from itertools import zip_longest

names = ["ana", "ben", "cho"]
scores = [90, 85]
rows = list(zip_longest(names, scores, fillvalue="-"))
assert rows == [("ana", 90), ("ben", 85), ("cho", "-")]
columns = [[1, 2, 3], [4, 5], [6]]
transposed = [list(filter(None, row)) for row in zip_longest(*columns)]
assert transposed == [[1, 4, 6], [2, 5], [3]]
try:
    list(zip(names, scores, strict=True))
except ValueError:
    strict_failed = True
assert strict_failed
rows

# %% pairwise differences
from itertools import pairwise

temps = [12, 15, 11, 18, 21, 19]
changes = [b - a for a, b in pairwise(temps)]
assert changes == [3, -4, 7, 3, -2]
biggest_jump = max(pairwise(temps), key=lambda p: p[1] - p[0])
assert biggest_jump == (11, 18)
rising = all(a < b for a, b in pairwise([1, 2, 5, 9]))
assert rising
changes

# %% takewhile and dropwhile
from itertools import dropwhile, takewhile

lines = ["# header", "# more", "data 1", "data 2", "# trailing"]
header = list(takewhile(lambda l: l.startswith("#"), lines))
body = list(dropwhile(lambda l: l.startswith("#"), lines))
assert header == ["# header", "# more"]
assert body == ["data 1", "data 2", "# trailing"]
primes_below_20 = list(takewhile(lambda p: p < 20, [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]))
assert len(primes_below_20) == 8
print(body)

# %% cycle round robin
from itertools import cycle, islice

def round_robin(*iterables):
    iterators = cycle(iter(it) for it in iterables)
    active = len(iterables)
    while active:
        try:
            for it in iterators:
                yield next(it)
        except StopIteration:
            active -= 1
            iterators = cycle(islice(iterators, active))

assert list(round_robin("ABC", "D", "EF")) == list("ADEBFC")
servers = cycle(["s1", "s2", "s3"])
assignments = [next(servers) for _ in range(7)]
assert assignments == ["s1", "s2", "s3", "s1", "s2", "s3", "s1"]
"".join(round_robin("abc", "12345"))

# %% compress and filterfalse
from itertools import compress, filterfalse

items = ["a", "b", "c", "d", "e"]
selected = list(compress(items, [1, 0, 1, 0, 1]))
assert selected == ["a", "c", "e"]
odds = list(filterfalse(lambda n: n % 2 == 0, range(10)))
assert odds == [1, 3, 5, 7, 9]
words = ["apple", "", "banana", None, "cherry"]
assert list(filter(None, words)) == ["apple", "banana", "cherry"]
print(selected, odds)

# %% starmap and tee
from itertools import starmap, tee

pairs = [(2, 5), (3, 2), (10, 3)]
assert list(starmap(pow, pairs)) == [32, 9, 1000]
a, b = tee(iter([1, 2, 3, 4]))
assert list(a) == [1, 2, 3, 4] and sum(b) == 10
points = [(0, 0), (3, 4), (6, 8)]
dist = list(starmap(lambda x, y: (x * x + y * y) ** 0.5, points))
assert dist == [0.0, 5.0, 10.0]
dist

# %% reduce and partial
from functools import partial, reduce
import operator

product = reduce(operator.mul, range(1, 8), 1)
assert product == 5040
to_int_base2 = partial(int, base=2)
assert to_int_base2("1011") == 11
assert list(map(partial(pow, 2), range(5))) == [1, 2, 4, 8, 16]
deep = {"a": {"b": {"c": 42}}}
assert reduce(operator.getitem, ["a", "b", "c"], deep) == 42
longest = reduce(lambda a, b: a if len(a) >= len(b) else b, ["pear", "banana", "fig"])
print(product, longest)

# %% cmp to key sorting
from functools import cmp_to_key

def compare(a, b):
    ab, ba = str(a) + str(b), str(b) + str(a)
    return (ab < ba) - (ab > ba)

def largest_number(nums):
    return "".join(map(str, sorted(nums, key=cmp_to_key(compare)))).lstrip("0") or "0"

assert largest_number([10, 2]) == "210"
assert largest_number([3, 30, 34, 5, 9]) == "9534330"
assert largest_number([0, 0]) == "0"
largest_number([824, 938, 1399, 5607, 6973, 5703, 9609, 4398, 8247])

# %% generator pipeline
def read_lines():
    yield from ["GET /a 200 12", "GET /b 404 0", "POST /a 200 40", "GET /a 500 3", "GET /c 200 7"]

def parse(lines):
    for line in lines:
        method, path, status, size = line.split()
        yield {"method": method, "path": path, "status": int(status), "size": int(size)}

def ok(records):
    return (r for r in records if r["status"] < 400)

records = list(ok(parse(read_lines())))
assert len(records) == 3
assert sum(r["size"] for r in records) == 59
assert {r["path"] for r in records} == {"/a", "/c"}
print(records[0])

# %% generator send
def running_average():
    total = count = 0
    average = None
    while True:
        value = yield average
        total += value
        count += 1
        average = total / count

avg = running_average()
next(avg)
results = [avg.send(v) for v in [10, 20, 30, 40]]
assert results == [10.0, 15.0, 20.0, 25.0]
avg.close()
results

# %% chunked batches
from itertools import islice

def batched(iterable, size):
    it = iter(iterable)
    while batch := tuple(islice(it, size)):
        yield batch

assert list(batched(range(7), 3)) == [(0, 1, 2), (3, 4, 5), (6,)]
assert list(batched([], 2)) == []
totals = [sum(b) for b in batched(range(100), 10)]
assert totals[0] == 45 and totals[-1] == 945
print(totals)

# %% sliding windows
from collections import deque
from itertools import islice

def windows(iterable, n):
    it = iter(iterable)
    window = deque(islice(it, n), maxlen=n)
    if len(window) == n:
        yield tuple(window)
    for item in it:
        window.append(item)
        yield tuple(window)

assert list(windows("abcde", 3)) == [("a", "b", "c"), ("b", "c", "d"), ("c", "d", "e")]
assert list(windows([1, 2], 3)) == []
best = max(windows([4, 2, 12, 3, 8, 1, 9], 3), key=sum)
assert best == (12, 3, 8)
best

# %% nested comprehensions
matrix = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
flat = [x for row in matrix for x in row]
transpose = [[row[i] for row in matrix] for i in range(3)]
diagonal = [matrix[i][i] for i in range(3)]
evens_squared = {x: x * x for x in flat if x % 2 == 0}
assert flat == list(range(1, 10))
assert transpose[0] == [1, 4, 7]
assert diagonal == [1, 5, 9]
assert evens_squared == {2: 4, 4: 16, 6: 36, 8: 64}
pythagorean = [(a, b, c) for c in range(1, 30) for b in range(1, c) for a in range(1, b) if a * a + b * b == c * c]
assert pythagorean[:2] == [(3, 4, 5), (6, 8, 10)]
len(pythagorean)

# %% enumerate and zip
names = ["ana", "ben", "cho"]
scores = [88, 92, 79]
ranked = sorted(zip(scores, names), reverse=True)
assert ranked[0] == (92, "ben")
report = [f"{i}. {name} ({score})" for i, (score, name) in enumerate(ranked, start=1)]
assert report == ["1. ben (92)", "2. ana (88)", "3. cho (79)"]
lookup = dict(zip(names, scores))
assert lookup["cho"] == 79
unzipped = list(zip(*ranked))
assert unzipped[1] == ("ben", "ana", "cho")
print("\n".join(report))

# %% any all and sum
orders = [{"id": 1, "paid": True, "total": 30}, {"id": 2, "paid": False, "total": 45}, {"id": 3, "paid": True, "total": 12}]
assert any(not o["paid"] for o in orders)
assert all(o["total"] > 10 for o in orders)
assert sum(o["total"] for o in orders if o["paid"]) == 42
unpaid_ids = [o["id"] for o in orders if not o["paid"]]
assert unpaid_ids == [2]
first_big = next((o for o in orders if o["total"] > 40), None)
assert first_big["id"] == 2
assert next((o for o in orders if o["total"] > 100), None) is None
unpaid_ids

# %% singledispatch formatting
from functools import singledispatch
from datetime import date

@singledispatch
def render(value):
    return str(value)

@render.register
def _(value: float):
    return f"{value:.2f}"

@render.register
def _(value: list):
    return "[" + ", ".join(render(v) for v in value) + "]"

@render.register
def _(value: date):
    return value.strftime("%d %b %Y")

assert render(3) == "3"
assert render(2.5) == "2.50"
assert render([1, 2.0, date(2024, 3, 1)]) == "[1, 2.00, 01 Mar 2024]"
render([[0.125], "x"])

# %% cached property
from functools import cached_property

class Dataset:
    computed = 0

    def __init__(self, values):
        self.values = values

    @cached_property
    def stats(self):
        Dataset.computed += 1
        n = len(self.values)
        mean = sum(self.values) / n
        var = sum((v - mean) ** 2 for v in self.values) / n
        return {"n": n, "mean": mean, "var": var}

d = Dataset([2, 4, 4, 4, 5, 5, 7, 9])
assert d.stats["mean"] == 5
assert d.stats["var"] == 4
assert Dataset.computed == 1
d.stats
