"""Compare returns figures and typed facts; the report writes every sentence and percentage."""

from __future__ import annotations

import re
from pathlib import Path

from assay.compare import Comparison, ModelComparison, compare_runs
from assay.compare.models import ModelInterval, PairComparison
from assay.report import prose
from assay.results import Run

SOURCE = Path(__file__).resolve().parents[2] / "src" / "assay"

#: How a module formats a share as a percentage or points of its own.
_FORMATTING = re.compile(r"def _?(percent|points)\b|\* 100\b|:\+?\.?\d*[fg]\}%|% of the")


def test_compare_formats_no_percentage_and_writes_no_sentence_of_its_own() -> None:
    offenders = [
        f"{path.name}: {match.group(0)}"
        for path in sorted((SOURCE / "compare").glob("*.py"))
        for match in _FORMATTING.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_stored_forms_hold_figures_and_the_report_adds_the_sentences(
    baseline_run: Run, current_run: Run
) -> None:
    comparison = compare_runs(baseline_run, current_run, max_excluded_share=0.0)
    assert "summary" not in comparison.to_json()
    written = prose.comparison_json(comparison)
    assert next(iter(written)) == "summary"
    assert written["summary"] == prose.pairing_line(comparison)


def test_forms_stored_with_their_sentences_still_read(baseline_run: Run, current_run: Run) -> None:
    comparison = compare_runs(baseline_run, current_run)
    earlier = {"summary": "as it was written", **comparison.to_json()}
    assert Comparison.from_json(earlier) == comparison
    models = ModelComparison(
        (ModelInterval("a", 2, 1.0, (1.0, 1.0)), ModelInterval("b", 2, 0.0, (0.0, 0.0))),
        (PairComparison(("a", "b"), 2, 1.0, (1.0, 1.0), True),),
    )
    stored = {**models.to_json(), "conclusion": "Decisive: as it was written."}
    assert ModelComparison.from_json(stored) == models
    assert prose.conclusion(models) == (
        "Decisive: a passes more cases than b by +100.0 points "
        "(95% interval +100.0 to +100.0 points)."
    )
