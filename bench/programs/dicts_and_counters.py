# Dictionaries, sets and the collections module: grouping, counting, merging.
# Each `# %% name` cell is one independent program with its own asserts.

# %% group by first letter
names = ["alice", "adam", "bob", "barbara", "charlie", "carol", "dave"]
groups: dict[str, list[str]] = {}
for name in names:
    groups.setdefault(name[0], []).append(name)
assert groups == {"a": ["alice", "adam"], "b": ["bob", "barbara"], "c": ["charlie", "carol"], "d": ["dave"]}
sizes = {letter: len(members) for letter, members in groups.items()}
assert max(sizes, key=sizes.get) == "a"
sizes

# %% invert a dictionary
def invert(d: dict) -> dict:
    out = {}
    for key, value in d.items():
        out.setdefault(value, set()).add(key)
    return out

colors = {"apple": "red", "banana": "yellow", "cherry": "red", "lemon": "yellow", "lime": "green"}
inverted = invert(colors)
assert inverted["red"] == {"apple", "cherry"}
assert inverted["green"] == {"lime"}
assert len(inverted) == 3
print(sorted(inverted["yellow"]))

# %% merge with sums
from collections import Counter

january = {"apples": 10, "pears": 4, "plums": 7}
february = {"apples": 3, "plums": 1, "kiwis": 12}
total = Counter(january) + Counter(february)
assert total == {"apples": 13, "pears": 4, "plums": 8, "kiwis": 12}
assert total.most_common(1) == [("apples", 13)]
merged = {**january, **february}
assert merged["apples"] == 3
dict(total)

# %% counter most common words
from collections import Counter
import re

log = """error: disk full
warning: cpu hot
error: disk full
info: started
error: network down
warning: cpu hot
error: disk full"""
levels = Counter(line.split(":")[0] for line in log.splitlines())
messages = Counter(line.split(": ", 1)[1] for line in log.splitlines())
assert levels == {"error": 4, "warning": 2, "info": 1}
assert messages.most_common(2) == [("disk full", 3), ("cpu hot", 2)]
words = Counter(re.findall(r"\w+", log))
assert words["disk"] == 3
print(levels.most_common())

# %% defaultdict graph
from collections import defaultdict

edges = [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("d", "e")]
graph = defaultdict(list)
indegree = defaultdict(int)
for src, dst in edges:
    graph[src].append(dst)
    indegree[dst] += 1
assert graph["a"] == ["b", "c"]
assert indegree["d"] == 2
roots = [node for node in graph if indegree[node] == 0]
assert roots == ["a"]
print(dict(graph))

# %% deque sliding window
from collections import deque

def moving_average(values, size):
    window = deque(maxlen=size)
    out = []
    for v in values:
        window.append(v)
        if len(window) == size:
            out.append(sum(window) / size)
    return out

assert moving_average([1, 2, 3, 4, 5, 6], 3) == [2.0, 3.0, 4.0, 5.0]
assert moving_average([10, 20], 3) == []
d = deque([1, 2, 3])
d.rotate(1)
assert list(d) == [3, 1, 2]
d.appendleft(0)
assert d.popleft() == 0
moving_average(range(10), 4)

# %% lru cache with ordered dict
from collections import OrderedDict

class LRUCache:
    def __init__(self, capacity: int):
        self.capacity = capacity
        self.data: OrderedDict[str, int] = OrderedDict()

    def get(self, key):
        if key not in self.data:
            return None
        self.data.move_to_end(key)
        return self.data[key]

    def put(self, key, value):
        self.data[key] = value
        self.data.move_to_end(key)
        if len(self.data) > self.capacity:
            self.data.popitem(last=False)

cache = LRUCache(2)
cache.put("a", 1)
cache.put("b", 2)
assert cache.get("a") == 1
cache.put("c", 3)
assert cache.get("b") is None
assert list(cache.data) == ["a", "c"]
print(list(cache.data.items()))

# %% namedtuple points
from collections import namedtuple
import math

Point = namedtuple("Point", ["x", "y"])
points = [Point(3, 4), Point(-1, 2), Point(0, 0), Point(5, -12)]
distances = {p: math.hypot(p.x, p.y) for p in points}
assert distances[Point(3, 4)] == 5.0
assert distances[Point(5, -12)] == 13.0
closest = min(points, key=lambda p: distances[p])
assert closest == Point(0, 0)
moved = closest._replace(x=7)
assert moved == (7, 0) and moved._asdict() == {"x": 7, "y": 0}
sorted(points, key=distances.get)

# %% nested dict access
config = {"server": {"host": "127.0.0.1", "ports": {"http": 8080, "https": 8443}}, "debug": False}

def get_path(d, path, default=None):
    current = d
    for key in path.split("."):
        if not isinstance(current, dict) or key not in current:
            return default
        current = current[key]
    return current

assert get_path(config, "server.ports.http") == 8080
assert get_path(config, "server.ports.ftp", 21) == 21
assert get_path(config, "debug") is False
assert get_path(config, "debug.level") is None
print(get_path(config, "server.host"))

# %% flatten nested dict
def flatten(d, prefix=""):
    out = {}
    for key, value in d.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out.update(flatten(value, path))
        else:
            out[path] = value
    return out

nested = {"a": 1, "b": {"c": 2, "d": {"e": 3, "f": 4}}, "g": {"h": 5}}
flat = flatten(nested)
assert flat == {"a": 1, "b.c": 2, "b.d.e": 3, "b.d.f": 4, "g.h": 5}
assert len(flat) == 5
flat

