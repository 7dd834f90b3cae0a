# Classes: state, inheritance, dunder methods, properties, protocols.
# Each `# %% name` cell is one independent program with its own asserts.

# %% bank account
class InsufficientFunds(Exception):
    pass

class BankAccount:
    def __init__(self, owner: str, balance: float = 0.0):
        self.owner = owner
        self._balance = balance
        self.history: list[tuple[str, float]] = []

    @property
    def balance(self) -> float:
        return self._balance

    def deposit(self, amount: float) -> None:
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self._balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount: float) -> None:
        if amount > self._balance:
            raise InsufficientFunds(f"{self.owner} has only {self._balance:.2f}")
        self._balance -= amount
        self.history.append(("withdraw", amount))

account = BankAccount("Ada", 100)
account.deposit(50)
account.withdraw(30)
assert account.balance == 120
try:
    account.withdraw(500)
except InsufficientFunds as exc:
    assert "Ada has only 120.00" in str(exc)
else:
    raise AssertionError("overdraft allowed")
assert len(account.history) == 2
print(account.balance, account.history)

# %% stack class
class Stack:
    def __init__(self):
        self._items = []

    def push(self, item):
        self._items.append(item)

    def pop(self):
        if not self._items:
            raise IndexError("pop from empty stack")
        return self._items.pop()

    def peek(self):
        return self._items[-1] if self._items else None

    def __len__(self):
        return len(self._items)

    def __bool__(self):
        return bool(self._items)

s = Stack()
for ch in "abc":
    s.push(ch)
assert len(s) == 3 and s.peek() == "c"
assert [s.pop() for _ in range(3)] == ["c", "b", "a"]
assert not s and s.peek() is None
try:
    s.pop()
except IndexError:
    pass
print("stack ok")

# %% linked list
class Node:
    def __init__(self, value, next=None):
        self.value = value
        self.next = next

class LinkedList:
    def __init__(self, values=()):
        self.head = None
        for v in reversed(list(values)):
            self.head = Node(v, self.head)

    def __iter__(self):
        node = self.head
        while node:
            yield node.value
            node = node.next

    def reverse(self):
        prev, node = None, self.head
        while node:
            node.next, prev, node = prev, node, node.next
        self.head = prev

    def __repr__(self):
        return " -> ".join(map(str, self)) or "empty"

ll = LinkedList([1, 2, 3, 4])
assert list(ll) == [1, 2, 3, 4]
ll.reverse()
assert list(ll) == [4, 3, 2, 1]
assert repr(LinkedList()) == "empty"
ll

# %% shapes with inheritance
import math

class Shape:
    def area(self) -> float:
        raise NotImplementedError

    def describe(self) -> str:
        return f"{type(self).__name__} with area {self.area():.2f}"

class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return math.pi * self.r ** 2

class Rectangle(Shape):
    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h

class Square(Rectangle):
    def __init__(self, side):
        super().__init__(side, side)

shapes = [Circle(1), Rectangle(2, 3), Square(4)]
assert [round(s.area(), 2) for s in shapes] == [3.14, 6, 16]
assert isinstance(shapes[2], Rectangle)
assert shapes[2].describe() == "Square with area 16.00"
largest = max(shapes, key=lambda s: s.area())
print(largest.describe())

# %% vector dunder methods
class Vector:
    def __init__(self, *components):
        self.components = tuple(components)

    def __add__(self, other):
        return Vector(*(a + b for a, b in zip(self.components, other.components)))

    def __mul__(self, k):
        return Vector(*(a * k for a in self.components))

    __rmul__ = __mul__

    def __matmul__(self, other):
        return sum(a * b for a, b in zip(self.components, other.components))

    def __abs__(self):
        return (self @ self) ** 0.5

    def __eq__(self, other):
        return isinstance(other, Vector) and self.components == other.components

    def __repr__(self):
        return f"Vector{self.components}"

v, w = Vector(1, 2, 2), Vector(3, 0, -1)
assert v + w == Vector(4, 2, 1)
assert 2 * v == v * 2 == Vector(2, 4, 4)
assert v @ w == 1
assert abs(v) == 3.0
v + w

# %% equality and hashing
class Money:
    def __init__(self, amount: int, currency: str):
        self.amount = amount
        self.currency = currency

    def __eq__(self, other):
        return (self.amount, self.currency) == (other.amount, other.currency)

    def __hash__(self):
        return hash((self.amount, self.currency))

    def __lt__(self, other):
        assert self.currency == other.currency
        return self.amount < other.amount

    def __repr__(self):
        return f"{self.amount / 100:.2f} {self.currency}"

wallet = {Money(500, "EUR"), Money(500, "EUR"), Money(250, "EUR")}
assert len(wallet) == 2
assert sorted(wallet) == [Money(250, "EUR"), Money(500, "EUR")]
assert Money(100, "USD") != Money(100, "EUR")
print(sorted(wallet))

