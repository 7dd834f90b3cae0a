# Dataclasses, JSON, typed records: the shapes models pass data around in.
# Each `# %% name` cell is one independent program with its own asserts.

# %% dataclass basics
from dataclasses import dataclass, field

@dataclass
class Item:
    name: str
    price: float
    quantity: int = 1

    @property
    def total(self) -> float:
        return self.price * self.quantity

@dataclass
class Cart:
    items: list[Item] = field(default_factory=list)

    def add(self, item: Item) -> None:
        self.items.append(item)

    def total(self) -> float:
        return round(sum(i.total for i in self.items), 2)

cart = Cart()
cart.add(Item("pen", 1.25, 4))
cart.add(Item("book", 12.5))
assert cart.total() == 17.5
assert Item("pen", 1.25, 4) == cart.items[0]
assert Cart().items == [] and Cart().items is not Cart().items
cart

# %% frozen and ordered dataclass
from dataclasses import dataclass, FrozenInstanceError

@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int = 0
    patch: int = 0

    @classmethod
    def parse(cls, text):
        return cls(*map(int, text.split(".")))

versions = sorted(Version.parse(v) for v in ["1.2.3", "1.10.0", "0.9.9", "1.2"])
assert versions[0] == Version(0, 9, 9)
assert versions[-1] == Version(1, 10)
try:
    versions[0].major = 5
except FrozenInstanceError:
    frozen = True
assert frozen
assert len({Version(1), Version(1, 0, 0)}) == 1
versions

# %% asdict and json round trip
import json
from dataclasses import asdict, dataclass

@dataclass
class Address:
    city: str
    zip: str

@dataclass
class Customer:
    name: str
    address: Address
    tags: list[str]

c = Customer("Ada", Address("London", "N1"), ["vip"])
payload = json.dumps(asdict(c), sort_keys=True)
assert payload == '{"address": {"city": "London", "zip": "N1"}, "name": "Ada", "tags": ["vip"]}'
data = json.loads(payload)
restored = Customer(data["name"], Address(**data["address"]), data["tags"])
assert restored == c
print(payload)

# %% post init validation
from dataclasses import dataclass, field

@dataclass
class Rectangle:
    width: float
    height: float
    area: float = field(init=False)

    def __post_init__(self):
        if self.width <= 0 or self.height <= 0:
            raise ValueError("sides must be positive")
        self.area = self.width * self.height

r = Rectangle(3, 4)
assert r.area == 12
try:
    Rectangle(-1, 2)
except ValueError as exc:
    assert "positive" in str(exc)
assert "area=12" in repr(r)
repr(r)

# %% json pretty and sorted
import json

record = {"name": "Sandpit", "version": [0, 1, 0], "features": {"offline": True, "sessions": 3}, "license": None}
pretty = json.dumps(record, indent=2, sort_keys=True)
assert pretty.splitlines()[1] == '  "features": {'
compact = json.dumps(record, separators=(",", ":"))
assert " " not in compact
assert json.loads(compact) == record
assert json.dumps({"x": float("nan")}) == '{"x": NaN}'
try:
    json.dumps({"x": float("nan")}, allow_nan=False)
except ValueError:
    strict = True
assert strict
print(pretty)

# %% custom json encoder
import json
from datetime import date, datetime
from decimal import Decimal

class Encoder(json.JSONEncoder):
    def default(self, obj):
        if isinstance(obj, (date, datetime)):
            return obj.isoformat()
        if isinstance(obj, Decimal):
            return str(obj)
        if isinstance(obj, set):
            return sorted(obj)
        return super().default(obj)

doc = {"when": date(2024, 2, 29), "amount": Decimal("19.99"), "tags": {"b", "a"}}
text = json.dumps(doc, cls=Encoder)
assert text == '{"when": "2024-02-29", "amount": "19.99", "tags": ["a", "b"]}'
try:
    json.dumps({"x": object()}, cls=Encoder)
except TypeError:
    rejected = True
assert rejected
text

# %% json object hook
import json
from dataclasses import dataclass

@dataclass
class Point:
    x: float
    y: float

def hook(d):
    if d.keys() == {"x", "y"}:
        return Point(**d)
    return d

