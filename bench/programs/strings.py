# String processing, the way a model answers "write a function that ...".
# Each `# %% name` cell is one independent program with its own asserts.

# %% palindrome
def is_palindrome(text: str) -> bool:
    cleaned = "".join(ch.lower() for ch in text if ch.isalnum())
    return cleaned == cleaned[::-1]

assert is_palindrome("A man, a plan, a canal: Panama")
assert is_palindrome("No 'x' in Nixon")
assert not is_palindrome("Hello, world")
print("palindromes ok")

# %% anagrams
from collections import Counter

def are_anagrams(a: str, b: str) -> bool:
    normalize = lambda s: Counter(s.replace(" ", "").lower())
    return normalize(a) == normalize(b)

assert are_anagrams("Listen", "Silent")
assert are_anagrams("Dormitory", "dirty room")
assert not are_anagrams("apple", "paple!")
words = ["enlist", "google", "inlets", "banana", "silent", "tinsel"]
groups = {}
for w in words:
    groups.setdefault("".join(sorted(w)), []).append(w)
anagram_sets = [sorted(g) for g in groups.values() if len(g) > 1]
assert anagram_sets == [["enlist", "inlets", "silent", "tinsel"]]
anagram_sets

# %% caesar cipher
def caesar(text: str, shift: int) -> str:
    out = []
    for ch in text:
        if ch.isalpha():
            base = ord("A") if ch.isupper() else ord("a")
            out.append(chr((ord(ch) - base + shift) % 26 + base))
        else:
            out.append(ch)
    return "".join(out)

secret = caesar("Hello, World!", 3)
assert secret == "Khoor, Zruog!"
assert caesar(secret, -3) == "Hello, World!"
assert caesar("xyz", 3) == "abc"
print(secret)

# %% word frequencies
text = """The quick brown fox jumps over the lazy dog. The dog sleeps;
the fox runs away, and the quick fox is never seen again."""

def word_frequencies(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for raw in text.lower().split():
        word = raw.strip(".,;:!?")
        if word:
            counts[word] = counts.get(word, 0) + 1
    return counts

freq = word_frequencies(text)
top = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
assert top == [("the", 5), ("fox", 3), ("dog", 2)], top
assert freq["quick"] == 2
for word, count in top:
    print(f"{word:>5}: {count}")

# %% run length encoding
def rle_encode(s: str) -> str:
    if not s:
        return ""
    out, prev, count = [], s[0], 1
    for ch in s[1:]:
        if ch == prev:
            count += 1
        else:
            out.append(f"{count}{prev}")
            prev, count = ch, 1
    out.append(f"{count}{prev}")
    return "".join(out)

def rle_decode(s: str) -> str:
    out, num = [], ""
    for ch in s:
        if ch.isdigit():
            num += ch
        else:
            out.append(ch * int(num))
            num = ""
    return "".join(out)

for sample in ["AAABBBCCDAA", "abc", "", "zzzzzzzzzzzz"]:
    assert rle_decode(rle_encode(sample)) == sample
assert rle_encode("AAABBBCCDAA") == "3A3B2C1D2A"
rle_encode("WWWWWWWWWWWWBWWWWWWWWWWWWBBBWWWWWWWWWWWWWWWWWWWWWWWWBWWWWWWWWWWWWWW")

# %% reverse words
def reverse_words(sentence: str) -> str:
    return " ".join(reversed(sentence.split()))

assert reverse_words("the sky is blue") == "blue is sky the"
assert reverse_words("  hello   world  ") == "world hello"
assert reverse_words("single") == "single"
print(reverse_words("Python runs in the browser"))

# %% camel and snake case
import re

def camel_to_snake(name: str) -> str:
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()

def snake_to_camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)

assert camel_to_snake("parseHTTPResponse") == "parse_http_response"
assert camel_to_snake("userId") == "user_id"
assert camel_to_snake("SimpleTest") == "simple_test"
assert snake_to_camel("user_id") == "userId"
assert snake_to_camel("make_it_work_now") == "makeItWorkNow"
print(camel_to_snake("getUserByEmailAddress"))

