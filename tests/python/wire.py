"""What the runner sends, as TypedDicts. Generated from
tests/fixtures/protocol.schema.json by scripts/protocol-python.py
(`make schema`); do not edit."""

from typing import Any, Literal, NotRequired, TypedDict


class Artifact(TypedDict):
    """A file the run created or changed in its working directory."""

    content_base64: NotRequired[str | None]
    mime: str
    path: str
    size: int


class BlockedRequest(TypedDict):
    """A request the browser refused under the worker's Content-Security-Policy."""

    directive: str
    url: str


#: How a series' values go, in order.
Monotonic = Literal["increasing", "decreasing", "constant", "neither"]


class ValueRange(TypedDict):
    """The smallest and largest of some values."""

    max: float
    min: float


class SeriesSummary(TypedDict):
    """One plotted series."""

    inf: int
    kind: str
    label: NotRequired[str | None]
    monotonic: NotRequired[Monotonic | None]
    nan: int
    points: int
    x: NotRequired[ValueRange | None]
    y: NotRequired[ValueRange | None]


class AxesSummary(TypedDict):
    """One axes of a figure."""

    legend: list[str]
    series: list[SeriesSummary]
    title: str
    xlabel: str
    ylabel: str


class FigureSummary(TypedDict):
    """What a matplotlib figure shows (a display's
    `application/vnd.sandpit.figure+json`), for a model to read and a test
    (`sandpit.verify.figures()`) to check."""

    axes: list[AxesSummary]


#: A rich representation of a value, keyed by MIME type as in Jupyter.
MimeBundle = TypedDict(
    "MimeBundle",
    {
        "application/json": NotRequired[Any],
        "application/vnd.sandpit.figure+json": NotRequired[FigureSummary | None],
        "image/png": NotRequired[str | None],
        "image/svg+xml": NotRequired[str | None],
        "text/html": NotRequired[str | None],
        "text/latex": NotRequired[str | None],
        "text/markdown": NotRequired[str | None],
        "text/plain": str,
    },
)


#: How a fix's trial ended.
TrialStatus = Literal["ok", "error", "timeout", "cancelled", "not_run"]


class FixOutcome(TypedDict):
    """What a fix's trial gave, when it did not prove the fix."""

    error_type: NotRequired[str | None]
    message: str
    status: TrialStatus


class Fix(TypedDict):
    """A fix of the submitted program, proposed for a failed run (or a lint
    warning) and tried before it is offered."""

    code: str
    diff: str
    outcome: NotRequired[FixOutcome | None]
    summary: str
    trial_ms: int
    verified: bool


#: What kind of help a model needs to repair a failed run.
HintCode = Literal["module_not_found", "package_needs_network", "package_blocked", "package_unavailable", "input_unsupported", "timed_out", "cancelled", "crashed", "network_blocked", "memory_limit", "undefined_name"]


class Hint(TypedDict):
    """A machine-readable repair hint with a sentence for humans and models."""

    code: HintCode
    message: str


class SourceLine(TypedDict):
    """One line of the user's code, for showing context around an error."""

    line: int
    text: str


class RunError(TypedDict):
    """An exception raised by the user's code, shaped so a model can repair it."""

    column: NotRequired[int | None]
    end_column: NotRequired[int | None]
    fix: NotRequired[Fix | None]
    hint: NotRequired[Hint | None]
    line: NotRequired[int | None]
    message: str
    source: list[SourceLine]
    traceback: str
    type: str


class FileEntry(TypedDict):
    """A file in the session's working directory after the run."""

    path: str
    size: int


#: Why a host call gave no value.
HostCallFailure = Literal["handler", "invalid_arguments", "refused", "limit", "cancelled"]


class HostCallError(TypedDict):
    """The error of a host call that gave no value."""

    kind: HostCallFailure
    message: str


#: How Python waited for a host call.
HostCallForm = Literal["await", "sync"]


class HostCallRecord(TypedDict):
    """One host call a run made, as its result lists it."""

    arguments: str
    error: NotRequired[HostCallError | None]
    form: HostCallForm
    ms: float
    name: str
    ok: bool