# %% set operations on enrollments
math_students = {"ana", "ben", "cho", "dev", "eli"}
art_students = {"cho", "eli", "fay", "gus"}
both = math_students & art_students
either = math_students | art_students
only_math = math_students - art_students
exactly_one = math_students ^ art_students
assert both == {"cho", "eli"}
assert len(either) == 7
assert only_math == {"ana", "ben", "dev"}
assert exactly_one == either - both
assert {"ana"} <= math_students and not art_students.issubset(math_students)
print(sorted(exactly_one))

# %% top k with heapq
import heapq

scores = {"ana": 91, "ben": 78, "cho": 88, "dev": 95, "eli": 67, "fay": 88, "gus": 73}
top3 = heapq.nlargest(3, scores.items(), key=lambda kv: kv[1])
assert [name for name, _ in top3] == ["dev", "ana", "cho"]
bottom2 = heapq.nsmallest(2, scores, key=scores.get)
assert bottom2 == ["eli", "gus"]
heap = list(scores.values())
heapq.heapify(heap)
assert [heapq.heappop(heap) for _ in range(3)] == [67, 73, 78]
top3

# %% bisect grades
import bisect

def grade(score: int) -> str:
    breakpoints = [60, 70, 80, 90]
    return "FDCBA"[bisect.bisect(breakpoints, score)]

assert [grade(s) for s in [33, 99, 77, 70, 89, 90, 100]] == ["F", "A", "C", "C", "B", "A", "A"]
sorted_list = [1, 3, 5, 7]
bisect.insort(sorted_list, 4)
assert sorted_list == [1, 3, 4, 5, 7]
assert bisect.bisect_left(sorted_list, 5) == 3
print(grade(85))

# %% word index
text = "to be or not to be that is the question"
index: dict[str, list[int]] = {}
for position, word in enumerate(text.split()):
    index.setdefault(word, []).append(position)
assert index["to"] == [0, 4]
assert index["be"] == [1, 5]
assert index["question"] == [9]
repeated = sorted(w for w, positions in index.items() if len(positions) > 1)
assert repeated == ["be", "to"]
repeated

# %% chain map settings
from collections import ChainMap

defaults = {"theme": "light", "font_size": 12, "autosave": True}
user = {"theme": "dark"}
session = {"font_size": 14}
settings = ChainMap(session, user, defaults)
assert settings["theme"] == "dark"
assert settings["font_size"] == 14
assert settings["autosave"] is True
settings["autosave"] = False
assert session["autosave"] is False and defaults["autosave"] is True
dict(settings)

# %% inventory updates
inventory = {"widget": 10, "gadget": 3, "doohickey": 0}
orders = [("widget", 4), ("gadget", 5), ("doohickey", 1), ("widget", 6)]
fulfilled, backordered = [], []
for item, qty in orders:
    if inventory.get(item, 0) >= qty:
        inventory[item] -= qty
        fulfilled.append((item, qty))
    else:
        backordered.append((item, qty))
assert fulfilled == [("widget", 4), ("widget", 6)]
assert backordered == [("gadget", 5), ("doohickey", 1)]
assert inventory == {"widget": 0, "gadget": 3, "doohickey": 0}
out_of_stock = [k for k, v in inventory.items() if v == 0]
print(out_of_stock)

# %% frequency sort
from collections import Counter

def frequency_sort(items):
    counts = Counter(items)
    return sorted(items, key=lambda x: (-counts[x], x))

assert frequency_sort([4, 6, 2, 2, 6, 4, 4, 4]) == [4, 4, 4, 4, 2, 2, 6, 6]
assert frequency_sort("tree") == ["e", "e", "r", "t"]
assert frequency_sort([]) == []
frequency_sort([5, 3, 5, 1, 3, 5])

# %% two sum with dict
def two_sum(nums, target):
    seen = {}
    for i, n in enumerate(nums):
        if target - n in seen:
            return seen[target - n], i
        seen[n] = i
    return None

assert two_sum([2, 7, 11, 15], 9) == (0, 1)
assert two_sum([3, 2, 4], 6) == (1, 2)
assert two_sum([1, 2, 3], 100) is None
print(two_sum([10, 20, 30, 40], 70))

# %% dict comprehension filters
prices = {"apple": 0.5, "bread": 2.25, "cheese": 7.8, "dates": 4.1, "eggs": 3.0}
cheap = {k: v for k, v in prices.items() if v < 3}
with_tax = {k: round(v * 1.2, 2) for k, v in prices.items()}
by_price = dict(sorted(prices.items(), key=lambda kv: kv[1]))
assert cheap == {"apple": 0.5, "bread": 2.25}
assert with_tax["cheese"] == 9.36
assert list(by_price)[0] == "apple" and list(by_price)[-1] == "cheese"
assert round(sum(prices.values()), 2) == 17.65
with_tax

# %% anagram buckets with counter keys
from collections import defaultdict

words = ["listen", "silent", "enlist", "google", "gooegl", "cat", "act", "tac", "dog"]
buckets = defaultdict(list)
for w in words:
    buckets[tuple(sorted(w))].append(w)
biggest = max(buckets.values(), key=len)
assert sorted(biggest) in (["act", "cat", "tac"], ["enlist", "listen", "silent"])
assert len(buckets) == 4
assert ["dog"] in buckets.values()
print(sorted(len(b) for b in buckets.values()))

# %% majority element
from collections import Counter

def majority(nums):
    candidate, count = None, 0
    for n in nums:
        if count == 0:
            candidate = n
        count += 1 if n == candidate else -1
    return candidate if nums.count(candidate) > len(nums) // 2 else None

assert majority([3, 2, 3]) == 3
assert majority([2, 2, 1, 1, 1, 2, 2]) == 2
assert majority([1, 2, 3]) is None
assert Counter([2, 2, 1, 1, 1, 2, 2]).most_common(1)[0][0] == 2
majority([7, 7, 5, 7, 5, 7])
