"""The comparison sections every report carries: pairing first, defects above figures, change
kinds apart, noise labels, and the model-comparison table."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

from assay_agents.compare import (
    ModelComparison,
    ModelInterval,
    NoiseFloor,
    PairComparison,
    StoredComparison,
    compare_runs,
)
from assay_agents.record import write
from assay_agents.report import Report, prose
from assay_agents.results import CaseSnapshot, Run, scored
from assay_agents.spec import digest

from .conftest import make_run, passing_samples


def flat(text: str) -> str:
    """The text with its wrapping undone."""
    return " ".join(text.split())


FLOOR = NoiseFloor(
    ("ctl-0001", "ctl-0002"),
    0.1,
    {
        "(agent)": 0.0,
        "exact_match": 0.0,
        "actions": 0.0,
        "contains": 0.0,
        "semantic_accuracy": 0.05,
    },
)


def snapshot_of(case_id: str, position: int, **definition: object) -> CaseSnapshot:
    described = {"id": case_id, "name": case_id, "input": case_id, **definition}
    hashed = {k: v for k, v in described.items() if k != "provenance"}
    return CaseSnapshot(case_id, case_id, position, digest(hashed), described)  # type: ignore


def runs(judge_after: float = 0.8) -> tuple[Run, Run]:
    """The baseline passed everything. In the candidate the refund setup (derived by both) and
    the escalation reference (recorded) changed, and the judge marked order-status down."""
    before = make_run(passing_samples(), run_id="run-0001", sequence=1)
    samples = passing_samples()
    metrics = tuple(
        replace(m, score=judge_after) if m.kind == "judge" else m for m in samples[0].metrics
    )
    samples[0] = replace(samples[0], metrics=metrics)
    samples[2] = replace(
        samples[2], metrics=(scored("contains", "check", "content", 1.0, 0.0, 'no "human"'),)
    )
    after = make_run(samples, run_id="run-0002", sequence=2)
    derived = {"provenance": {"setup": "derived"}}
    recorded = {"provenance": {"reference": "recorded"}}
    before = replace(
        before,
        cases=(
            snapshot_of("order-status", 0),
            snapshot_of("refund", 1, setup={"v": 1}, **derived),
            snapshot_of("escalation", 2, reference="A human will call.", **recorded),
        ),
    )
    after = replace(
        after,
        cases=(
            snapshot_of("order-status", 0),
            snapshot_of("refund", 1, setup={"v": 2}, **derived),
            snapshot_of("escalation", 2, reference="A person will call.", **recorded),
        ),
    )
    return before, after


def test_withheld_with_defect_and_drift(snapshot: Callable[[str, str], None]) -> None:
    before, after = runs()
    report = Report(after, baseline=before, noise_floor=FLOOR)
    text, markdown = report.to_text(), report.to_markdown()
    snapshot(
        "comparison_withheld.txt", text[text.index("\nComparison\n") : text.index("\nCases\n")]
    )
    snapshot(
        "comparison_withheld.md",
        markdown[markdown.index("## Comparison") : markdown.index("## Cases")],
    )
    section = text[text.index("\nComparison\n") :]
    lines = section.splitlines()[3:]
    assert lines[0] == "Baseline: run-0001 (explicit --baseline)"
    assert lines[1] == "2 of 3 paired item(s) compared, 1 excluded (33% of the paired corpus)"
    assert lines[2].startswith("CORPUS DEFECT: escalation [openai/gpt-4o-mini]")
    assert section.index("CORPUS DEFECT") < section.index("NO HEADLINE FIGURE")
    assert "Pass rate over" not in section
    assert "Judge drift (same deterministic behaviour) (1):" in section
    data = report.to_dict()["comparison"]
    assert data["headline"]["status"] == "withheld" and set(data["headline"]) == {
        "status",
        "reason",
    }
    # Only the control runs' own movement (the floor) mentions a pass rate, never a delta.
    assert "pass_rate_" not in json.dumps(data) and '"delta"' not in json.dumps(data)


def test_raising_the_ceiling_brings_the_headline_into_every_format() -> None:
    before, after = runs()
    report = Report(after, baseline=before, noise_floor=FLOOR, max_excluded_share=0.5)
    # The escalation item regressed too, but its recorded reference changed: never a figure.
    assert (
        "Pass rate over the compared items: 2/2 · 100% → 2/2 · 100% (0 points, within "
        "noise)" in flat(report.to_text())
    )
    assert "**Pass rate over the compared items: 2/2 (100%) → 2/2 (100%)" in report.to_markdown()
    assert report.to_dict()["comparison"]["headline"]["delta"] == 0.0


def test_drift_within_the_floor_is_labelled_and_not_signal() -> None:
    before, after = runs(judge_after=0.86)
    report = Report(after, baseline=before, noise_floor=FLOOR)
    assert report.comparison is not None
    (drift,) = report.comparison.judge_drift
    assert drift.noise.value == "within_noise"
    assert "within noise" in report.to_text().split("Judge drift")[1].splitlines()[2]
    assert drift not in report.comparison.signal_regressions


def model_comparison() -> ModelComparison:
    return ModelComparison(
        models=(
            ModelInterval("small", 40, 0.625, (0.475, 0.775)),
            ModelInterval("large", 40, 0.85, (0.725, 0.95)),
        ),
        pairs=(
            PairComparison(("large", "small"), 40, 0.225, (0.075, 0.375), True),
            PairComparison(("large", "tiny"), 1, None, None, False),
            PairComparison(("small", "tiny"), 30, 0.033, (-0.1, 0.167), False, 0.142, 292),
        ),
    )


def test_model_comparison_table(snapshot: Callable[[str, str], None]) -> None:
    run = replace(
        make_run(passing_samples(), run_id="run-0003", sequence=3),
        comparison=StoredComparison(None, model_comparison()),
    )
    report = Report(run)
    text, markdown = report.to_text(), report.to_markdown()
    snapshot(
        "model_comparison.txt",
        text[text.index("\nModel comparison\n") : text.index("\nComparison\n")],
    )
    snapshot(
        "model_comparison.md",
        markdown[markdown.index("## Model comparison") : markdown.index("## Comparison")],
    )
    assert (
        text.index("\nSummary\n")
        < text.index("\nModel comparison\n")
        < text.index("\nComparison\n")
    )
    assert "large − small  40     +23 points" in text
    assert "±14 points" in text and "292" in text
    assert report.to_dict()["model_comparison"] == {
        **write(model_comparison()),
        "conclusion": prose.conclusion(model_comparison()),
    }


def test_stored_comparison_renders_as_recorded() -> None:
    before, after = runs()
    stored = StoredComparison(compare_runs(before, after, noise_floor=FLOOR), None)
    report = Report(replace(after, comparison=stored))
    assert report.comparison is not None and report.comparison.noise_floor == FLOOR
    assert "noise floor from control runs ctl-0001 and ctl-0002" in flat(report.to_text())
