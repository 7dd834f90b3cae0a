"""``sandpit.host`` through the runner: calls awaited in code that awaits,
what a failed call raises, what the result lists, and what never leaves
Python (a trial's calls, arguments that are not JSON). The bridge is the
worker's in the browser; here a function of the test answers as the host
would (the browser tests drive the real one)."""

import asyncio
import json

import pytest
from harness import UnderTest, run

LOOKUP = {"name": "lookup", "description": "A city's country.", "signature": "(city: str)"}


class Host:
    """Answers the bridge's calls as the host would: ``answers`` by name, a
    value or an ``(kind, message)`` error; every call is kept."""

    def __init__(self, **answers):
        self.answers = answers
        self.calls = []

    def __call__(self, name, arguments_json, form):
        self.calls.append((name, json.loads(arguments_json), form))
        answer = self.answers[name]
        future = asyncio.get_running_loop().create_future()
        if isinstance(answer, tuple):
            kind, message = answer
            future.set_result(Reply(None, Error(kind, message)))
        else:
            future.set_result(Reply(json.dumps(answer), None))
        return future


class Reply:
    """What the worker's promise gives Python: ``value`` (JSON text) and ``error``."""

    def __init__(self, value, error):
        self.value, self.error = value, error


class Error:
    def __init__(self, kind, message):
        self.kind, self.message = kind, message


@pytest.fixture
def host(sandbox):
    """A host that answers ``lookup`` with France and ``broken`` with the handler's error."""
    made = Host(lookup="France", broken=("handler", "the table is closed"))
    UnderTest.runner.connect_host(made)
    yield made
    UnderTest.runner.connect_host(None)


def test_calls_awaited_in_a_loop_come_back_in_order_and_are_listed(host):
    code = (
        "from sandpit import host\n"
        "found = [await host.lookup(city=c) for c in ['Paris', 'Lyon']]\n"
        "found + [await host.call('lookup', {'city': 'Nice'})]"
    )
    result = run(code, host_functions=[LOOKUP])
    assert result["status"] == "ok", result["error"]
    assert result["value"]["repr"] == repr(["France"] * 3)
    assert [call[1] for call in host.calls] == [{"city": "Paris"}, {"city": "Lyon"}, {"city": "Nice"}]
    listed = result["host_calls"]
    assert [(c["name"], c["arguments"], c["ok"], c["form"]) for c in listed] == [
        ("lookup", '{"city": "Paris"}', True, "await"),
        ("lookup", '{"city": "Lyon"}', True, "await"),
        ("lookup", '{"city": "Nice"}', True, "await"),
    ]
    assert all(c["ms"] >= 0 for c in listed)


def test_a_handlers_error_raises_host_function_error_with_the_pages_message(host):
    code = (
        "import sandpit\nfrom sandpit import host\n"
        "try:\n    await host.broken()\nexcept sandpit.HostFunctionError as e:\n"
        "    caught = (str(e), e.function, e.kind)\ncaught"
    )
    result = run(code, host_functions=[LOOKUP])
    assert result["value"]["repr"] == "('the table is closed', 'broken', 'handler')"
    assert result["host_calls"][0]["error"] == {"kind": "handler", "message": "the table is closed"}
    assert result["host_calls"][0]["ok"] is False


def test_an_uncaught_failure_is_the_runs_error(host):
    result = run("from sandpit import host\nawait host.broken(x=1)", host_functions=[LOOKUP])
    assert result["status"] == "error"
    assert result["error"]["type"] == "HostFunctionError"
    assert result["error"]["message"] == "the table is closed"


def test_arguments_that_are_not_json_never_leave_python(host):
    result = run("from sandpit import host\nawait host.lookup(city={1, 2})", host_functions=[LOOKUP])
    assert result["status"] == "error"
    assert result["error"]["type"] == "TypeError"
    assert "cross as JSON" in result["error"]["message"]
    assert host.calls == []


def test_long_arguments_are_cut_in_the_list(host):
    result = run("from sandpit import host\nawait host.lookup(city='x' * 1000)", host_functions=[LOOKUP])
    shown = result["host_calls"][0]["arguments"]
    assert len(shown) == 200 and shown.endswith("…")


def test_a_call_in_code_that_does_not_await_needs_a_suspendable_stack(host):
    # CPython here, as a browser without JSPI: the call is refused with what to write instead.
    result = run("from sandpit import host\nhost.lookup(city='Paris')", host_functions=[LOOKUP])
    assert result["status"] == "error"
    assert result["error"]["type"] == "HostFunctionError"
    assert "await host.lookup(...)" in result["error"]["message"]
    assert result["host_calls"][0]["form"] == "sync"
    assert host.calls == []


def test_without_a_host_nothing_is_called(sandbox):
    result = run("from sandpit import host\nawait host.lookup(city='Paris')")
    assert result["error"]["type"] == "HostFunctionError"
    assert result["host_calls"][0]["error"]["kind"] == "refused"


def test_the_module_lists_what_the_run_may_call(host):
    code = "from sandpit import host\n(host.functions(), 'lookup' in dir(host), host.lookup.__doc__)"
    result = run(code, host_functions=[LOOKUP])
    assert result["value"]["repr"] == repr(([LOOKUP], True, "lookup(city: str)\n\nA city's country."))


def test_a_fixs_trial_calls_nothing(host):
    # The misspelt name has a fix; its trial would call the host, and may not.
    code = "from sandpit import host\ncity = 'Paris'\nawait host.lookup(city=cty)"
    result = run(code, host_functions=[LOOKUP])
    assert result["error"]["type"] == "NameError"
    assert host.calls == []
