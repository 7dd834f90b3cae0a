# Classic algorithm exercises: graphs, dynamic programming, searching.
# Each `# %% name` cell is one independent program with its own asserts.

# %% breadth first search shortest path
from collections import deque

graph = {"A": ["B", "C"], "B": ["D"], "C": ["D", "E"], "D": ["F"], "E": ["F"], "F": []}

def shortest_path(start, goal):
    queue = deque([[start]])
    seen = {start}
    while queue:
        path = queue.popleft()
        if path[-1] == goal:
            return path
        for nxt in graph[path[-1]]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(path + [nxt])
    return None

assert shortest_path("A", "F") == ["A", "B", "D", "F"]
assert shortest_path("C", "F") == ["C", "D", "F"]
assert shortest_path("F", "A") is None
shortest_path("A", "E")

# %% depth first search components
def components(n, edges):
    adj = {i: set() for i in range(n)}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    seen, groups = set(), []
    for start in range(n):
        if start in seen:
            continue
        stack, group = [start], []
        seen.add(start)
        while stack:
            node = stack.pop()
            group.append(node)
            for nxt in adj[node] - seen:
                seen.add(nxt)
                stack.append(nxt)
        groups.append(sorted(group))
    return groups

assert components(7, [(0, 1), (1, 2), (3, 4), (5, 5)]) == [[0, 1, 2], [3, 4], [5], [6]]
assert len(components(4, [])) == 4
components(6, [(0, 5), (5, 3), (1, 2)])

# %% dijkstra
import heapq

roads = {
    "home": {"shop": 4, "park": 1},
    "park": {"shop": 2, "school": 6},
    "shop": {"school": 3, "office": 7},
    "school": {"office": 1},
    "office": {},
}

def dijkstra(source):
    dist = {source: 0}
    prev = {}
    heap = [(0, source)]
    while heap:
        d, node = heapq.heappop(heap)
        if d > dist[node]:
            continue
        for nxt, w in roads[node].items():
            if d + w < dist.get(nxt, float("inf")):
                dist[nxt] = d + w
                prev[nxt] = node
                heapq.heappush(heap, (d + w, nxt))
    return dist, prev

dist, prev = dijkstra("home")
assert dist == {"home": 0, "park": 1, "shop": 3, "school": 6, "office": 7}
path, node = [], "office"
while node != "home":
    path.append(node)
    node = prev[node]
assert path[::-1] == ["park", "shop", "school", "office"]
dist

# %% topological sort
from collections import deque

deps = {"app": ["ui", "runtime"], "ui": ["protocol"], "runtime": ["protocol", "queue"], "protocol": [], "queue": []}

def topo_sort(deps):
    indegree = {k: 0 for k in deps}
    users = {k: [] for k in deps}
    for node, needs in deps.items():
        for need in needs:
            indegree[node] += 1
            users[need].append(node)
    ready = deque(sorted(k for k, v in indegree.items() if v == 0))
    order = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for user in sorted(users[node]):
            indegree[user] -= 1
            if indegree[user] == 0:
                ready.append(user)
    if len(order) != len(deps):
        raise ValueError("cycle")
    return order

order = topo_sort(deps)
assert order == ["protocol", "queue", "ui", "runtime", "app"]
assert all(order.index(n) < order.index(node) for node, needs in deps.items() for n in needs)
try:
    topo_sort({"a": ["b"], "b": ["a"]})
except ValueError:
    cyclic = True
assert cyclic
order

# %% knapsack
def knapsack(items, capacity):
    best = [0] * (capacity + 1)
    choice = [[] for _ in range(capacity + 1)]
    for name, weight, value in items:
        for c in range(capacity, weight - 1, -1):
            if best[c - weight] + value > best[c]:
                best[c] = best[c - weight] + value
                choice[c] = choice[c - weight] + [name]
    return best[capacity], sorted(choice[capacity])

items = [("map", 9, 150), ("compass", 13, 35), ("water", 153, 200), ("sandwich", 50, 160),
         ("glucose", 15, 60), ("tin", 68, 45), ("banana", 27, 60), ("apple", 39, 40)]
value, chosen = knapsack(items, 200)
assert value == 510, value
assert chosen == ["banana", "compass", "glucose", "map", "sandwich", "tin"]
knapsack([("a", 1, 1), ("b", 3, 4), ("c", 4, 5), ("d", 5, 7)], 7)

