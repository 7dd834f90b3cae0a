# Failing programs of the kind models write: names used without their
# import, and misspelled names, attributes, modules and keys. Each cell
# (`# %% name`) is one program; bench/fixes.mjs runs them one by one and
# counts those that come back with a verified fix.

# %% word_counts
def word_counts(text):
    return Counter(text.lower().split())


counts = word_counts("the cat and the hat")
assert counts["the"] == 2
print(counts.most_common(2))

# %% hypotenuse
def hypotenuse(a, b):
    return math.sqrt(a * a + b * b)


assert hypotenuse(3, 4) == 5
print(hypotenuse(5, 12))

# %% parse_config
raw = '{"name": "demo", "retries": 3}'
config = json.loads(raw)
assert config["retries"] == 3
print(config)

# %% group_by_length
def group_by_length(words):
    groups = defaultdict(list)
    for word in words:
        groups[len(word)].append(word)
    return dict(groups)


assert group_by_length(["a", "bb", "cc"]) == {1: ["a"], 2: ["bb", "cc"]}

# %% extract_numbers
def extract_numbers(text):
    return [int(n) for n in re.findall(r"\d+", text)]


assert extract_numbers("a1 b22 c333") == [1, 22, 333]

# %% days_between
def days_between(a, b):
    return (datetime.strptime(b, "%Y-%m-%d") - datetime.strptime(a, "%Y-%m-%d")).days


assert days_between("2024-01-01", "2024-03-01") == 60

# %% point_class
@dataclass
class Point:
    x: float
    y: float

    def norm(self):
        return (self.x**2 + self.y**2) ** 0.5


assert Point(3, 4).norm() == 5

# %% running_total
values = [4, 8, 15, 16, 23, 42]
running = 0
for value in values:
    running += value
print(f"total: {runing}")

# %% mean_of_scores
def mean(scores):
    total = sum(scores)
    return total / len(scroes)


assert mean([1, 2, 3]) == 2

# %% sorted_names
names = ["bob", "alice", "carol"]
names.sortt()
print(names)

# %% upper_title
title = "hello world"
print(title.uper())

# %% math_floor
import math

print(math.flor(3.7))

# %% misspelled_module
import jsn

print(jsn.dumps({"a": 1}))

# %% from_import_typo
from itertools import combinatons

print(list(combinatons([1, 2, 3], 2)))

# %% dict_key_typo
person = {"name": "Ada", "email": "ada@example.com"}
print(person["emial"])

# %% random_sample
def roll(n):
    random.seed(n)
    return [random.randint(1, 6) for _ in range(n)]


assert len(roll(5)) == 5

# %% two_missing_imports
def summary(data):
    return json.dumps({"mean": statistics.mean(data), "max": max(data)})


print(summary([1, 2, 3, 4]))
