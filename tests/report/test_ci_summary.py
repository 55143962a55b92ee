"""The CI job summary: the verdict and why, the figures, what to fix; user text stays text."""

from __future__ import annotations

import pytest

from assay.evaluation.verdict import Verdict
from assay.report import build_view
from assay.report.ci import ci_summary
from assay.results import Run
from hostile import CONTROLS, EVERYTHING, MARKUP, live_markup, raw_controls

from .test_hostile_text import hostile_run

FAILED = Verdict(failed=True, regressed=False, errors=1, reasons=("errored samples",))


def test_the_summary_says_the_verdict_why_and_what_to_fix(current_run: Run) -> None:
    text = ci_summary(build_view(current_run), FAILED)
    assert text.startswith("## Assay: Customer support · SupportAgent — failed\n")
    assert "**Failed: errored samples.** Run `run-0002` · exit code 1" in text
    assert "| Pass rate | 1/3 (33%) |" in text
    assert "### What to fix" in text
    assert text.endswith("\n")


def test_a_passing_run_says_so(current_run: Run) -> None:
    text = ci_summary(build_view(current_run), Verdict(failed=False, regressed=False))
    assert "— passed" in text and "**Passed.**" in text and "exit code 0" in text


@pytest.mark.parametrize("name", sorted({**CONTROLS, **MARKUP, "everything": EVERYTHING}))
def test_hostile_text_stays_text(name: str) -> None:
    text = {**CONTROLS, **MARKUP, "everything": EVERYTHING}[name]
    summary = ci_summary(build_view(hostile_run(text)), FAILED)
    assert raw_controls(summary) == []
    assert live_markup(summary) == []
