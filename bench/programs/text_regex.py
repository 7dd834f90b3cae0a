# Regular expressions: validating, extracting, rewriting, tokenising.
# Each `# %% name` cell is one independent program with its own asserts.

# %% email validation
import re

EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)*\.[a-z]{2,}$", re.IGNORECASE)

valid = ["ada@example.org", "first.last+tag@mail.co.uk", "x_y@sub-domain.io"]
invalid = ["plainaddress", "@no-user.org", "user@", "user@domain", "a b@c.de"]
assert all(EMAIL.match(e) for e in valid)
assert not any(EMAIL.match(e) for e in invalid)
print(f"{len(valid)} valid, {len(invalid)} invalid")

# %% extract numbers
import re

text = "Order 66 shipped 3.5 kg for -12.75 EUR on 2024-01-05, ref #1e3"
numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?(?:e\d+)?", text)]
assert numbers[:4] == [66.0, 3.5, -12.75, 2024.0]
integers = [int(n) for n in re.findall(r"\b\d+\b", "10 apples, 20 pears and 3.5 plums")]
assert integers == [10, 20, 3, 5]
numbers

# %% phone normalisation
import re

def normalise(phone: str) -> str:
    digits = re.sub(r"\D", "", phone)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if len(digits) != 10:
        raise ValueError(f"bad number: {phone}")
    return f"({digits[:3]}) {digits[3:6]}-{digits[6:]}"

assert normalise("555.123.4567") == "(555) 123-4567"
assert normalise("+1 (555) 123 4567") == "(555) 123-4567"
assert normalise("555-123-4567") == "(555) 123-4567"
try:
    normalise("12345")
except ValueError as exc:
    assert "12345" in str(exc)
normalise("1-800-555-0199")

# %% log parsing with named groups
import re
from collections import Counter

LINE = re.compile(r'(?P<ip>\d+\.\d+\.\d+\.\d+) - - \[(?P<when>[^\]]+)\] "(?P<method>\w+) (?P<path>\S+) [^"]+" (?P<status>\d{3}) (?P<size>\d+)')
log = """10.0.0.1 - - [05/Jan/2024:10:00:01 +0000] "GET /index.html HTTP/1.1" 200 512
10.0.0.2 - - [05/Jan/2024:10:00:02 +0000] "POST /api/run HTTP/1.1" 201 64
10.0.0.1 - - [05/Jan/2024:10:00:03 +0000] "GET /missing HTTP/1.1" 404 0
10.0.0.3 - - [05/Jan/2024:10:00:04 +0000] "GET /index.html HTTP/1.1" 200 512"""
entries = [m.groupdict() for m in map(LINE.match, log.splitlines()) if m]
assert len(entries) == 4
assert Counter(e["ip"] for e in entries).most_common(1) == [("10.0.0.1", 2)]
assert sum(int(e["size"]) for e in entries if e["status"].startswith("2")) == 1088
print(entries[1])

# %% substitution with a function
import re

prices = "apple $1.20, bread $2.50, cheese $7.99"
def with_tax(match):
    return f"${float(match.group(1)) * 1.2:.2f}"
taxed = re.sub(r"\$(\d+\.\d{2})", with_tax, prices)
assert taxed == "apple $1.44, bread $3.00, cheese $9.59"
template = "Hello {name}, you owe {amount}."
values = {"name": "Ada", "amount": "$5"}
filled = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], template)
assert filled == "Hello Ada, you owe $5."
taxed

# %% split on several separators
import re

line = "alpha, beta;gamma  delta|epsilon,,zeta"
parts = [p for p in re.split(r"[,;|\s]+", line) if p]
assert parts == ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
kept = re.split(r"([,;])", "a,b;c")
assert kept == ["a", ",", "b", ";", "c"]
assert re.split(r"\d", "a1b2c3", maxsplit=2) == ["a", "b", "c3"]
parts

# %% tokenizer
import re

