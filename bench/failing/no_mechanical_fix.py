# Failing programs with no mechanical fix: wrong results, errors the code
# raises on purpose, division by zero, runaway recursion. A fix offered here
# would be a guess. `# %% name` cells, one program each.

# %% wrong_sum
def add(a, b):
    return a - b


assert add(2, 3) == 5

# %% off_by_one
def last(items):
    return items[len(items)]


print(last([1, 2, 3]))

# %% divide_by_zero
def average(xs):
    return sum(xs) / len(xs)


print(average([]))

# %% validation_error
def parse_age(text):
    age = int(text)
    if age < 0:
        raise ValueError("age must be positive")
    return age


parse_age("-3")

# %% runaway_recursion
def countdown(n):
    return countdown(n - 1)


countdown(5)

# %% bad_int
print(int("twelve"))

# %% wrong_key
stock = {"apples": 3}
print(stock["pears"])
