# Recursion: divide and conquer, backtracking, memoisation, trees.
# Each `# %% name` cell is one independent program with its own asserts.

# %% factorial
def factorial(n: int) -> int:
    if n < 0:
        raise ValueError("negative")
    return 1 if n <= 1 else n * factorial(n - 1)

import math
assert [factorial(n) for n in range(6)] == [1, 1, 2, 6, 24, 120]
assert factorial(20) == math.factorial(20)
try:
    factorial(-1)
except ValueError:
    pass
factorial(25)

# %% fibonacci memo
from functools import lru_cache

@lru_cache(maxsize=None)
def fib(n: int) -> int:
    return n if n < 2 else fib(n - 1) + fib(n - 2)

assert [fib(n) for n in range(10)] == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]
assert fib(90) == 2880067194370816120
assert fib.cache_info().hits > 0
print(fib(50))

# %% towers of hanoi
def hanoi(n, source="A", target="C", spare="B", moves=None):
    moves = [] if moves is None else moves
    if n:
        hanoi(n - 1, source, spare, target, moves)
        moves.append((source, target))
        hanoi(n - 1, spare, target, source, moves)
    return moves

moves = hanoi(3)
assert len(moves) == 7
assert moves[0] == ("A", "C") and moves[-1] == ("A", "C")
assert len(hanoi(10)) == 2 ** 10 - 1
pegs = {"A": list(range(5, 0, -1)), "B": [], "C": []}
for src, dst in hanoi(5):
    disk = pegs[src].pop()
    assert not pegs[dst] or pegs[dst][-1] > disk
    pegs[dst].append(disk)
assert pegs["C"] == [5, 4, 3, 2, 1]
print(moves)

# %% permutations
def permutations(items):
    if len(items) <= 1:
        return [list(items)]
    out = []
    for i, item in enumerate(items):
        for rest in permutations(items[:i] + items[i + 1:]):
            out.append([item] + rest)
    return out

perms = permutations([1, 2, 3])
assert len(perms) == 6
assert perms[0] == [1, 2, 3] and perms[-1] == [3, 2, 1]
import itertools
assert sorted(map(tuple, permutations("abcd"))) == sorted(itertools.permutations("abcd"))
["".join(p) for p in permutations("xyz")]

# %% power set
def subsets(items):
    if not items:
        return [[]]
    rest = subsets(items[1:])
    return rest + [[items[0]] + s for s in rest]

result = subsets([1, 2, 3])
assert len(result) == 8
assert sorted(map(sorted, result)) == [[], [1], [1, 2], [1, 2, 3], [1, 3], [2], [2, 3], [3]]
assert len(subsets(list(range(10)))) == 1024
sums = sorted({sum(s) for s in subsets([1, 5, 10, 25])})
print(sums)

# %% flatten nested lists
def flatten(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from flatten(item)
        else:
            yield item

nested = [1, [2, [3, [4, [5]]]], (6, 7), [], [[8], 9]]
assert list(flatten(nested)) == [1, 2, 3, 4, 5, 6, 7, 8, 9]
assert list(flatten([])) == []
depth = lambda x: 1 + max(map(depth, x), default=0) if isinstance(x, list) else 0
assert depth(nested) == 5
list(flatten([["a", ["b"]], "c"]))

# %% binary search recursive
def binary_search(items, target, lo=0, hi=None):
    hi = len(items) - 1 if hi is None else hi
    if lo > hi:
        return -1
    mid = (lo + hi) // 2
    if items[mid] == target:
        return mid
    if items[mid] < target:
        return binary_search(items, target, mid + 1, hi)
    return binary_search(items, target, lo, mid - 1)

data = list(range(0, 200, 3))
assert all(binary_search(data, x) == i for i, x in enumerate(data))
assert binary_search(data, 4) == -1
assert binary_search([], 1) == -1
binary_search(data, 99)

# %% merge sort
def merge_sort(items):
    if len(items) <= 1:
        return items
    mid = len(items) // 2
    left, right = merge_sort(items[:mid]), merge_sort(items[mid:])
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i]); i += 1
        else:
            merged.append(right[j]); j += 1
    return merged + left[i:] + right[j:]

