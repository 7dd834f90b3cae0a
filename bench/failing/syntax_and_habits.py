# Failing programs: the syntax errors CPython diagnoses, indentation, and
# habits from other languages. `# %% name` cells, one program each.

# %% missing_colon_def
def double(x)
    return x * 2


assert double(4) == 8

# %% missing_colon_for
total = 0
for i in range(10)
    total += i
assert total == 45

# %% assignment_in_condition
def sign(n):
    if n = 0:
        return 0
    return 1 if n > 0 else -1


assert sign(0) == 0

# %% missing_comma_list
primes = [2, 3, 5 7, 11]
assert sum(primes) == 28

# %% unclosed_call
print("starting"
count = 3
assert count == 3

# %% unclosed_string
greeting = 'hello
print(greeting)

# %% python2_print
name = "world"
print "hello", name

# %% unexpected_indent
x = 10
    y = 20
print(x + y)

# %% expected_indent
def is_even(n):
return n % 2 == 0


assert is_even(4)

# %% js_booleans
flags = {"debug": true, "verbose": false}
assert flags["debug"]

# %% js_null
result = null
if result is None:
    print("nothing yet")

# %% xrange
squares = [i * i for i in xrange(5)]
assert squares == [0, 1, 4, 9, 16]

# %% js_push
stack = []
stack.push(1)
stack.push(2)
assert stack == [1, 2]

# %% js_length
word = "sandbox"
assert word.length == 7

# %% str_plus_int
count = 3
message = "items: " + count
print(message)

# %% int_plus_str
year = 2024
label = year + " report"
print(label)

# %% js_and
def between(x, low, high):
    return x >= low && x <= high


assert between(5, 1, 10)
