"""The plain-text report: snapshots, layout and the readings it must carry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from assay_agents.report import Report
from assay_agents.report.format import ESTIMATED_LEGEND
from assay_agents.report.text import WIDTH, table
from assay_agents.results import Run, RunStatus, summarise

from .conftest import MODEL, current_samples, make_run, passing_samples


def test_completed_run_against_baseline(
    current_run: Run, baseline_run: Run, snapshot: Callable[[str, str], None]
) -> None:
    snapshot("completed_with_baseline.txt", Report(current_run, baseline=baseline_run).to_text())


def test_running_run_without_baseline(
    running_run: Run, snapshot: Callable[[str, str], None]
) -> None:
    snapshot("running_without_baseline.txt", Report(running_run).to_text())


def test_sections_come_in_order(current_run: Run, baseline_run: Run) -> None:
    text = Report(current_run, baseline=baseline_run).to_text()
    marks = [
        "Assay report:",
        "\nSummary\n",
        "Judge criteria",
        "By model:",
        "\nComparison\n",
        "3 of 3 paired item(s) compared",
        "Pass rate over the compared items",
        "Deterministic regressions (2):",
        "New errors (2):",
        "\nCases\n",
        "1. order-status",
        "2. refund",
        "3. escalation",
    ]
    positions = [text.index(mark) for mark in marks]
    assert positions == sorted(positions)


def test_plain_and_narrow(current_run: Run, baseline_run: Run) -> None:
    text = Report(current_run, baseline=baseline_run).to_text()
    assert "\x1b" not in text
    for line in text.splitlines():
        # Only a single unbreakable token (JSON, say) may run past the width.
        assert len(line) <= WIDTH or " " not in line.strip(), line


def test_headline_figures(current_run: Run, baseline_run: Run) -> None:
    text = Report(current_run, baseline=baseline_run).to_text()
    assert "Pass rate:     1/3 · 33%" in text
    assert "Check score:   42%" in text
    assert "Cases passed:  1 of 3" in text
    assert "Fingerprint:  3f9a1c2b7d4e\n" in text
    assert (
        "\nComparison\n----------\nBaseline: run-0001 (explicit --baseline)\n3 of 3 paired "
        "item(s) compared, 0 excluded (0% of the paired corpus)\n" in text
    )
    assert (
        "Pass rate over the compared items: 3/3 · 100% → 1/3 · 33% (−67 points, unmeasured)" in text
    )
    assert "Baseline run-0001: 4 regression(s) (4 signal), 0 improvement(s)" in text
    assert "~$0.0246 (2 of 3 samples priced)" in text
    assert text.rstrip().endswith(ESTIMATED_LEGEND)


def test_regressions_before_improvements() -> None:
    passing, failing = passing_samples(), current_samples()
    # The baseline passed "refund" and errored on "escalation"; the candidate did the opposite.
    baseline = make_run([passing[0], passing[1], failing[2]], run_id="base", sequence=1)
    current = make_run([passing[0], failing[1], passing[2]], run_id="cur", sequence=2)
    text = Report(current, baseline=baseline).to_text()
    assert "Baseline base: 2 regression(s) (2 signal), 2 improvement(s)" in text
    assert text.index("Deterministic regressions (2):") < text.index("Improvements (2):")
    improvements = text[text.index("Improvements (2):") : text.index("\nCases\n")]
    assert "escalation [openai/gpt-4o-mini]  (agent)" in improvements
    assert "contains  content   0% → 100%       unmeasured\n" in improvements
    assert "passed 0/1 samples before, 1/1 now" in improvements


def test_without_baseline() -> None:
    text = Report(make_run(current_samples(), run_id="r", sequence=2)).to_text()
    assert "Comparison\n----------\nNo compatible baseline." in text


def test_actions_read_none_and_not_instrumented(baseline_run: Run, current_run: Run) -> None:
    assert "actions:  none" in Report(baseline_run).to_text()
    assert "actions:  not instrumented" in Report(current_run).to_text()


def test_long_answer_is_truncated() -> None:
    samples = current_samples()
    samples[0] = replace(samples[0], answer="word " * 200)
    text = Report(make_run(samples, run_id="r", sequence=2)).to_text()
    assert "… [700 more characters]" in text
    assert "word " * 70 not in text


def test_no_judge_no_models_no_summary() -> None:
    samples = [
        replace(s, model=None, metrics=tuple(m for m in s.metrics if m.kind == "check"))
        for s in current_samples()
    ]
    run = replace(
        make_run(samples, run_id="r", sequence=2),
        summary=summarise(samples),
        status=RunStatus.INTERRUPTED,
    )
    text = Report(run).to_text()
    assert "Judge criteria" not in text
    assert "By model" not in text
    assert "sample 0 · failed" in text
    interrupted = Report(replace(run, summary=None)).to_text()
    assert "No stored summary: the run is interrupted." in interrupted
    assert "3 sample(s) recorded so far" in interrupted


def test_table_wraps_prose_under_its_column() -> None:
    lines = table([["a", "word " * 30]], ["x", "why"], prose=True)
    assert lines[0] == "  x  why"
    assert all(len(line) <= WIDTH for line in lines)
    assert all(line.startswith("     ") for line in lines[2:])


def test_table_moves_prose_below_when_columns_are_wide() -> None:
    lines = table([["a" * 70, "the reason"]], ["item", "detail"], prose=True)
    assert lines == ["  item", "  " + "a" * 70, "      the reason"]


def test_model_label_in_sample_heading(current_run: Run) -> None:
    assert f"sample 0 · {MODEL} · passed · check score 100%" in Report(current_run).to_text()