# %% context manager class
class Timer:
    def __init__(self):
        self.entered = self.exited = False
        self.suppressed = None

    def __enter__(self):
        self.entered = True
        return self

    def __exit__(self, exc_type, exc, tb):
        self.exited = True
        self.suppressed = exc_type is KeyError
        return self.suppressed

with Timer() as t:
    total = sum(range(1000))
assert t.entered and t.exited and total == 499500
with Timer() as t2:
    {}["missing"]
assert t2.suppressed is True
try:
    with Timer():
        raise ValueError("not suppressed")
except ValueError as exc:
    message = str(exc)
assert message == "not suppressed"
print("context managers ok")

# %% iterator class
class Countdown:
    def __init__(self, start):
        self.current = start

    def __iter__(self):
        return self

    def __next__(self):
        if self.current <= 0:
            raise StopIteration
        self.current -= 1
        return self.current + 1

assert list(Countdown(5)) == [5, 4, 3, 2, 1]
assert list(Countdown(0)) == []
it = Countdown(3)
assert next(it) == 3
assert list(it) == [2, 1]
sum(Countdown(100))

# %% abstract base class
from abc import ABC, abstractmethod

class Notifier(ABC):
    @abstractmethod
    def send(self, message: str) -> str: ...

    def broadcast(self, messages):
        return [self.send(m) for m in messages]

class EmailNotifier(Notifier):
    def send(self, message):
        return f"email: {message}"

class SmsNotifier(Notifier):
    def send(self, message):
        return f"sms: {message[:10]}"

try:
    Notifier()
except TypeError as exc:
    assert "abstract" in str(exc)
else:
    raise AssertionError("ABC instantiated")
assert EmailNotifier().broadcast(["hi", "bye"]) == ["email: hi", "email: bye"]
assert SmsNotifier().send("a very long text message") == "sms: a very lon"
print("abc ok")

# %% enum states
from enum import Enum, auto

class State(Enum):
    IDLE = auto()
    RUNNING = auto()
    DONE = auto()
    FAILED = auto()

TRANSITIONS = {
    State.IDLE: {State.RUNNING},
    State.RUNNING: {State.DONE, State.FAILED},
    State.DONE: set(),
    State.FAILED: {State.IDLE},
}

def advance(state, target):
    if target not in TRANSITIONS[state]:
        raise ValueError(f"cannot go from {state.name} to {target.name}")
    return target

s = State.IDLE
for nxt in [State.RUNNING, State.FAILED, State.IDLE, State.RUNNING, State.DONE]:
    s = advance(s, nxt)
assert s is State.DONE
try:
    advance(State.DONE, State.IDLE)
except ValueError as exc:
    assert str(exc) == "cannot go from DONE to IDLE"
assert [m.name for m in State] == ["IDLE", "RUNNING", "DONE", "FAILED"]
State["FAILED"].value

# %% class and static methods
from datetime import date

class Person:
    population = 0

    def __init__(self, name, birth_year):
        self.name = name
        self.birth_year = birth_year
        Person.population += 1

    @classmethod
    def from_string(cls, text):
        name, year = text.split("-")
        return cls(name, int(year))

    @staticmethod
    def is_adult(age):
        return age >= 18

    def age_in(self, year):
        return year - self.birth_year

people = [Person("Ada", 1815), Person.from_string("Alan-1912")]
assert Person.population == 2
assert people[1].name == "Alan" and people[1].birth_year == 1912
assert Person.is_adult(people[1].age_in(1930))
assert not Person.is_adult(people[0].age_in(1825))
[p.age_in(1950) for p in people]

# %% matrix class
class Matrix:
    def __init__(self, rows):
        self.rows = [list(r) for r in rows]

    @property
    def shape(self):
        return len(self.rows), len(self.rows[0])

    def __matmul__(self, other):
        cols = list(zip(*other.rows))
        return Matrix([[sum(a * b for a, b in zip(row, col)) for col in cols] for row in self.rows])

    def transpose(self):
        return Matrix(zip(*self.rows))

    def __eq__(self, other):
        return self.rows == other.rows

identity = Matrix([[1, 0], [0, 1]])
a = Matrix([[1, 2], [3, 4]])
b = Matrix([[5, 6, 7], [8, 9, 10]])
assert a @ identity == a
assert (a @ b).rows == [[21, 24, 27], [47, 54, 61]]
assert b.transpose().shape == (3, 2)
print((a @ a).rows)

# %% properties with validation
class Temperature:
    def __init__(self, celsius=0.0):
        self.celsius = celsius

    @property
    def celsius(self):
        return self._celsius

    @celsius.setter
    def celsius(self, value):
        if value < -273.15:
            raise ValueError("below absolute zero")
        self._celsius = value

    @property
    def fahrenheit(self):
        return self._celsius * 9 / 5 + 32

    @fahrenheit.setter
    def fahrenheit(self, value):
        self.celsius = (value - 32) * 5 / 9

t = Temperature(100)
assert t.fahrenheit == 212
t.fahrenheit = 32
assert t.celsius == 0
try:
    t.celsius = -300
except ValueError:
    pass
assert t.celsius == 0
print(Temperature(37).fahrenheit)

