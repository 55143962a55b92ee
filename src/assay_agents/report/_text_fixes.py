"""Plain-text lines for the verdict, What to fix and each sample's fault (see ``text``)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from assay_agents.report import _fixing as fixing
from assay_agents.report import _reading as reading
from assay_agents.report.view import VerdictSection, written
from assay_agents.results import SampleResult
from assay_agents.results.fixes import FixItem

WIDTH = 100


def _section(name: str) -> list[str]:
    return ["", name, "-" * len(name)]


def _wrapped(text: str, indent: str = "  ", first: str = "") -> list[str]:
    return textwrap.wrap(
        first + text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_long_words=False,
    ) or [indent]


def verdict_lines(section: VerdictSection) -> list[str]:
    """``Verdict``: the judge's pick with its rationale, and each model's rates and faults."""
    lines = _section(section.title)
    pick = section.pick
    if pick is not None:
        lines += _wrapped(
            pick.rationale, "", f"Best model: {pick.model} (picked by {pick.judge}). "
        )
    else:
        lines.append("No verdict: a judge picks the best model when the run has one.")
    for row in section.models.rows:
        model, rate, score, faults = (written(cell) for cell in row)
        lines.append(f"  {model}: pass rate {rate} · check score {score} · faults {faults}")
    if section.judge_usage:
        lines.append(f"Run-level judge usage: {section.judge_usage}")
    return lines


def fix_lines(items: Sequence[FixItem]) -> list[str]:
    """``What to fix``: one numbered block per fix item."""
    lines = _section("What to fix")
    if not items:
        return [*lines, "Nothing to fix: no sample has a diagnosed fault."]
    for number, item in enumerate(items, start=1):
        title = fixing.FAULT_TITLES.get(item.fault, item.fault)
        if item.kind == "instruction":
            title = f"Instruction change ({title.lower()})"
        lines += [""] * (number > 1) + [
            f"{number}. {title} [{item.fault}] · {reading.plural(item.count, 'sample')}"
        ]
        lines += _wrapped(", ".join(item.case_ids), "   ", "cases: ")
        if item.models:
            lines += _wrapped(", ".join(item.models), "   ", "models: ")
        lines += _wrapped(item.recommendation, "   ", "fix: ")
        lines += [
            line
            for text, cases in item.also
            for line in _wrapped(f"{text} ({', '.join(cases)})", "   ", "also: ")
        ]
        if item.quote:
            lines += _wrapped(f"“{item.quote}”", "   ", "instruction: ")
        if item.tools:
            names = ", ".join(
                tool.name + (f" ({tool.note})" if tool.note else "") for tool in item.tools
            )
            lines += _wrapped(names, "   ", f"{item.tools_label or 'tools'}: ")
        if item.action is not None:
            path = item.action.get("path")
            lines += _wrapped(
                f"{item.action.get('label')}" + (f" {path}" if path else ""), "   ", "action: "
            )
    return lines


def sample_fault_lines(sample: SampleResult) -> list[str]:
    """``fault: missing_content: The answer must contain …``, under the sample's metrics."""
    if sample.fault is None:
        return []
    return _wrapped(f"{sample.fault}: {sample.recommendation or ''}", "     ", "fault:    ")
