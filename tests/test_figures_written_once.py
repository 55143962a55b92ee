"""Figures are written by one module: no other module formats a number for a person itself.

Scores, rates, money and durations a person reads go through :mod:`assay_agents.report.format`, so a
figure reads the same on every surface. This test reads every module's f-strings and format
strings and fails on a number format (``:.2f``, ``:.0%``, ``:,``, ``:g``) outside that module,
unless the place is allowed below with the reason it is not a figure in a report.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "assay_agents"

#: The one module that writes figures.
FORMAT_MODULE = "report/format.py"

#: A format spec that writes a number: a precision, a grouping or a numeric presentation type.
_NUMERIC = re.compile(
    r"^(?:.?[<>=^])?[+\- ]?#?0?\d*(?:[,_]|\.\d+|[eEfFgGn%])[,_]?(?:\.\d+)?[eEfFgGn%]?$"
)
#: The same inside a plain string later given to ``str.format``: ``"{:.2f}"``, ``"{x:,}"``.
_IN_TEMPLATE = re.compile(r"\{(?:[A-Za-z_][\w.]*|\d*):([^{}\s]*)\}")

#: Places that format a number for something other than a figure in a report: counts and
#: sizes in error messages about a bad input or setting (the number the user wrote or a
#: limit), seconds in log and retry notes, progress ticks, JUnit's machine-read time, and a
#: check's stored reason that sets whole milliseconds against a budget in milliseconds.
ALLOWED = {
    "checks/budget.py": "a check's reason: milliseconds against a budget in milliseconds",
    "checks/content.py": "a check's reason: how many characters the answer has",
    "checks/observation.py": "a check's reason: how many items a list has, where it differs",
    "checks/quoting.py": "a check's reason: how many items or characters it left out",
    "dashboard/charts.py": "an SVG path's coordinates (its labels go through the format module)",
    "evaluation/memory.py": "a lease message: seconds since a heartbeat",
    "evaluation/options.py": "an options error: the setting as given and its limits",
    "evaluation/writer.py": "a retry note in the log: seconds until the next attempt",
    "judging/pick.py": "a judge reply error: a length limit",
    "judging/refine.py": "a judge reply error: a length limit",
    "judging/retry.py": "a retry note in the log: seconds until the next attempt",
    "judging/verdict.py": "a judge reply error: a length and its limit",
    "limits.py": "an input-bounds error: the value as given and its bounds",
    "load/_documents.py": "a suite file error: a size limit",
    "load/_pasted_lines.py": "a pasted-text error: a size limit",
    "load/items.py": "an item folder error: a size limit",
    "ray/executor.py:connect_timeout": "a connection error: the timeout as set",
    "report/_reading.py:len(text) - limit": "how many characters of a long answer were left out",
    "report/_comparing.py:cases_needed": "a count of cases, with thousands separators",
    "report/archive.py": "an archive error: counts and limits of a damaged file",
    "report/junit.py:seconds.quantize": "JUnit's time attribute: seconds as the schema reads them",
    "report/prose.py:resamples": "a count of resamples, with thousands separators",
    "results/storable.py": "an unstorable-value error: the value as given",
    "runner/execute.py": "an agent timeout error: the setting as given",
    "runner/pacing.py": "the progress line: seconds of a rate-limit wait",
    "runner/progress.py": "the progress line: seconds elapsed",
    "store/_lease.py": "a lease message: seconds since a heartbeat",
    "testing/server.py": "a test server's retry-after header",
}


def _specs(tree: ast.AST) -> list[tuple[int, str, str]]:
    """Each number format in ``tree``: its line, the spec, and the expression it formats."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = "".join(
                part.value
                for part in ast.walk(node.format_spec)
                if isinstance(part, ast.Constant) and isinstance(part.value, str)
            )
            if _NUMERIC.match(spec):
                found.append((node.lineno, spec, ast.unparse(node.value)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for match in _IN_TEMPLATE.finditer(node.value):
                if _NUMERIC.match(match[1]):
                    found.append((node.lineno, match[1], match[0]))
    return found


def _allowed(relative: str, expression: str) -> bool:
    return relative in ALLOWED or any(
        key.startswith(f"{relative}:") and key.split(":", 1)[1] in expression for key in ALLOWED
    )


def formatted_outside_the_format_module() -> list[str]:
    offences = []
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        if relative == FORMAT_MODULE:
            continue
        for line, spec, expression in _specs(ast.parse(path.read_text(encoding="utf-8"))):
            if not _allowed(relative, expression):
                offences.append(f"{relative}:{line} {{{expression}:{spec}}}")
    return offences


def test_no_module_but_the_format_module_writes_a_figure() -> None:
    assert formatted_outside_the_format_module() == []


def test_every_allowed_place_still_formats_a_number() -> None:
    # An allowance whose place no longer formats anything is stale: remove it.
    used = set()
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        for _, _, expression in _specs(ast.parse(path.read_text(encoding="utf-8"))):
            used.update(
                key
                for key in ALLOWED
                if key == relative
                or (key.startswith(f"{relative}:") and key[len(relative) + 1 :] in expression)
            )
    assert sorted(set(ALLOWED) - used) == []


def test_the_scan_sees_a_number_formatted_in_an_f_string() -> None:
    planted = ast.parse('f"score {value:.3f} rate {share:.0%} cost {usd:,} ok {name:>10}"')
    assert [spec for _, spec, _ in _specs(planted)] == [".3f", ".0%", ","]
    assert [spec for _, spec, _ in _specs(ast.parse('"{:.2f}".format(x)'))] == [".2f"]