class MemoryUse(TypedDict):
    """The memory of a session's interpreter (its wasm heap, where every Python
    object lives), as a run left it."""

    limit_bytes: int
    limit_reached: bool
    peak_bytes: int


#: Which standard stream a piece of output came from.
StreamName = Literal["stdout", "stderr"]


class OutputChunk(TypedDict):
    """One write to stdout or stderr, kept in the order it happened."""

    stream: StreamName
    text: str


class LostRun(TypedDict):
    """One earlier run that could not be replayed after a restart."""

    code_start: str
    reason: str
    session: str


class Restoration(TypedDict):
    """How session state came back after the worker had to be replaced."""

    before_run: NotRequired[bool | None]
    lost: list[LostRun]
    ms: NotRequired[int]
    replayed: int
    skipped: NotRequired[int]


#: How a run ended.
RunStatus = Literal["ok", "error", "timeout", "crashed", "cancelled"]


class Truncation(TypedDict):
    """Whether parts of the result were cut at the limits."""

    displays: bool
    output: bool
    output_bytes_total: int


class LastValue(TypedDict):
    """The value of the last expression of the code, if it was not `None`."""

    json: NotRequired[Any]
    repr: str
    repr_error: NotRequired[str | None]
    truncated: bool


class Comparison(TypedDict):
    """The two sides of a failed comparison, as their `repr`s."""

    left: str
    op: str
    right: str


class TestCase(TypedDict):
    """One test and how it went."""

    compared: NotRequired[Comparison | None]
    error: NotRequired[RunError | None]
    explanation: NotRequired[str | None]
    line: int
    name: str
    passed: bool


class Verification(TypedDict):
    """What a run's tests found."""

    not_run: NotRequired[str | None]
    passed: bool
    tests: list[TestCase]


#: The lint's rules.
LintRule = Literal["sql-built-from-strings", "eval-of-input", "unsafe-deserialization", "weak-random-for-secret", "weak-hash-for-password", "figure-empty-axes", "figure-all-nan", "figure-unlabelled"]


class LintWarning(TypedDict):
    """Code that runs but is dangerous, or a figure that shows or says nothing."""

    column: NotRequired[int | None]
    end_column: NotRequired[int | None]
    fix: NotRequired[Fix | None]
    line: NotRequired[int | None]
    message: str
    rule: LintRule


class RunResult(TypedDict):
    """Everything a run hands back."""

    artifacts: list[Artifact]
    blocked: list[BlockedRequest]
    displays: list[MimeBundle]
    duration_ms: float
    error: NotRequired[RunError | None]
    exit_code: NotRequired[int | None]
    files: list[FileEntry]
    host_calls: NotRequired[list[HostCallRecord]]
    memory: NotRequired[MemoryUse | None]
    output: list[OutputChunk]
    restored: NotRequired[Restoration | None]
    status: RunStatus
    stderr: str
    stdout: str
    truncated: Truncation
    value: NotRequired[LastValue | None]
    verification: NotRequired[Verification | None]
    warnings: NotRequired[list[LintWarning]]


#: Whether an import can work here.
Availability = Literal["offline", "network", "unavailable"]


class ImportPlan(TypedDict):
    """Where one imported module would come from."""

    availability: Availability
    line: int
    message: str
    module: str
    package: NotRequired[str | None]


class CheckReport(TypedDict):
    """Code checked without running it: a model's dry run before it spends a run."""

    imports: list[ImportPlan]
    syntax_error: NotRequired[RunError | None]
    warnings: NotRequired[list[LintWarning]]


#: What a completed name names.
CompletionKind = Literal["module", "class", "function", "property", "variable", "keyword"]


class CompletionOption(TypedDict):
    """One name [`Completions`] offers."""

    kind: CompletionKind
    name: str


class Completions(TypedDict):
    """What could be typed at a cursor (see [`Query::Complete`])."""

    options: list[CompletionOption]
    token: str