# %% longest common prefix
def longest_common_prefix(words: list[str]) -> str:
    if not words:
        return ""
    prefix = min(words)
    last = max(words)
    i = 0
    while i < len(prefix) and prefix[i] == last[i]:
        i += 1
    return prefix[:i]

assert longest_common_prefix(["flower", "flow", "flight"]) == "fl"
assert longest_common_prefix(["dog", "racecar", "car"]) == ""
assert longest_common_prefix(["interview", "internet", "interval"]) == "inter"
assert longest_common_prefix([]) == ""
longest_common_prefix(["prefix", "prefixes", "prefixed"])

# %% valid parentheses
def is_balanced(s: str) -> bool:
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in s:
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False
    return not stack

cases = {"()": True, "()[]{}": True, "(]": False, "([)]": False, "{[]}": True, "((": False, "": True}
for case, expected in cases.items():
    assert is_balanced(case) is expected, case
print(f"{len(cases)} bracket cases pass")

# %% roman numerals
def to_roman(n: int) -> str:
    table = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
             (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = []
    for value, symbol in table:
        count, n = divmod(n, value)
        out.append(symbol * count)
    return "".join(out)

def from_roman(s: str) -> int:
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = values[a]
        total += -v if b != " " and values[b] > v else v
    return total

assert to_roman(1994) == "MCMXCIV"
assert to_roman(2024) == "MMXXIV"
assert all(from_roman(to_roman(n)) == n for n in range(1, 400))
print(to_roman(3999), from_roman("MMMCMXCIX"))

# %% slugify
import unicodedata

def slugify(title: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = "".join(ch if ch.isalnum() else " " for ch in ascii_text.lower()).split()
    return "-".join(words)

assert slugify("Hello, World!") == "hello-world"
assert slugify("  Crème Brûlée Recipe  ") == "creme-brulee-recipe"
assert slugify("10 Tips & Tricks for Python 3") == "10-tips-tricks-for-python-3"
slugify("Ünïcödé is fun")

# %% vowel counter
def count_vowels(text: str) -> dict[str, int]:
    counts = {v: 0 for v in "aeiou"}
    for ch in text.lower():
        if ch in counts:
            counts[ch] += 1
    return counts

result = count_vowels("Programming in Python is educational")
assert result == {"a": 3, "e": 1, "i": 4, "o": 3, "u": 1}, result
assert sum(count_vowels("rhythm").values()) == 0
print(result)

# %% pig latin
def pig_latin(word: str) -> str:
    vowels = "aeiou"
    if word[0] in vowels:
        return word + "way"
    for i, ch in enumerate(word):
        if ch in vowels:
            return word[i:] + word[:i] + "ay"
    return word + "ay"

assert pig_latin("apple") == "appleway"
assert pig_latin("banana") == "ananabay"
assert pig_latin("string") == "ingstray"
assert pig_latin("rhythm") == "rhythmay"
" ".join(pig_latin(w) for w in "the quick brown fox".split())

# %% text wrap and justify
import textwrap

paragraph = ("Sandpit runs Python in the browser so that a model can check its own "
             "code without a server. Output, values and errors come back in a shape "
             "that is easy to repair.")
lines = textwrap.wrap(paragraph, width=30)
assert all(len(line) <= 30 for line in lines)
assert " ".join(lines) == paragraph
justified = []
for line in lines[:-1]:
    words = line.split()
    gaps = len(words) - 1
    spaces = 30 - sum(map(len, words))
    if gaps:
        q, r = divmod(spaces, gaps)
        line = "".join(w + " " * (q + (i < r)) for i, w in enumerate(words[:-1])) + words[-1]
    justified.append(line)
assert all(len(line) == 30 for line in justified if " " in line)
print("\n".join(justified + [lines[-1]]))

# %% character histogram
def histogram(text: str) -> str:
    counts = {}
    for ch in text.lower():
        if ch.isalpha():
            counts[ch] = counts.get(ch, 0) + 1
    rows = [f"{ch} {'#' * n}" for ch, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return "\n".join(rows)

h = histogram("Mississippi")
assert h.splitlines()[0] == "i ####"
assert h.splitlines()[1] == "s ####"
assert h.splitlines()[-1] == "m #"
print(h)

# %% remove duplicate characters
def dedupe(text: str) -> str:
    seen = set()
    return "".join(ch for ch in text if not (ch in seen or seen.add(ch)))

assert dedupe("programming") == "progamin"
assert dedupe("aabbcc") == "abc"
assert dedupe("") == ""
assert "".join(dict.fromkeys("mississippi")) == dedupe("mississippi") == "misp"
dedupe("hello world")

# %% isogram and pangram
import string

def is_isogram(word: str) -> bool:
    letters = [c.lower() for c in word if c.isalpha()]
    return len(letters) == len(set(letters))

def is_pangram(sentence: str) -> bool:
    return set(string.ascii_lowercase) <= set(sentence.lower())

assert is_isogram("lumberjacks")
assert is_isogram("six-year-old")
assert not is_isogram("isograms")
assert is_pangram("The quick brown fox jumps over the lazy dog")
assert not is_pangram("Hello world")
print("isograms and pangrams ok")

# %% string compression ratio
def compress(s: str) -> str:
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(s[i] + (str(j - i) if j - i > 1 else ""))
        i = j
    packed = "".join(out)
    return packed if len(packed) < len(s) else s

assert compress("aabcccccaaa") == "a2bc5a3"
assert compress("abcdef") == "abcdef"
assert compress("aaaaaaaaaa") == "a10"
ratio = len(compress("aaaabbbbccccdddd")) / len("aaaabbbbccccdddd")
assert ratio == 0.5
ratio

# %% count substrings
def count_overlapping(text: str, pattern: str) -> int:
    count = start = 0
    while (found := text.find(pattern, start)) != -1:
        count += 1
        start = found + 1
    return count

assert count_overlapping("aaaa", "aa") == 3
assert "aaaa".count("aa") == 2
assert count_overlapping("abababa", "aba") == 3
assert count_overlapping("hello", "xyz") == 0
print(count_overlapping("banana", "ana"))

# %% format table
rows = [("Alice", 34, 72000.5), ("Bob", 29, 58000), ("Charlotte", 41, 91500.25)]
header = f"{'Name':<10}|{'Age':>5}|{'Salary':>12}"
lines = [header, "-" * len(header)]
for name, age, salary in rows:
    lines.append(f"{name:<10}|{age:>5}|{salary:>12,.2f}")
table = "\n".join(lines)
assert lines[2] == "Alice     |   34|   72,000.50"
assert all(len(line) == len(header) for line in lines)
print(table)

# %% capitalize sentences
def capitalize_sentences(text: str) -> str:
    out = []
    capitalize = True
    for ch in text:
        if capitalize and ch.isalpha():
            out.append(ch.upper())
            capitalize = False
        else:
            out.append(ch)
        if ch in ".!?":
            capitalize = True
    return "".join(out)

assert capitalize_sentences("hello. how are you? fine!") == "Hello. How are you? Fine!"
assert capitalize_sentences("already Fine.") == "Already Fine."
capitalize_sentences("one. two. three.")

# %% string templates
from string import Template

template = Template("Dear $name, your order #$order ships on $date.")
message = template.substitute(name="Ada", order=1042, date="Monday")
assert message == "Dear Ada, your order #1042 ships on Monday."
partial = template.safe_substitute(name="Grace")
assert "$order" in partial and "Grace" in partial
try:
    template.substitute(name="x")
except KeyError as exc:
    missing = exc.args[0]
assert missing == "order"
print(message)

# %% levenshtein suggestions
def distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]

vocabulary = ["print", "range", "len", "list", "dict", "sorted", "reversed"]
def suggest(word: str) -> str:
    return min(vocabulary, key=lambda v: (distance(word, v), v))

assert distance("kitten", "sitting") == 3
assert suggest("prnt") == "print"
assert suggest("srted") == "sorted"
assert suggest("lst") == "list"
print(suggest("rnage"))
