"""The CI job summary: the verdict and why, the figures, what to fix; user text stays text."""

from __future__ import annotations

from dataclasses import replace

import pytest

from assay_agents.evaluation.verdict import Verdict
from assay_agents.report import build_view
from assay_agents.report.ci import ci_summary
from assay_agents.results import Run
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


def _many_failures(count: int, *, id_length: int = 500, faults: int = 1) -> Run:
    """``count`` failing cases with long ids, each with its own recommendation."""
    from assay_agents.results import CaseSnapshot, scored
    from assay_agents.results.fault import FAULT_ORDER

    from .conftest import make_run, sample

    ids = [f"case-{n:04d}-" + "x" * (id_length - 10) for n in range(count)]
    samples = [
        sample(
            case_id,
            (scored("contains", "check", "content", 1.0, 0.0, "does not contain it"),),
            answer="a",
            fault=FAULT_ORDER[-1 - n % faults],
            recommendation=f"Answer {case_id} from the policy.",
        )
        for n, case_id in enumerate(ids)
    ]
    run = make_run(samples, run_id="run-big", sequence=3)
    cases = tuple(CaseSnapshot(c, c, n, "f" * 64, {"input": "q"}) for n, c in enumerate(ids))
    return replace(run, cases=cases)


def test_a_huge_run_gives_a_summary_a_ci_page_shows_whole() -> None:
    # GitHub drops a step summary over 1 MiB altogether; 3,000 failing cases once made 4.6 MB.
    summary = ci_summary(build_view(_many_failures(3_000)), FAILED)
    assert len(summary.encode("utf-8")) <= 512 * 1024
    assert summary.startswith("## Assay: Customer support") and summary.endswith("\n")
    assert "### What to fix" in summary and "####" in summary
    cases = next(line for line in summary.splitlines() if line.startswith("- **Cases:**"))
    assert "case-0000-" in cases and "… and 2980 more" in cases
    assert "case-0020-" not in cases
    also = [line for line in summary.splitlines() if line.startswith("- **Also:**")]
    assert 0 < len(also) <= 21 and "… and 2979 more" in also[-1]
    assert raw_controls(summary) == []


def test_a_summary_past_its_size_is_cut_at_a_line_and_says_so() -> None:
    # Twelve fix items, each naming 20 cases and 20 other recommendations of 2,000 characters.
    summary = ci_summary(build_view(_many_failures(480, id_length=3_000, faults=12)), FAILED)
    size = len(summary.encode("utf-8"))
    assert 400 * 1024 < size <= 512 * 1024
    lines = summary.splitlines()
    assert lines[-1] == (
        "_The summary stops here, to stay under 512 KiB: "
        "`assay-agents report run-big` shows the whole run._"
    )
    assert lines[-2] == "" and summary.count("#### ") >= 2


def test_a_long_string_is_cut_with_a_marker() -> None:
    run = _many_failures(2)
    samples = tuple(replace(s, recommendation="Say it. " * 100_000) for s in run.samples)
    summary = ci_summary(build_view(replace(run, samples=samples)), FAILED)
    assert len(summary.encode("utf-8")) < 64 * 1024
    assert "Say it. Say it." in summary and "… (cut at 2,000 characters)" in summary
