"""The embedding page's own functions, for the code Sandpit runs ("code
mode"): a chat UI that embeds Sandpit registers functions (name, description,
JSON Schema of the arguments, a handler), and a program calls them in a loop
instead of a model making one tool call per step.

``from sandpit import host``, then ``await host.lookup(city="Paris")`` (or
``host.call("lookup", {"city": "Paris"})``) in code that awaits; in code that
does not, ``host.lookup(city="Paris")`` returns the value itself where the
browser can suspend Python (WebAssembly's JS promise integration, which
Chromium has). Arguments and values cross as JSON; the page checks the
arguments against the function's schema before its handler runs. Any
failure raises :class:`HostFunctionError`: the handler's own error (with the
page's message), arguments the schema refuses, a name the page did not
register, a limit of the run (calls, size), a run stopped meanwhile.
``host.functions()`` lists what the page offers to this run.
"""


class HostFunctionError(Exception):
    """A call to a function of the embedding page gave no value.

    ``function`` is its name; ``kind`` says why: ``handler`` (the page's
    handler raised: the message is the page's), ``invalid_arguments``,
    ``refused``, ``limit`` or ``cancelled``."""

    def __init__(self, message: str, function: str = "", kind: str = "handler"):
        super().__init__(message)
        self.function = function
        self.kind = kind


def _hooks():
    import _sandpit_run

    return _sandpit_run


def call(name: str, arguments: "dict | None" = None, /, **keywords):
    """Calls the page's function ``name`` with ``arguments`` (a dict) and/or
    keywords: awaitable in code that awaits, else its value."""
    merged = dict(arguments or {}) | keywords
    return _hooks().host_call(name, merged)


def functions() -> list:
    """What the page offers to this run: ``[{name, description, signature}]``."""
    return _hooks().host_functions()


def __getattr__(name: str):
    if name.startswith("_"):
        raise AttributeError(f"module 'sandpit.host' has no attribute {name!r}")

    def function(arguments: "dict | None" = None, /, **keywords):
        return call(name, arguments, **keywords)

    function.__name__ = function.__qualname__ = name
    for offered in functions():
        if offered["name"] == name:
            function.__doc__ = f"{name}{offered['signature']}\n\n{offered['description']}"
    return function


def __dir__() -> list:
    return sorted(["HostFunctionError", "call", "functions", *(offered["name"] for offered in functions())])