TOKEN = re.compile(r"\s*(?:(?P<num>\d+\.?\d*)|(?P<name>[A-Za-z_]\w*)|(?P<op>\*\*|[-+*/()=]))")

def tokenize(source):
    pos, tokens = 0, []
    source = source.rstrip()
    while pos < len(source):
        m = TOKEN.match(source, pos)
        if not m:
            bad = source[pos:].lstrip()[0]
            raise SyntaxError(f"unexpected {bad!r} at {source.index(bad, pos)}")
        kind = m.lastgroup
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    return tokens

assert tokenize("x = 3 * (y + 4.5) ** 2") == [
    ("name", "x"), ("op", "="), ("num", "3"), ("op", "*"), ("op", "("), ("name", "y"),
    ("op", "+"), ("num", "4.5"), ("op", ")"), ("op", "**"), ("num", "2")]
try:
    tokenize("a $ b")
except SyntaxError as exc:
    assert "'$'" in str(exc)
len(tokenize("total = price * qty + tax"))

# %% dates in free text
import re
from datetime import date

text = "Invoices due 2024-03-15 and 2024-04-01; paid on 2024-03-20. Bad: 2024-13-40."
found = []
for y, m, d in re.findall(r"\b(\d{4})-(\d{2})-(\d{2})\b", text):
    try:
        found.append(date(int(y), int(m), int(d)))
    except ValueError:
        pass
assert found == [date(2024, 3, 15), date(2024, 4, 1), date(2024, 3, 20)]
assert (found[1] - found[0]).days == 17
[d.isoformat() for d in sorted(found)]

# %% split camel case words
import re

def words(identifier):
    return re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?=[A-Z][a-z]|\d|\b)|\d+", identifier)

assert words("parseHTTPResponse2Fast") == ["parse", "HTTP", "Response", "2", "Fast"]
assert words("simpleTest") == ["simple", "Test"]
assert words("XMLHttpRequest") == ["XML", "Http", "Request"]
" ".join(w.lower() for w in words("getUserIDFromToken"))

# %% strip html tags
import re
import html

page = "<p>Hello <b>world</b> &amp; <a href='/x'>friends</a></p><script>bad()</script>"
no_script = re.sub(r"<script.*?>.*?</script>", "", page, flags=re.S)
text = html.unescape(re.sub(r"<[^>]+>", "", no_script))
assert text == "Hello world & friends"
links = re.findall(r"href='([^']+)'", page)
assert links == ["/x"]
text

# %% password rules
import re

RULES = [
    (r".{10,}", "at least 10 characters"),
    (r"[A-Z]", "an upper-case letter"),
    (r"[a-z]", "a lower-case letter"),
    (r"\d", "a digit"),
    (r"[^\w\s]", "a symbol"),
]

def problems(password):
    return [message for pattern, message in RULES if not re.search(pattern, password)]

assert problems("Tr0ub4dor&3xyz") == []
assert problems("password") == ["at least 10 characters", "an upper-case letter", "a digit", "a symbol"]
assert problems("ALLCAPS12345!") == ["a lower-case letter"]
problems("short1A!")

# %% ipv4 validation
import re

OCTET = r"(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
IPV4 = re.compile(rf"^{OCTET}(\.{OCTET}){{3}}$")

good = ["127.0.0.1", "192.168.1.254", "0.0.0.0", "255.255.255.255"]
bad = ["256.1.1.1", "1.2.3", "01.2.3.4", "1.2.3.4.5", "a.b.c.d"]
assert all(IPV4.match(ip) for ip in good)
assert not any(IPV4.match(ip) for ip in bad)
import ipaddress
assert all(ipaddress.ip_address(ip) for ip in good)
assert ipaddress.ip_address("10.1.2.3") in ipaddress.ip_network("10.0.0.0/8")
print("ip checks ok")

# %% verbose regex for durations
import re

