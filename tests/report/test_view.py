"""One typed view of a report, built once, and the formats that render it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.report import Report
from assay_agents.report import format as fmt
from assay_agents.report.markdown import markdown_of
from assay_agents.report.text import text_of
from assay_agents.report.view import (
    CasesSection,
    ComparisonSection,
    Figure,
    FixesSection,
    ReportView,
    SummarySection,
    build_view,
    written,
)
from assay_agents.results import Run


def test_a_view_reads_the_run_in_report_order(baseline_run: Run, current_run: Run) -> None:
    view = Report(current_run, baseline=baseline_run).view()
    assert view.header.title == "Customer support · SupportAgent"
    kinds = [type(section) for section in view.sections]
    assert kinds.index(SummarySection) < kinds.index(ComparisonSection)
    assert kinds.index(ComparisonSection) < kinds.index(FixesSection) < kinds.index(CasesSection)
    comparison = view.section(ComparisonSection)
    assert comparison is not None and comparison.pairing.startswith("3 of 3 paired item(s)")


def test_figures_are_numbers_written_by_the_formatting_module(current_run: Run) -> None:
    summary = build_view(current_run).section(SummarySection)
    assert summary is not None
    rate = dict(summary.fields)["Pass rate"]
    assert isinstance(rate, Figure)
    passed, evaluated = current_run.summary.passed, current_run.summary.evaluated
    assert (rate.value, rate.total) == (passed, evaluated)
    assert rate.written("text") == fmt.fraction(passed, evaluated)
    assert rate.written("markdown") == fmt.fraction_md(passed, evaluated)


def test_a_view_is_frozen(current_run: Run) -> None:
    view = build_view(current_run)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.estimated = True  # type: ignore[misc]


def test_text_and_markdown_render_the_view(baseline_run: Run, current_run: Run) -> None:
    report = Report(current_run, baseline=baseline_run)
    view = report.view()
    assert text_of(view) == report.to_text()
    assert markdown_of(view) == report.to_markdown()


def test_a_stored_run_and_an_evaluation_give_the_same_view(tmp_path: Path) -> None:
    from assay_agents.store import Store

    suite = assay.Suite("Support", agent=lambda text, ctx: "30 days", checks=[checks.exact_match()])
    suite.case("How long?", id="returns", expected="30 days")
    suite.case("Warranty?", id="warranty", expected="2 years")
    with Store.open(f"sqlite:///{tmp_path / 'history.db'}", migrate=True) as db:
        evaluation = assay.evaluate(suite, db=db, progress=False)
    from_evaluation = build_view(evaluation)
    from_run = build_view(evaluation.run)
    assert isinstance(from_evaluation, ReportView)
    assert text_of(from_evaluation) == text_of(from_run)
    cases = from_run.section(CasesSection)
    assert cases is not None and [case.case_id for case in cases.cases] == ["returns", "warranty"]
    summary = from_run.section(SummarySection)
    assert summary is not None and dict(summary.fields)["Pass rate"] == Figure.fraction(1, 2)


def test_something_else_is_refused() -> None:
    with pytest.raises(TypeError, match="cannot build a report view from object"):
        build_view(object())  # type: ignore[arg-type]


def test_an_estimated_sample_carries_the_working_of_its_cost(current_run: Run) -> None:
    refund = current_run.samples[1]
    rate = {"input": 5.0, "output": 30.0, "source": "catalog"}
    priced = dataclasses.replace(refund, metadata={**refund.metadata, "cost_rate": rate})
    run = dataclasses.replace(current_run, samples=(current_run.samples[0], priced))
    cases = build_view(run).section(CasesSection)
    assert cases is not None
    workings = [s.cost_working for case in cases.cases for s in case.samples]
    # Reported costs have no working; an estimate without a readable rate has none either.
    assert workings == [None, "2,328 in × $5.00/M + 423 out × $30.00/M · catalog rate"]
    unreadable = dataclasses.replace(refund, metadata={"cost_rate": {"input": "five"}})
    cases = build_view(dataclasses.replace(run, samples=(unreadable,))).section(CasesSection)
    assert cases is not None
    assert [s.cost_working for case in cases.cases for s in case.samples] == [None]


def _gated_run(passing: int, total: int, minimum: float) -> Run:
    from assay_agents.evaluation import MemoryRunStore
    from assay_agents.spec.gate import Gate

    suite = assay.Suite(
        "gate",
        agent=lambda text, ctx: "ok" if int(text.split()[1]) < passing else "no",
        checks=[checks.contains("ok")],
    )
    for i in range(total):
        suite.case(f"q {i}", id=f"c{i}")
    evaluation = assay.evaluate(
        suite, db=MemoryRunStore(), progress=False, gate=Gate(min_pass_rate=minimum)
    )
    return evaluation.run


def test_every_figure_a_gate_read_stays_on_its_side_of_the_gate() -> None:
    # 139 of 200 is 69.5%: the gate at 70% failed, and no figure of it may read 70%.
    view = build_view(_gated_run(139, 200, 0.7))
    summary = view.section(SummarySection)
    assert summary is not None
    fields = dict(summary.fields)
    assert written(fields["Pass rate"], "text") == "139/200 · 69.5%"
    assert written(fields["Pass rate"], "markdown") == "139/200 (69.5%)"
    assert summary.figures.pass_rate.text == "139/200 · 69.5%"
    assert summary.figures.check_pass_rate.text == "139/200 · 69.5%"
    assert "deterministic pass 69.5%" in written(dict(summary.reliability)["Rates"])
    assert "139/200 (69.5%)" in markdown_of(view)
    assert "139/200 · 69.5%" in text_of(view)


def test_figures_of_a_run_without_a_gate_are_whole() -> None:
    summary = build_view(_gated_run(139, 200, 0.6)).section(SummarySection)
    assert summary is not None
    assert summary.figures.pass_rate.text == "139/200 · 70%"


def test_a_failed_sample_short_of_a_full_score_never_reads_as_one() -> None:
    suite = assay.Suite("thr", agent=lambda text, ctx: "x")
    suite.case(
        "q",
        id="a",
        checks=[checks.custom(lambda a, c: (0.9999, "r"), name="m", threshold=1.0)],
    )
    from assay_agents.evaluation import MemoryRunStore

    run = assay.evaluate(suite, db=MemoryRunStore(), progress=False).run
    cases = build_view(run).section(CasesSection)
    assert cases is not None
    assert cases.cases[0].samples[0].heading.startswith("sample 0 · failed · check score 99.99%")