# %% longest common subsequence
def lcs(a, b):
    dp = [[""] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            if a[i] == b[j]:
                dp[i][j] = a[i] + dp[i + 1][j + 1]
            else:
                dp[i][j] = max(dp[i + 1][j], dp[i][j + 1], key=len)
    return dp[0][0]

assert lcs("ABCBDAB", "BDCABA") in {"BCBA", "BDAB", "BCAB"}
assert len(lcs("AGGTAB", "GXTXAYB")) == 4
assert lcs("abc", "def") == ""
lcs("sandpit in the browser", "python in a worker")

# %% edit distance with operations
def edit_distance(a, b):
    rows, cols = len(a) + 1, len(b) + 1
    d = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        d[i][0] = i
    for j in range(cols):
        d[0][j] = j
    for i in range(1, rows):
        for j in range(1, cols):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    return d[-1][-1]

assert edit_distance("kitten", "sitting") == 3
assert edit_distance("", "abc") == 3
assert edit_distance("flaw", "lawn") == 2
assert edit_distance("same", "same") == 0
edit_distance("intention", "execution")

# %% longest increasing subsequence
import bisect

def lis_length(nums):
    tails = []
    for n in nums:
        i = bisect.bisect_left(tails, n)
        if i == len(tails):
            tails.append(n)
        else:
            tails[i] = n
    return len(tails)

assert lis_length([10, 9, 2, 5, 3, 7, 101, 18]) == 4
assert lis_length([0, 1, 0, 3, 2, 3]) == 4
assert lis_length([7, 7, 7]) == 1
assert lis_length([]) == 0
lis_length([3, 10, 2, 1, 20, 4, 6, 7, 8])

# %% coin change minimum
def min_coins(coins, amount):
    INF = float("inf")
    best = [0] + [INF] * amount
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a and best[a - c] + 1 < best[a]:
                best[a] = best[a - c] + 1
    return best[amount] if best[amount] != INF else -1

assert min_coins([1, 2, 5], 11) == 3
assert min_coins([2], 3) == -1
assert min_coins([1, 3, 4], 6) == 2
assert min_coins([186, 419, 83, 408], 6249) == 20
min_coins([1, 5, 10, 25], 99)

# %% union find
class DisjointSet:
    def __init__(self, n):
        self.parent = list(range(n))
        self.size = [1] * n

    def find(self, x):
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]
        return True

# Kruskal's minimum spanning tree.
edges = sorted([(7, 0, 1), (5, 0, 3), (8, 1, 2), (9, 1, 3), (7, 1, 4), (5, 2, 4), (15, 3, 4), (6, 3, 5), (8, 4, 5), (9, 4, 6), (11, 5, 6)])
ds = DisjointSet(7)
tree = [(w, a, b) for w, a, b in edges if ds.union(a, b)]
assert len(tree) == 6
assert sum(w for w, _, _ in tree) == 39
tree

# %% spiral matrix
def spiral(matrix):
    out = []
    while matrix:
        out += matrix.pop(0)
        matrix = [list(row) for row in zip(*matrix)][::-1]
    return out