import random
rng = random.Random(42)
data = [rng.randint(-1000, 1000) for _ in range(300)]
assert merge_sort(data) == sorted(data)
assert merge_sort([]) == [] and merge_sort([1]) == [1]
merge_sort([5, 2, 9, 1, 5, 6])

# %% quicksort
def quicksort(items):
    if len(items) < 2:
        return items
    pivot, *rest = items
    smaller = [x for x in rest if x < pivot]
    larger = [x for x in rest if x >= pivot]
    return quicksort(smaller) + [pivot] + quicksort(larger)

import random
rng = random.Random(7)
data = [rng.random() for _ in range(250)]
assert quicksort(data) == sorted(data)
assert quicksort(list("sandpit")) == sorted("sandpit")
print(quicksort([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]))

# %% gcd and lcm
def gcd(a, b):
    return a if b == 0 else gcd(b, a % b)

def lcm(a, b):
    return a * b // gcd(a, b)

import math
from functools import reduce
assert gcd(48, 18) == 6
assert all(gcd(a, b) == math.gcd(a, b) for a in range(1, 40) for b in range(1, 40))
assert reduce(lcm, range(1, 11)) == 2520
print(reduce(lcm, range(1, 21)))

# %% n queens
def n_queens(n):
    solutions = []
    def place(row, cols, diag1, diag2, board):
        if row == n:
            solutions.append(board[:])
            return
        for col in range(n):
            if col in cols or row - col in diag1 or row + col in diag2:
                continue
            board.append(col)
            place(row + 1, cols | {col}, diag1 | {row - col}, diag2 | {row + col}, board)
            board.pop()
    place(0, frozenset(), frozenset(), frozenset(), [])
    return solutions

assert len(n_queens(4)) == 2
assert len(n_queens(6)) == 4
assert n_queens(4)[0] == [1, 3, 0, 2]
print("\n".join(" ".join("Q" if c == col else "." for c in range(6)) for col in n_queens(6)[0]))

# %% sum of digits
def digit_sum(n: int) -> int:
    return n if n < 10 else n % 10 + digit_sum(n // 10)

def digital_root(n: int) -> int:
    return n if n < 10 else digital_root(digit_sum(n))

assert digit_sum(12345) == 15
assert digital_root(942) == 6
assert digital_root(132189) == 6
assert all(digital_root(n) == 1 + (n - 1) % 9 for n in range(1, 2000))
digit_sum(2 ** 100)

# %% binary tree depth
class Tree:
    def __init__(self, value, left=None, right=None):
        self.value, self.left, self.right = value, left, right

def depth(node):
    return 0 if node is None else 1 + max(depth(node.left), depth(node.right))

def inorder(node):
    return [] if node is None else inorder(node.left) + [node.value] + inorder(node.right)

def insert(node, value):
    if node is None:
        return Tree(value)
    if value < node.value:
        node.left = insert(node.left, value)
    else:
        node.right = insert(node.right, value)
    return node

root = None
for v in [50, 30, 70, 20, 40, 60, 80, 35]:
    root = insert(root, v)
assert inorder(root) == [20, 30, 35, 40, 50, 60, 70, 80]
assert depth(root) == 4
print(depth(root), inorder(root))

# %% combinations summing to target
def combination_sum(candidates, target):
    results = []
    def search(start, remaining, path):
        if remaining == 0:
            results.append(path)
            return
        for i in range(start, len(candidates)):
            c = candidates[i]
            if c <= remaining:
                search(i, remaining - c, path + [c])
    search(0, target, [])
    return results

assert combination_sum([2, 3, 6, 7], 7) == [[2, 2, 3], [7]]
assert combination_sum([2, 3, 5], 8) == [[2, 2, 2, 2], [2, 3, 3], [3, 5]]
assert combination_sum([4], 3) == []
len(combination_sum([1, 2, 5, 10], 20))

# %% catalan numbers
from functools import lru_cache

@lru_cache(maxsize=None)
def catalan(n):
    if n <= 1:
        return 1
    return sum(catalan(i) * catalan(n - 1 - i) for i in range(n))

def balanced(n):
    if n == 0:
        return [""]
    return [f"({a}){b}" for i in range(n) for a in balanced(i) for b in balanced(n - 1 - i)]

assert [catalan(n) for n in range(8)] == [1, 1, 2, 5, 14, 42, 132, 429]
assert len(balanced(4)) == catalan(4)
assert sorted(balanced(2)) == ["(())", "()()"]
print(catalan(15))

# %% integer partitions
from functools import lru_cache

@lru_cache(maxsize=None)
def partitions(n, largest=None):
    largest = n if largest is None else largest
    if n == 0:
        return 1
    return sum(partitions(n - k, k) for k in range(1, min(n, largest) + 1))

assert [partitions(n) for n in range(1, 11)] == [1, 2, 3, 5, 7, 11, 15, 22, 30, 42]
assert partitions(30) == 5604
partitions(35)

# %% ackermann small
import sys

def ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))

