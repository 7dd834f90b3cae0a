# Numbers: integers, fractions, decimals, statistics, number theory.
# Each `# %% name` cell is one independent program with its own asserts.

# %% sieve of eratosthenes
def primes_below(n: int) -> list[int]:
    sieve = bytearray([1]) * n
    sieve[:2] = b"\x00\x00"
    for i in range(2, int(n ** 0.5) + 1):
        if sieve[i]:
            sieve[i * i::i] = bytearray(len(range(i * i, n, i)))
    return [i for i, is_prime in enumerate(sieve) if is_prime]

primes = primes_below(1000)
assert primes[:10] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
assert len(primes) == 168
assert primes[-1] == 997
twin = [(p, q) for p, q in zip(primes, primes[1:]) if q - p == 2]
len(twin)

# %% fraction arithmetic
from fractions import Fraction

total = sum(Fraction(1, n) for n in range(1, 11))
assert total == Fraction(7381, 2520)
assert Fraction("0.125") == Fraction(1, 8)
assert Fraction(3, 4) * Fraction(2, 3) == Fraction(1, 2)
assert Fraction(1, 3).limit_denominator(10) == Fraction(1, 3)
assert Fraction(3.14159).limit_denominator(100) == Fraction(311, 99)
egyptian = []
remaining = Fraction(4, 13)
while remaining:
    unit = Fraction(1, -(-remaining.denominator // remaining.numerator))
    egyptian.append(unit)
    remaining -= unit
assert sum(egyptian) == Fraction(4, 13)
[str(f) for f in egyptian]

# %% decimal money
from decimal import Decimal, ROUND_HALF_UP, getcontext

prices = [Decimal("19.99"), Decimal("5.01"), Decimal("0.10"), Decimal("0.20")]
assert sum(prices) == Decimal("25.30")
assert 0.1 + 0.2 != 0.3 and Decimal("0.1") + Decimal("0.2") == Decimal("0.3")
vat = (sum(prices) * Decimal("0.21")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
assert vat == Decimal("5.31")
split = (Decimal("100") / 3).quantize(Decimal("0.01"))
assert split == Decimal("33.33")
assert getcontext().prec == 28
str(sum(prices) + vat)

# %% statistics summary
import statistics as st

data = [2.5, 3.1, 4.7, 3.1, 5.0, 6.2, 3.9, 4.4, 3.1, 5.8]
assert round(st.mean(data), 10) == 4.18
assert round(st.median(data), 10) == 4.15
assert st.mode(data) == 3.1
assert round(st.stdev(data), 4) == 1.2515
q = st.quantiles(data, n=4)
assert len(q) == 3 and q[0] < q[1] < q[2]
summary = {"mean": st.mean(data), "median": st.median(data), "range": max(data) - min(data)}
summary

# %% base conversion
def to_base(n: int, base: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    n = abs(n)
    out = []
    while n:
        n, r = divmod(n, base)
        out.append(digits[r])
    return sign + "".join(reversed(out))

assert to_base(255, 16) == "ff" == format(255, "x")
assert to_base(255, 2) == bin(255)[2:]
assert to_base(-42, 7) == "-60"
assert all(int(to_base(n, b), b) == n for n in range(0, 500, 7) for b in (2, 3, 8, 16, 36))
to_base(2 ** 64, 36)

# %% perfect numbers
def divisor_sum(n: int) -> int:
    total = 1
    i = 2
    while i * i <= n:
        if n % i == 0:
            total += i
            if i != n // i:
                total += n // i
        i += 1
    return total if n > 1 else 0

perfect = [n for n in range(2, 10000) if divisor_sum(n) == n]
assert perfect == [6, 28, 496, 8128]
amicable = [(a, divisor_sum(a)) for a in range(2, 1500) if a < divisor_sum(a) < 1500 and divisor_sum(divisor_sum(a)) == a]
assert amicable == [(220, 284), (1184, 1210)]
perfect

# %% collatz lengths
from functools import lru_cache

@lru_cache(maxsize=None)
def collatz_length(n: int) -> int:
    if n == 1:
        return 1
    return 1 + collatz_length(n // 2 if n % 2 == 0 else 3 * n + 1)

assert collatz_length(1) == 1
assert collatz_length(6) == 9
assert collatz_length(27) == 112
best = max(range(1, 3000), key=collatz_length)
assert best == 2919
print(best, collatz_length(best))

# %% pascal triangle
from math import comb

def pascal(rows: int) -> list[list[int]]:
    triangle = [[1]]
    for _ in range(rows - 1):
        prev = triangle[-1]
        triangle.append([1] + [a + b for a, b in zip(prev, prev[1:])] + [1])
    return triangle

t = pascal(10)
assert t[4] == [1, 4, 6, 4, 1]
assert all(t[n][k] == comb(n, k) for n in range(10) for k in range(n + 1))
assert [sum(row) for row in t] == [2 ** n for n in range(10)]
width = len(" ".join(map(str, t[-1])))
print("\n".join(" ".join(map(str, row)).center(width) for row in t))

# %% matrix determinant
from fractions import Fraction

def determinant(m):
    m = [[Fraction(x) for x in row] for row in m]
    n, det = len(m), Fraction(1)
    for col in range(n):
        pivot = next((r for r in range(col, n) if m[r][col] != 0), None)
        if pivot is None:
            return Fraction(0)
        if pivot != col:
            m[col], m[pivot] = m[pivot], m[col]
            det = -det
        det *= m[col][col]
        for r in range(col + 1, n):
            factor = m[r][col] / m[col][col]
            m[r] = [a - factor * b for a, b in zip(m[r], m[col])]
    return det

assert determinant([[1, 2], [3, 4]]) == -2
assert determinant([[2, 0, 1], [1, 3, 2], [1, 1, 1]]) == 0
assert determinant([[6, 1, 1], [4, -2, 5], [2, 8, 7]]) == -306
assert determinant([[0, 1], [1, 0]]) == -1
determinant([[1, 2, 3, 4], [5, 6, 7, 8], [2, 6, 4, 8], [3, 1, 1, 2]])

# %% complex roots
import cmath

def quadratic_roots(a, b, c):
    disc = cmath.sqrt(b * b - 4 * a * c)
    return (-b + disc) / (2 * a), (-b - disc) / (2 * a)

r1, r2 = quadratic_roots(1, -3, 2)
assert (r1, r2) == (2, 1)
c1, c2 = quadratic_roots(1, 2, 5)
assert c1 == complex(-1, 2) and c2 == c1.conjugate()
assert abs(cmath.exp(1j * cmath.pi) + 1) < 1e-12
roots_of_unity = [cmath.exp(2j * cmath.pi * k / 6) for k in range(6)]
assert abs(sum(roots_of_unity)) < 1e-12
[round(abs(z), 6) for z in roots_of_unity]

# %% float comparisons
import math

assert 0.1 + 0.2 != 0.3
assert math.isclose(0.1 + 0.2, 0.3)
assert math.isclose(1e-10, 0, abs_tol=1e-9)
assert math.fsum([0.1] * 10) == 1.0
total = 0.0
for _ in range(10):
    total += 0.1
assert total != 1.0
assert round(2.675, 2) == 2.67
assert math.isnan(float("nan")) and float("inf") > 1e308
assert (0.1).as_integer_ratio() == (3602879701896397, 36028797018963968)
math.nextafter(1.0, 2.0) - 1.0 == math.ulp(1.0)

# %% bit manipulation
def popcount(n: int) -> int:
    count = 0
    while n:
        n &= n - 1
        count += 1
    return count

assert [popcount(n) for n in (0, 1, 7, 8, 255)] == [0, 1, 3, 1, 8]
assert all(popcount(n) == bin(n).count("1") for n in range(1000))
is_power_of_two = lambda n: n > 0 and n & (n - 1) == 0
assert [n for n in range(70) if is_power_of_two(n)] == [1, 2, 4, 8, 16, 32, 64]
flags = 0b0000
READ, WRITE, EXEC = 1, 2, 4
flags |= READ | EXEC
assert flags & WRITE == 0 and flags & EXEC
flags ^= READ
assert flags == EXEC
(1 << 10) - 1

# %% seeded random simulation
import random

rng = random.Random(2024)
rolls = [rng.randint(1, 6) for _ in range(6000)]
counts = [rolls.count(face) for face in range(1, 7)]
assert sum(counts) == 6000
assert all(900 < c < 1100 for c in counts), counts
rng2 = random.Random(2024)
assert [rng2.randint(1, 6) for _ in range(6000)] == rolls
deck = [f"{r}{s}" for s in "SHDC" for r in "A23456789TJQK"]
rng.shuffle(deck)
assert sorted(deck) == sorted(f"{r}{s}" for s in "SHDC" for r in "A23456789TJQK")
hand = rng.sample(deck, 5)
assert len(set(hand)) == 5
counts

# %% monte carlo pi
import random

rng = random.Random(1)
n = 20000
inside = sum(1 for _ in range(n) if rng.random() ** 2 + rng.random() ** 2 <= 1)
estimate = 4 * inside / n
assert abs(estimate - 3.14159) < 0.05, estimate
print(f"pi is about {estimate:.3f}")

# %% integer square root
import math

def isqrt(n: int) -> int:
    if n < 2:
        return n
    x = n
    y = (x + 1) // 2
    while y < x:
        x, y = y, (y + n // y) // 2
    return x

assert all(isqrt(n) == math.isqrt(n) for n in range(5000))
big = 10 ** 40 + 12345
assert isqrt(big) == math.isqrt(big)
assert isqrt(2 * 10 ** 30) == 1414213562373095
is_square = lambda n: isqrt(n) ** 2 == n
[n for n in range(200) if is_square(n)]

# %% modular exponent and inverse
def mod_pow(base, exp, mod):
    result = 1
    base %= mod
    while exp:
        if exp & 1:
            result = result * base % mod
        base = base * base % mod
        exp >>= 1
    return result

assert mod_pow(3, 200, 13) == pow(3, 200, 13)
assert mod_pow(2, 10 ** 18, 10 ** 9 + 7) == pow(2, 10 ** 18, 10 ** 9 + 7)
inverse = pow(17, -1, 3120)
assert 17 * inverse % 3120 == 1
p, q, e = 61, 53, 17
n, phi = p * q, (p - 1) * (q - 1)
d = pow(e, -1, phi)
message = 65
assert pow(pow(message, e, n), d, n) == message
print(d)

# %% number formatting
value = 1234567.891
assert f"{value:,.2f}" == "1,234,567.89"
assert f"{value:_.0f}" == "1_234_568"
assert f"{0.4567:.1%}" == "45.7%"
assert f"{value:.3e}" == "1.235e+06"
assert f"{42:08b}" == "00101010"
assert f"{255:#x}" == "0xff"
assert f"{-3.5:+.1f}" == "-3.5" and f"{3.5:+.1f}" == "+3.5"
assert format(1e-7, "g") == "1e-07"
f"{value:>15,.1f}"

# %% numeric integration
import math

def simpson(f, a, b, n=100):
    if n % 2:
        n += 1
    h = (b - a) / n
    s = f(a) + f(b)
    s += 4 * sum(f(a + i * h) for i in range(1, n, 2))
    s += 2 * sum(f(a + i * h) for i in range(2, n, 2))
    return s * h / 3

assert math.isclose(simpson(math.sin, 0, math.pi), 2.0, rel_tol=1e-8)
assert math.isclose(simpson(lambda x: x ** 2, 0, 3), 9.0)
assert math.isclose(simpson(lambda x: math.exp(-x * x), -5, 5, 200), math.sqrt(math.pi), rel_tol=1e-9)
simpson(lambda x: 1 / x, 1, math.e)

# %% newton square root
def newton_sqrt(x: float, tolerance: float = 1e-12) -> float:
    if x < 0:
        raise ValueError("negative")
    if x == 0:
        return 0.0
    guess = x
    while abs(guess * guess - x) > tolerance * max(x, 1):
        guess = (guess + x / guess) / 2
    return guess

import math
for x in [0, 1, 2, 9, 1e-6, 12345.678, 1e12]:
    assert math.isclose(newton_sqrt(x), math.sqrt(x), rel_tol=1e-9, abs_tol=1e-9), x
newton_sqrt(2)

# %% prime factorisation
from collections import Counter
from math import prod

def factorise(n: int) -> Counter:
    factors = Counter()
    d = 2
    while d * d <= n:
        while n % d == 0:
            factors[d] += 1
            n //= d
        d += 1 if d == 2 else 2
    if n > 1:
        factors[n] += 1
    return factors

assert factorise(360) == {2: 3, 3: 2, 5: 1}
assert factorise(97) == {97: 1}
assert all(prod(p ** k for p, k in factorise(n).items()) == n for n in range(2, 2000))
n_divisors = prod(k + 1 for k in factorise(720720).values())
assert n_divisors == 240
" * ".join(f"{p}^{k}" if k > 1 else str(p) for p, k in sorted(factorise(9699690).items()))

# %% means and geometric series
import math
import statistics as st

values = [1, 2, 4, 8, 16]
assert st.mean(values) == 6.2
assert math.isclose(st.geometric_mean(values), 4.0)
assert math.isclose(st.harmonic_mean([40, 60]), 48)
ratio, first, n = 0.5, 1, 20
partial = first * (1 - ratio ** n) / (1 - ratio)
assert math.isclose(partial, sum(first * ratio ** k for k in range(n)))
assert abs(partial - 2) < 1e-5
round(partial, 6)

# %% linear regression by hand
xs = [1, 2, 3, 4, 5, 6]
ys = [2.1, 3.9, 6.2, 7.8, 10.1, 12.0]
n = len(xs)
mean_x, mean_y = sum(xs) / n, sum(ys) / n
slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)
intercept = mean_y - slope * mean_x
predictions = [slope * x + intercept for x in xs]
ss_res = sum((y - p) ** 2 for y, p in zip(ys, predictions))
ss_tot = sum((y - mean_y) ** 2 for y in ys)
r2 = 1 - ss_res / ss_tot
assert round(slope, 3) == 1.991
assert r2 > 0.99
import statistics
assert abs(statistics.linear_regression(xs, ys).slope - slope) < 1e-12
(round(slope, 3), round(intercept, 3), round(r2, 4))
