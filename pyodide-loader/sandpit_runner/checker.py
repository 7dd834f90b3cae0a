"""A program checked without running it (``CheckReport`` in src/protocol/):
its syntax error, shaped as a run's, with a fix where one compiles; where
each import would come from; and what the lint finds."""

import ast

from . import lint
from .errors import describe_error
from .fixes.edits import Source
from .fixes.engine import Proposal
from .imports import modules_in

FILENAME = "<check>"


def check(code: str, interrupts, packages) -> dict:
    """``CheckReport`` of ``code``."""
    proposal = Proposal(code, packages.package_of)
    try:
        compile(code, FILENAME, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as error:
        described = describe_error(error, FILENAME, code, interrupts, packages)
        fix = proposal.for_error(error, FILENAME)
        if fix is not None:
            described["fix"] = fix
        return {"syntax_error": described, "imports": []}
    modules = modules_in(ast.parse(code, FILENAME))
    report = {"syntax_error": None, "imports": [packages.plan(name, line) for name, line in modules.items()]}
    findings = lint.findings(code)
    if findings:
        source = Source(code)
        report["warnings"] = [_warning(finding, source, proposal) for finding in findings]
    return report


def _warning(finding, source: Source, proposal: Proposal) -> dict:
    warning = finding.warning(source)
    fix = None if finding.candidate is None else proposal.for_candidate(finding.candidate)
    return warning if fix is None else warning | {"fix": fix}