assert ackermann(0, 0) == 1
assert ackermann(1, 2) == 4
assert ackermann(2, 3) == 9
assert ackermann(3, 3) == 61
print(ackermann(2, 10), sys.getrecursionlimit() > 100)

# %% string permutations unique
def unique_permutations(s):
    if len(s) <= 1:
        return {s}
    out = set()
    for i, ch in enumerate(s):
        for rest in unique_permutations(s[:i] + s[i + 1:]):
            out.add(ch + rest)
    return out

assert unique_permutations("aab") == {"aab", "aba", "baa"}
assert len(unique_permutations("abcd")) == 24
assert len(unique_permutations("aabb")) == 6
sorted(unique_permutations("dog"))

# %% flood fill
grid = [
    list("..##...."),
    list(".#..#..."),
    list(".#..#.##"),
    list("..##..#."),
]

def fill(grid, r, c, old, new):
    if not (0 <= r < len(grid) and 0 <= c < len(grid[0])) or grid[r][c] != old:
        return 0
    grid[r][c] = new
    return 1 + sum(fill(grid, r + dr, c + dc, old, new) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))

inside = fill(grid, 1, 2, ".", "o")
assert inside == 4
assert "".join(grid[1]) == ".#oo#..."
outside = fill(grid, 0, 0, ".", "~")
assert outside == 6, outside
assert fill(grid, 0, 7, ".", "~") == 10
assert fill(grid, 3, 7, ".", "~") == 1
print("\n".join("".join(row) for row in grid))

# %% tree paths sum
tree = {"value": 5, "children": [
    {"value": 4, "children": [{"value": 11, "children": [{"value": 7, "children": []}, {"value": 2, "children": []}]}]},
    {"value": 8, "children": [{"value": 13, "children": []}, {"value": 4, "children": [{"value": 1, "children": []}]}]},
]}

def paths(node, prefix=()):
    prefix = prefix + (node["value"],)
    if not node["children"]:
        return [prefix]
    return [p for child in node["children"] for p in paths(child, prefix)]

all_paths = paths(tree)
assert len(all_paths) == 4
assert [p for p in all_paths if sum(p) == 22] == [(5, 4, 11, 2)]
assert max(all_paths, key=sum) == (5, 4, 11, 7)
[sum(p) for p in all_paths]

# %% count change ways
from functools import lru_cache

def count_change(amount, coins):
    coins = tuple(sorted(coins, reverse=True))
    @lru_cache(maxsize=None)
    def ways(remaining, index):
        if remaining == 0:
            return 1
        if remaining < 0 or index == len(coins):
            return 0
        return ways(remaining - coins[index], index) + ways(remaining, index + 1)
    return ways(amount, 0)

assert count_change(4, [1, 2, 3]) == 4
assert count_change(10, [2, 5, 3, 6]) == 5
assert count_change(100, [1, 5, 10, 25, 50]) == 292
print(count_change(200, [1, 2, 5, 10, 20, 50, 100, 200]))

# %% gray code
def gray(n):
    if n == 0:
        return [""]
    previous = gray(n - 1)
    return ["0" + code for code in previous] + ["1" + code for code in reversed(previous)]

codes = gray(4)
assert len(codes) == 16 and len(set(codes)) == 16
assert all(sum(a != b for a, b in zip(x, y)) == 1 for x, y in zip(codes, codes[1:]))
assert codes[:4] == ["0000", "0001", "0011", "0010"]
assert [int(c, 2) for c in gray(3)] == [i ^ (i >> 1) for i in range(8)]
gray(3)