text = '{"shape": "polygon", "points": [{"x": 0, "y": 0}, {"x": 4, "y": 0}, {"x": 4, "y": 3}]}'
shape = json.loads(text, object_hook=hook)
assert shape["points"][2] == Point(4, 3)
pts = shape["points"]
perimeter = sum(((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5 for a, b in zip(pts, pts[1:] + pts[:1]))
assert perimeter == 12.0
print(perimeter)

# %% validate json schema by hand
import json

SCHEMA = {"name": str, "age": int, "email": str}

def validate(record: dict) -> list[str]:
    errors = [f"missing {k}" for k in SCHEMA if k not in record]
    errors += [f"{k} should be {t.__name__}" for k, t in SCHEMA.items() if k in record and not isinstance(record[k], t)]
    errors += [f"unexpected {k}" for k in record if k not in SCHEMA]
    return errors

records = json.loads('[{"name": "a", "age": 3, "email": "a@x"}, {"name": "b", "age": "3"}, {"name": "c", "age": 1, "email": "c@x", "extra": 1}]')
results = [validate(r) for r in records]
assert results[0] == []
assert results[1] == ["missing email", "age should be int"]
assert results[2] == ["unexpected extra"]
results

# %% named tuple records
from typing import NamedTuple

class Employee(NamedTuple):
    name: str
    department: str
    salary: int
    remote: bool = False

staff = [Employee("ana", "eng", 120), Employee("ben", "ops", 90, True), Employee("cho", "eng", 105, True)]
by_dept = {}
for e in staff:
    by_dept.setdefault(e.department, []).append(e.salary)
assert {d: sum(s) / len(s) for d, s in by_dept.items()} == {"eng": 112.5, "ops": 90.0}
assert [e.name for e in staff if e.remote] == ["ben", "cho"]
raised = staff[0]._replace(salary=130)
assert raised.salary == 130 and staff[0].salary == 120
raised._asdict()

# %% typed dict config
from typing import TypedDict

class ServerConfig(TypedDict, total=False):
    host: str
    port: int
    debug: bool

def load(overrides: ServerConfig) -> ServerConfig:
    config: ServerConfig = {"host": "127.0.0.1", "port": 8080, "debug": False}
    config.update(overrides)
    return config

cfg = load({"port": 9000})
assert cfg == {"host": "127.0.0.1", "port": 9000, "debug": False}
assert ServerConfig.__total__ is False
assert set(ServerConfig.__annotations__) == {"host", "port", "debug"}
cfg

# %% dataclass replace and fields
from dataclasses import dataclass, fields, replace, astuple

@dataclass
class Settings:
    theme: str = "light"
    font_size: int = 12
    line_numbers: bool = True

base = Settings()
dark = replace(base, theme="dark")
assert base.theme == "light" and dark.theme == "dark"
assert [f.name for f in fields(Settings)] == ["theme", "font_size", "line_numbers"]
assert astuple(dark) == ("dark", 12, True)
changed = {f.name for f in fields(Settings) if getattr(base, f.name) != getattr(dark, f.name)}
assert changed == {"theme"}
changed

# %% csv to json
import csv
import io
import json

raw = """name,age,city
Ada,36,London
Grace,45,New York
Linus,28,Helsinki
"""
rows = list(csv.DictReader(io.StringIO(raw)))
for row in rows:
    row["age"] = int(row["age"])
assert rows[1] == {"name": "Grace", "age": 45, "city": "New York"}
assert json.dumps(rows[0]) == '{"name": "Ada", "age": 36, "city": "London"}'
oldest = max(rows, key=lambda r: r["age"])
assert oldest["name"] == "Grace"
out = io.StringIO()
writer = csv.DictWriter(out, fieldnames=["name", "city"], extrasaction="ignore")
writer.writeheader()
writer.writerows(rows)
assert out.getvalue().splitlines()[2] == "Grace,New York"
print(out.getvalue())

# %% nested json query
import json

doc = json.loads("""
{"users": [
  {"id": 1, "name": "ana", "orders": [{"sku": "A1", "qty": 2}, {"sku": "B2", "qty": 1}]},
  {"id": 2, "name": "ben", "orders": []},
  {"id": 3, "name": "cho", "orders": [{"sku": "A1", "qty": 5}]}
]}
""")
totals = {u["name"]: sum(o["qty"] for o in u["orders"]) for u in doc["users"]}
assert totals == {"ana": 3, "ben": 0, "cho": 5}
skus = sorted({o["sku"] for u in doc["users"] for o in u["orders"]})
assert skus == ["A1", "B2"]
a1_buyers = [u["id"] for u in doc["users"] if any(o["sku"] == "A1" for o in u["orders"])]
assert a1_buyers == [1, 3]
totals

# %% dataclass sorting and grouping
from dataclasses import dataclass
from itertools import groupby
from operator import attrgetter

@dataclass
class Task:
    title: str
    priority: int
    done: bool = False

tasks = [Task("write", 2), Task("test", 1), Task("ship", 3, True), Task("review", 1, True), Task("plan", 2)]
todo = sorted((t for t in tasks if not t.done), key=attrgetter("priority", "title"))
assert [t.title for t in todo] == ["test", "plan", "write"]
grouped = {done: [t.title for t in group] for done, group in groupby(sorted(tasks, key=attrgetter("done")), key=attrgetter("done"))}
assert grouped == {False: ["write", "test", "plan"], True: ["ship", "review"]}
print(todo)

# %% enum in json
import json
from enum import Enum

class Status(str, Enum):
    ACTIVE = "active"
    BANNED = "banned"

users = [{"name": "a", "status": Status.ACTIVE}, {"name": "b", "status": Status.BANNED}]
text = json.dumps(users)
assert text == '[{"name": "a", "status": "active"}, {"name": "b", "status": "banned"}]'
back = [{**u, "status": Status(u["status"])} for u in json.loads(text)]
assert back[1]["status"] is Status.BANNED
assert Status("active") == "active"
back

# %% deep copy vs shallow
import copy

original = {"name": "grid", "cells": [[0, 0], [0, 0]]}
shallow = copy.copy(original)
deep = copy.deepcopy(original)
shallow["cells"][0][0] = 1
assert original["cells"][0][0] == 1
deep["cells"][1][1] = 9
assert original["cells"][1][1] == 0
shallow["name"] = "other"
assert original["name"] == "grid"
print(original, deep)

# %% pprint structures
from pprint import pformat

data = {"zeta": list(range(12)), "alpha": {"nested": ["x" * 10, "y" * 10, "z" * 10]}, "beta": None}
text = pformat(data, width=40, sort_dicts=True)
assert text.splitlines()[0].startswith("{'alpha'")
assert all(len(line) <= 40 for line in text.splitlines())
assert eval(text) == data
print(text)

# %% struct packing
import struct

header = struct.pack("<4sHHI", b"SNDP", 1, 2, 1024)
assert len(header) == 12
magic, major, minor, size = struct.unpack("<4sHHI", header)
assert (magic, major, minor, size) == (b"SNDP", 1, 2, 1024)
values = struct.pack(">3f", 1.0, 2.5, -4.0)
assert struct.unpack(">3f", values) == (1.0, 2.5, -4.0)
assert struct.calcsize("<4sHHI") == 12
header.hex()

# %% base64 and hashing
import base64
import hashlib

message = "Sandpit runs Python in the browser".encode()
encoded = base64.b64encode(message)
assert base64.b64decode(encoded) == message
assert base64.urlsafe_b64encode(b"\xfb\xff").decode() == "-_8="
digest = hashlib.sha256(message).hexdigest()
assert len(digest) == 64
assert hashlib.sha256(b"abc").hexdigest().startswith("ba7816bf")
assert hashlib.md5(b"").hexdigest() == "d41d8cd98f00b204e9800998ecf8427e"
print(encoded.decode(), digest[:16])

# %% uuid5 identifiers
import uuid

namespace = uuid.NAMESPACE_URL
a = uuid.uuid5(namespace, "https://example.org/a")
b = uuid.uuid5(namespace, "https://example.org/a")
c = uuid.uuid5(namespace, "https://example.org/c")
assert a == b and a != c
assert a.version == 5
assert str(uuid.UUID(str(a))) == str(a)
assert uuid.UUID("12345678123456781234567812345678").hex == "12345678123456781234567812345678"
str(a)

# %% xml parsing
import xml.etree.ElementTree as ET

doc = ET.fromstring("""
<library>
  <book year="1949"><title>1984</title><author>Orwell</author></book>
  <book year="1932"><title>Brave New World</title><author>Huxley</author></book>
  <book year="1953"><title>Fahrenheit 451</title><author>Bradbury</author></book>
</library>
""")
books = [(b.findtext("title"), int(b.get("year"))) for b in doc.iter("book")]
assert books[0] == ("1984", 1949)
assert min(books, key=lambda b: b[1])[0] == "Brave New World"
new = ET.SubElement(doc, "book", year="2006")
ET.SubElement(new, "title").text = "The Road"
assert len(doc.findall("book")) == 4
assert "<title>The Road</title>" in ET.tostring(doc, encoding="unicode")
sorted(title for title, _ in books)

# %% html escaping and urls
import html
from urllib.parse import parse_qs, quote, urlencode, urlparse

user_input = '<script>alert("x")</script> & more'
safe = html.escape(user_input)
assert safe == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more"
assert html.unescape(safe) == user_input
url = "https://example.org/search?q=python+wasm&page=2&tag=a&tag=b"
parts = urlparse(url)
query = parse_qs(parts.query)
assert parts.netloc == "example.org" and parts.path == "/search"
assert query == {"q": ["python wasm"], "page": ["2"], "tag": ["a", "b"]}
assert urlencode({"q": "a b", "n": 1}) == "q=a+b&n=1"
assert quote("a/b c") == "a/b%20c"
query