assert spiral([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == [1, 2, 3, 6, 9, 8, 7, 4, 5]
assert spiral([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]) == [1, 2, 3, 4, 8, 12, 11, 10, 9, 5, 6, 7]
assert spiral([]) == []
spiral([[i * 4 + j for j in range(4)] for i in range(4)])

# %% rotate matrix in place
def rotate(m):
    n = len(m)
    for i in range(n):
        for j in range(i + 1, n):
            m[i][j], m[j][i] = m[j][i], m[i][j]
    for row in m:
        row.reverse()
    return m

m = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
assert rotate(m) == [[7, 4, 1], [8, 5, 2], [9, 6, 3]]
original = [[i * 5 + j for j in range(5)] for i in range(5)]
m = [row[:] for row in original]
for _ in range(4):
    rotate(m)
assert m == original
rotate([[1, 2], [3, 4]])

# %% trie autocomplete
class Trie:
    def __init__(self):
        self.root = {}

    def insert(self, word):
        node = self.root
        for ch in word:
            node = node.setdefault(ch, {})
        node["$"] = True

    def complete(self, prefix):
        node = self.root
        for ch in prefix:
            if ch not in node:
                return []
            node = node[ch]
        out = []
        def walk(n, acc):
            for key, child in sorted(n.items()):
                if key == "$":
                    out.append(prefix + acc)
                else:
                    walk(child, acc + key)
        walk(node, "")
        return out

trie = Trie()
for w in ["print", "private", "prime", "process", "python", "pyodide", "pip"]:
    trie.insert(w)
assert trie.complete("pri") == ["prime", "print", "private"]
assert trie.complete("py") == ["pyodide", "python"]
assert trie.complete("x") == []
trie.complete("p")

# %% maximum subarray
def max_subarray(nums):
    best = current = nums[0]
    start = best_start = best_end = 0
    for i, n in enumerate(nums[1:], 1):
        if current + n < n:
            current, start = n, i
        else:
            current += n
        if current > best:
            best, best_start, best_end = current, start, i
    return best, nums[best_start:best_end + 1]

assert max_subarray([-2, 1, -3, 4, -1, 2, 1, -5, 4]) == (6, [4, -1, 2, 1])
assert max_subarray([-3, -1, -2]) == (-1, [-1])
assert max_subarray([5]) == (5, [5])
max_subarray([2, -8, 3, -2, 4, -10])

# %% merge intervals
def merge(intervals):
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged

assert merge([[1, 3], [2, 6], [8, 10], [15, 18]]) == [[1, 6], [8, 10], [15, 18]]
assert merge([[1, 4], [4, 5]]) == [[1, 5]]
assert merge([[5, 7], [1, 2], [2, 4], [6, 9]]) == [[1, 4], [5, 9]]
assert merge([]) == []
total_covered = sum(e - s for s, e in merge([[0, 5], [3, 8], [10, 12]]))
assert total_covered == 10
merge([[1, 10], [2, 3], [4, 5], [11, 12]])

# %% sliding window longest unique
def longest_unique(s):
    last, start, best = {}, 0, ""
    for i, ch in enumerate(s):
        if last.get(ch, -1) >= start:
            start = last[ch] + 1
        last[ch] = i
        if i - start + 1 > len(best):
            best = s[start:i + 1]
    return best

assert longest_unique("abcabcbb") == "abc"
assert longest_unique("bbbbb") == "b"
assert longest_unique("pwwkew") == "wke"
assert longest_unique("") == ""
longest_unique("sandpit python sandbox")

# %% binary search on answer
import math

def min_speed(piles, hours):
    lo, hi = 1, max(piles)
    while lo < hi:
        mid = (lo + hi) // 2
        if sum(math.ceil(p / mid) for p in piles) <= hours:
            hi = mid
        else:
            lo = mid + 1
    return lo

assert min_speed([3, 6, 7, 11], 8) == 4
assert min_speed([30, 11, 23, 4, 20], 5) == 30
assert min_speed([30, 11, 23, 4, 20], 6) == 23
min_speed([312884470], 968709470)

# %% matrix path counting
from functools import lru_cache

grid = [
    "....#",
    ".#...",
    "...#.",
    "#....",
]

@lru_cache(maxsize=None)
def paths(r, c):
    if r >= len(grid) or c >= len(grid[0]) or grid[r][c] == "#":
        return 0
    if (r, c) == (len(grid) - 1, len(grid[0]) - 1):
        return 1
    return paths(r + 1, c) + paths(r, c + 1)

assert paths(0, 0) == 5, paths(0, 0)
from math import comb
paths.cache_clear()
grid = ["....."] * 4
assert paths(0, 0) == comb(7, 3)
paths(0, 0)

# %% stable matching
def stable_match(proposers, acceptors):
    free = list(proposers)
    next_choice = {p: 0 for p in proposers}
    engaged = {}
    rank = {a: {p: i for i, p in enumerate(prefs)} for a, prefs in acceptors.items()}
    while free:
        p = free.pop(0)
        a = proposers[p][next_choice[p]]
        next_choice[p] += 1
        if a not in engaged:
            engaged[a] = p
        elif rank[a][p] < rank[a][engaged[a]]:
            free.append(engaged[a])
            engaged[a] = p
        else:
            free.append(p)
    return {p: a for a, p in engaged.items()}

students = {"ana": ["x", "y", "z"], "ben": ["y", "x", "z"], "cho": ["x", "y", "z"]}
schools = {"x": ["ben", "ana", "cho"], "y": ["ana", "ben", "cho"], "z": ["ana", "ben", "cho"]}
match = stable_match(students, schools)
assert match == {"ana": "x", "ben": "y", "cho": "z"}
assert sorted(match.values()) == ["x", "y", "z"]
match

# %% cycle detection floyd
def has_cycle(next_of, start):
    slow = fast = start
    while fast is not None and next_of.get(fast) is not None:
        slow = next_of[slow]
        fast = next_of[next_of[fast]]
        if slow == fast:
            return True
    return False

chain = {1: 2, 2: 3, 3: 4, 4: None}
loop = {1: 2, 2: 3, 3: 4, 4: 2}
assert not has_cycle(chain, 1)
assert has_cycle(loop, 1)
assert has_cycle({0: 0}, 0)
sequence = lambda x: (x * x + 1) % 255
seen, x = {}, 3
for step in range(300):
    if x in seen:
        cycle_length = step - seen[x]
        break
    seen[x] = step
    x = sequence(x)
assert cycle_length > 0
cycle_length

# %% game of life
def step(live):
    counts = {}
    for (r, c) in live:
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr or dc:
                    counts[(r + dr, c + dc)] = counts.get((r + dr, c + dc), 0) + 1
    return {cell for cell, n in counts.items() if n == 3 or (n == 2 and cell in live)}

blinker = {(1, 0), (1, 1), (1, 2)}
assert step(blinker) == {(0, 1), (1, 1), (2, 1)}
assert step(step(blinker)) == blinker
glider = {(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)}
state = glider
for _ in range(4):
    state = step(state)
assert state == {(r + 1, c + 1) for r, c in glider}
block = {(0, 0), (0, 1), (1, 0), (1, 1)}
assert step(block) == block
len(state)