# %% total ordering versions
from functools import total_ordering

@total_ordering
class Version:
    def __init__(self, text):
        self.parts = tuple(int(p) for p in text.split("."))

    def __eq__(self, other):
        return self.parts == other.parts

    def __lt__(self, other):
        return self.parts < other.parts

    def __repr__(self):
        return ".".join(map(str, self.parts))

versions = [Version(v) for v in ["1.10.0", "1.2.9", "1.2.10", "0.9", "1.10"]]
assert max(versions).parts == (1, 10, 0)
assert Version("1.2.10") > Version("1.2.9")
assert Version("2.0") >= Version("2.0")
sorted(versions)

# %% slots and repr
class Pixel:
    __slots__ = ("x", "y", "color")

    def __init__(self, x, y, color="black"):
        self.x, self.y, self.color = x, y, color

    def __repr__(self):
        return f"Pixel({self.x}, {self.y}, {self.color!r})"

p = Pixel(3, 4)
try:
    p.alpha = 0.5
except AttributeError:
    blocked = True
assert blocked
assert not hasattr(p, "__dict__")
assert repr(p) == "Pixel(3, 4, 'black')"
[Pixel(i, i * i) for i in range(3)]

# %% descriptors for typed fields
class Typed:
    def __init__(self, kind):
        self.kind = kind

    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, objtype=None):
        return getattr(obj, self.name)

    def __set__(self, obj, value):
        if not isinstance(value, self.kind):
            raise TypeError(f"{self.name[1:]} must be {self.kind.__name__}")
        setattr(obj, self.name, value)

class Product:
    name = Typed(str)
    price = Typed(float)

    def __init__(self, name, price):
        self.name = name
        self.price = price

item = Product("pen", 1.5)
assert item.price == 1.5
try:
    item.price = "cheap"
except TypeError as exc:
    assert str(exc) == "price must be float"
print(item.name, item.price)

# %% observer pattern
class EventBus:
    def __init__(self):
        self.handlers = {}

    def subscribe(self, event, handler):
        self.handlers.setdefault(event, []).append(handler)

    def publish(self, event, payload):
        return [handler(payload) for handler in self.handlers.get(event, [])]

log = []
bus = EventBus()
bus.subscribe("order", lambda p: log.append(("audit", p["id"])))
bus.subscribe("order", lambda p: p["total"] * 1.2)
results = bus.publish("order", {"id": 7, "total": 50})
assert log == [("audit", 7)]
assert results[1] == 60.0
assert bus.publish("unknown", {}) == []
print(log)

# %% mixins
import json

class JsonMixin:
    def to_json(self):
        return json.dumps(self.__dict__, sort_keys=True)

class CompareMixin:
    def __eq__(self, other):
        return type(self) is type(other) and self.__dict__ == other.__dict__

class User(JsonMixin, CompareMixin):
    def __init__(self, name, email):
        self.name = name
        self.email = email

u = User("ada", "ada@example.org")
assert u.to_json() == '{"email": "ada@example.org", "name": "ada"}'
assert u == User("ada", "ada@example.org")
assert u != User("bob", "bob@example.org")
assert [c.__name__ for c in User.__mro__] == ["User", "JsonMixin", "CompareMixin", "object"]
u.to_json()

# %% queue with two stacks
class Queue:
    def __init__(self):
        self.inbox, self.outbox = [], []

    def enqueue(self, item):
        self.inbox.append(item)

    def dequeue(self):
        if not self.outbox:
            while self.inbox:
                self.outbox.append(self.inbox.pop())
        return self.outbox.pop()

q = Queue()
for i in range(5):
    q.enqueue(i)
assert q.dequeue() == 0
q.enqueue(5)
assert [q.dequeue() for _ in range(5)] == [1, 2, 3, 4, 5]
print("fifo ok")

# %% callable objects
class Polynomial:
    def __init__(self, *coefficients):
        self.coefficients = coefficients

    def __call__(self, x):
        result = 0
        for c in self.coefficients:
            result = result * x + c
        return result

    def derivative(self):
        n = len(self.coefficients) - 1
        return Polynomial(*(c * (n - i) for i, c in enumerate(self.coefficients[:-1])))

p = Polynomial(2, -3, 1)  # 2x^2 - 3x + 1
assert p(0) == 1 and p(1) == 0 and p(2) == 3
dp = p.derivative()
assert dp.coefficients == (4, -3)
assert callable(p)
[p(x) for x in range(-2, 3)]

# %% inventory with generics
from typing import Generic, TypeVar

T = TypeVar("T")

class Box(Generic[T]):
    def __init__(self):
        self.items: list[T] = []

    def add(self, item: T) -> "Box[T]":
        self.items.append(item)
        return self

    def take(self) -> T:
        return self.items.pop(0)

ints: Box[int] = Box()
ints.add(1).add(2).add(3)
assert ints.take() == 1
assert ints.items == [2, 3]
words: Box[str] = Box[str]().add("a")
assert words.take() == "a"
print(Box.__parameters__)
