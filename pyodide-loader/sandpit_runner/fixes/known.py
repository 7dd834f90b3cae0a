"""Names a program often uses without importing them, and other languages'
words for Python's."""

#: Names that come from one standard module: ``from module import name``.
FROM_IMPORTS = {
    "Counter": "collections",
    "OrderedDict": "collections",
    "defaultdict": "collections",
    "deque": "collections",
    "namedtuple": "collections",
    "dataclass": "dataclasses",
    "field": "dataclasses",
    "datetime": "datetime",
    "date": "datetime",
    "timedelta": "datetime",
    "timezone": "datetime",
    "Path": "pathlib",
    "partial": "functools",
    "reduce": "functools",
    "lru_cache": "functools",
    "cache": "functools",
    "wraps": "functools",
    "chain": "itertools",
    "combinations": "itertools",
    "permutations": "itertools",
    "product": "itertools",
    "groupby": "itertools",
    "islice": "itertools",
    "accumulate": "itertools",
    "Fraction": "fractions",
    "Decimal": "decimal",
    "Enum": "enum",
    "ABC": "abc",
    "abstractmethod": "abc",
    "Any": "typing",
    "Callable": "typing",
    "Dict": "typing",
    "Iterable": "typing",
    "Iterator": "typing",
    "List": "typing",
    "Optional": "typing",
    "Set": "typing",
    "Tuple": "typing",
    "Union": "typing",
    "pprint": "pprint",
    "heappush": "heapq",
    "heappop": "heapq",
    "heapify": "heapq",
    "bisect_left": "bisect",
    "bisect_right": "bisect",
    "dedent": "textwrap",
    "StringIO": "io",
    "sqrt": "math",
    "floor": "math",
    "ceil": "math",
    "pi": "math",
    "gcd": "math",
    "randint": "random",
    "shuffle": "random",
}

#: Conventional short names of modules: ``import module as name``.
ALIASES = {"np": "numpy", "pd": "pandas", "plt": "matplotlib.pyplot", "sns": "seaborn", "sp": "scipy", "nx": "networkx"}

#: Other languages' names for Python's.
HABITS = {
    "true": "True",
    "false": "False",
    "null": "None",
    "nil": "None",
    "none": "None",
    "xrange": "range",
    "unicode": "str",
    "long": "int",
    "println": "print",
    "echo": "print",
}

#: Other languages' methods and attributes: (Python's name, whether it is
#: ``len(x)`` rather than a method).
METHOD_HABITS = {
    "push": ("append", False),
    "length": ("len", True),
    "size": ("len", True),
    "toUpperCase": ("upper", False),
    "toLowerCase": ("lower", False),
    "trim": ("strip", False),
    "startsWith": ("startswith", False),
    "endsWith": ("endswith", False),
    "indexOf": ("index", False),
}

#: Package names written where Python wants the module's name.
MODULE_NAMES = {
    "beautifulsoup4": "bs4",
    "BeautifulSoup": "bs4",
    "pillow": "PIL",
    "Pillow": "PIL",
    "scikit_learn": "sklearn",
    "opencv": "cv2",
    "pyyaml": "yaml",
    "PyYAML": "yaml",
}
