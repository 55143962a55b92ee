"""Compare returns figures and typed facts; the report writes every sentence and percentage."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from assay_agents.compare import (
    Change,
    ChangeKind,
    Comparison,
    ModelComparison,
    ModelInterval,
    PairComparison,
    compare_runs,
)
from assay_agents.record import read, write
from assay_agents.report import prose
from assay_agents.results import Run

SOURCE = Path(__file__).resolve().parents[2] / "src" / "assay_agents"

#: How a module formats a share as a percentage or points of its own.
_FORMATTING = re.compile(r"def _?(percent|points)\b|\* 100\b|:\+?\.?\d*[fg]\}%|% of the")


def test_compare_formats_no_percentage_and_writes_no_sentence_of_its_own() -> None:
    offenders = [
        f"{path.name}: {match.group(0)}"
        for path in sorted((SOURCE / "compare").glob("*.py"))
        for match in _FORMATTING.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


#: The layers that return figures to the report: none of them writes one into a sentence.
_FIGURES_ONLY = ("spec", "compare")


def _figures_written(path: Path) -> list[str]:
    """Where a module writes a number into text itself: a float format, ``%``, ``* 100``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        spec = node.format_spec if isinstance(node, ast.FormattedValue) else None
        written = ast.unparse(spec) if spec is not None else ""
        if re.search(r"[eEfFgG%]'$", written):
            found.append(f"{path.name}:{node.lineno}: {{…:{written[2:-1]}}}")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Mod):
            operands = (node.left, node.right)
            if any(isinstance(o, ast.Constant) and o.value in (100, 100.0) for o in operands):
                found.append(f"{path.name}:{node.lineno}: * 100")
            if isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
                found.append(f"{path.name}:{node.lineno}: % formatting")
    return found


def test_spec_and_compare_write_no_figure_into_a_sentence() -> None:
    offenders = [
        where
        for layer in _FIGURES_ONLY
        for path in sorted((SOURCE / layer).rglob("*.py"))
        for where in _figures_written(path)
    ]
    assert offenders == []


def test_the_scan_finds_a_figure_written_into_text(tmp_path: Path) -> None:
    module = tmp_path / "written.py"
    module.write_text(
        'a = f"fell by {drop:.3f}"\nb = f"{rate:.1%}"\nc = rate * 100\nd = "%d%%" % 5\n'
        'e = f"{byte:#04x}"\n'
    )
    assert sorted(_figures_written(module)) == [
        "written.py:1: {…:.3f}",
        "written.py:2: {…:.1%}",
        "written.py:3: * 100",
        "written.py:4: % formatting",
    ]


def test_the_stored_forms_hold_figures_and_the_report_adds_the_sentences(
    baseline_run: Run, current_run: Run
) -> None:
    comparison = compare_runs(baseline_run, current_run, max_excluded_share=0.0)
    assert "summary" not in write(comparison)
    written = prose.comparison_json(comparison)
    assert next(iter(written)) == "summary"
    assert written["summary"] == prose.pairing_line(comparison)


def test_a_change_is_stored_as_figures_and_the_report_writes_its_detail(
    baseline_run: Run, current_run: Run
) -> None:
    comparison = compare_runs(baseline_run, current_run, max_excluded_share=1.0)
    change = comparison.changes[0]
    stored = write(change)
    # Earlier versions require ``detail`` when they read a change: it is kept, and empty.
    assert stored["detail"] == ""
    assert read(Change, stored, "change") == change
    written = prose.comparison_json(comparison)["changes"][0]
    assert written["detail"] == prose.change_detail(change) != ""


def test_a_change_stored_with_its_sentence_reads_and_is_worded_from_its_figures() -> None:
    earlier = {
        "kind": "deterministic_regression",
        "case_id": "q",
        "model": None,
        "metric": "contains",
        "metric_kind": "check",
        "category": "content",
        "before": 1.0,
        "after": 0.0,
        "detail": "as it was written",
        "movement": 1.0,
        "noise": "unmeasured",
    }
    change = read(Change, earlier, "change")
    assert (change.kind, change.before, change.after) == (
        ChangeKind.DETERMINISTIC_REGRESSION,
        1.0,
        0.0,
    )
    assert prose.change_detail(change) == "the check passed fewer samples"
    drifted = read(
        Change,
        {**earlier, "kind": "judge_drift", "metric_kind": "judge", "before": 0.9, "after": 0.8},
        "change",
    )
    assert prose.change_detail(drifted) == (
        "same deterministic behaviour; the judge score fell by 10 points"
    )


def test_forms_stored_with_their_sentences_still_read(baseline_run: Run, current_run: Run) -> None:
    comparison = compare_runs(baseline_run, current_run)
    earlier = {"summary": "as it was written", **write(comparison)}
    assert read(Comparison, earlier, "comparison") == comparison
    models = ModelComparison(
        models=(ModelInterval("a", 2, 1.0, (1.0, 1.0)), ModelInterval("b", 2, 0.0, (0.0, 0.0))),
        pairs=(PairComparison(("a", "b"), 2, 1.0, (1.0, 1.0), True),),
    )
    stored = {**write(models), "conclusion": "Decisive: as it was written."}
    assert read(ModelComparison, stored, "model_comparison") == models
    assert prose.conclusion(models) == (
        "Decisive: a passes more cases than b by +100 points (95% interval +100 to +100 points)."
    )


def test_a_judge_mean_just_below_its_minimum_never_reads_as_equal_to_it():
    from assay_agents.report.prose import gate_line
    from assay_agents.spec.gate import Figure, GateFinding, Reading

    below = GateFinding(
        figure=Figure.JUDGE, reading=Reading.VIOLATED, value=0.5996, limit=0.6, criterion="tone"
    )
    assert gate_line(below) == "tone: mean 59.96% is below the minimum 60%"
    # Whole percentages would read "70% is below the minimum 70%".
    close = GateFinding(
        figure=Figure.JUDGE, reading=Reading.VIOLATED, value=0.695, limit=0.7, criterion="tone"
    )
    assert gate_line(close) == "tone: mean 69.5% is below the minimum 70%"
    met = GateFinding(
        figure=Figure.JUDGE, reading=Reading.MET, value=0.75, limit=0.6, criterion="tone"
    )
    assert gate_line(met) == "judge tone mean 75% ≥ 60%"
    edge = GateFinding(
        figure=Figure.JUDGE, reading=Reading.MET, value=0.7004, limit=0.7, criterion="tone"
    )
    assert gate_line(edge) == "judge tone mean 70.04% ≥ 70%"  # never 70% ≥ 70% for unequal