DURATION = re.compile(r"""
    ^(?:(?P<hours>\d+)h)?     # optional hours
     (?:(?P<minutes>\d+)m)?   # optional minutes
     (?:(?P<seconds>\d+)s)?$  # optional seconds
""", re.VERBOSE)

def seconds(text):
    m = DURATION.match(text)
    if not m or not text:
        raise ValueError(text)
    parts = {k: int(v or 0) for k, v in m.groupdict().items()}
    return parts["hours"] * 3600 + parts["minutes"] * 60 + parts["seconds"]

assert seconds("1h30m") == 5400
assert seconds("45s") == 45
assert seconds("2h5s") == 7205
for bad in ["", "5x", "1m2h"]:
    try:
        seconds(bad)
    except ValueError:
        continue
    raise AssertionError(bad)
seconds("10h10m10s")

# %% markdown links to html
import re

md = "See [the docs](https://example.org/docs) and [home](/) for **more** info."
html_text = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r'<a href="\2">\1</a>', md)
html_text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html_text)
assert html_text == 'See <a href="https://example.org/docs">the docs</a> and <a href="/">home</a> for <strong>more</strong> info.'
assert len(re.findall(r"<a ", html_text)) == 2
html_text

# %% word boundaries and case
import re

text = "The cat scattered the catalogue; Cat, cats and CAT."
exact = re.findall(r"\bcat\b", text, flags=re.IGNORECASE)
assert exact == ["cat", "Cat", "CAT"]
prefixed = re.findall(r"\bcat\w*", text, flags=re.I)
assert prefixed == ["cat", "catalogue", "Cat", "cats", "CAT"]
assert re.sub(r"\bcat\b", "dog", text, flags=re.I).count("dog") == 3
len(prefixed)

# %% key value pairs
import re

line = 'user="ada lovelace" id=42 admin=true ratio=0.75 empty=""'
pairs = dict(re.findall(r'(\w+)=(?:"([^"]*)"|(\S+))', line) and
             [(k, q or u) for k, q, u in re.findall(r'(\w+)=(?:"([^"]*)"|(\S+))', line)])
assert pairs == {"user": "ada lovelace", "id": "42", "admin": "true", "ratio": "0.75", "empty": ""}

def convert(v):
    for kind in (int, float):
        try:
            return kind(v)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(v, v)

typed = {k: convert(v) for k, v in pairs.items()}
assert typed["id"] == 42 and typed["ratio"] == 0.75 and typed["admin"] is True
typed

# %% sentence splitting
import re

text = "Dr. Smith arrived at 3 p.m. today. He said: 'Hello!' Did it work? Yes. It did..."
sentences = re.split(r"(?<!\bDr\.)(?<!\bp\.m\.)(?<=[.!?])\s+(?=[A-Z'])", text)
assert sentences[0] == "Dr. Smith arrived at 3 p.m. today."
assert sentences[-1] == "It did..."
assert sentences[1] == "He said: 'Hello!' Did it work?"
assert len(sentences) == 4, sentences
print("\n".join(sentences))

# %% redact secrets
import re

config = """api_key = "sk-live-12345abcdef"
password: hunter2
user = ada
token=ghp_AbCdEf123456"""
redacted = re.sub(r"(?im)^(\s*(?:api_key|password|token)\s*[:=]\s*)(\"?)([^\"\n]+)(\"?)$", r"\1\2***\4", config)
assert 'api_key = "***"' in redacted
assert "password: ***" in redacted
assert "token=***" in redacted
assert "user = ada" in redacted
print(redacted)

# %% fullmatch codes
import re

codes = ["AB-1234", "ab-1234", "AB-12345", "XY-0001", "AB1234"]
pattern = re.compile(r"[A-Z]{2}-\d{4}")
valid = [c for c in codes if pattern.fullmatch(c)]
assert valid == ["AB-1234", "XY-0001"]
assert pattern.search("ref AB-12345") is not None
assert pattern.fullmatch("AB-12345") is None
valid
