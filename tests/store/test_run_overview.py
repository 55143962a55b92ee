"""A run read for a page without its samples says what the run loaded whole says.

The runs list reads the stored summary and two figures of the stored comparison; a run page
reads the summary, the sample facts the store counts, and the samples with a fault. Each is
compared here with the same reading of the whole run, on both backends.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from store_builders import T0, later, make_run, metric, planned, sample

from assay_agents.agent import Usage
from assay_agents.agent.answered import MISMATCH_KEY
from assay_agents.compare import NoiseFloor, StoredComparison, compare_models, compare_runs
from assay_agents.report import Report
from assay_agents.report.view import matrix_cell, matrix_section, view_of, written
from assay_agents.results import Run, RunStatus, SampleResult, SampleStatus, summarise
from assay_agents.results.diagnosed import Diagnosis
from assay_agents.results.pacing import Adjustment, SamplePacing
from assay_agents.results.sample_facts import SampleFacts
from assay_agents.store import Store
from assay_agents.store.browse import LineFigures, RunFilter


def _samples(failing: bool) -> list[SampleResult]:
    run = make_run()
    return planned(
        run,
        [
            sample(
                "refund",
                "gpt-4o",
                1,
                usage=Usage(100, 20, 0.002, "estimated"),
                pacing=SamplePacing(
                    retries=2,
                    waited_s=1.5,
                    adjustments=(Adjustment(T0, "gpt-4o", 8, 4, "rate limited"),),
                ),
            ),
            sample(
                "refund",
                "claude",
                0,
                status=SampleStatus.ERROR,
                answer=None,
                error="agent raised ValueError: boom",
                metrics=(),
                fault="run_error",
                recommendation="Fix the crash.",
                pacing=SamplePacing(retries=1, waited_s=0.5),
            ),
            sample(
                "cancel",
                "claude",
                1,
                status=SampleStatus.ERROR,
                error="answered by another model",
                metrics=(),
                metadata={MISMATCH_KEY: {"asked": "claude", "answered": "gpt-4o"}},
            ),
            sample("cancel", "gpt-4o", 0, status=SampleStatus.NOT_EVALUATED, metrics=()),
            sample(
                "cancel",
                "claude",
                0,
                status=SampleStatus.FAILED if failing else SampleStatus.PASSED,
                metrics=(metric("actions", score=0.0, passed=not failing),),
                fault="expected_tool_not_called" if failing else None,
                recommendation="Call cancel." if failing else None,
                diagnosis=Diagnosis(tools=("cancel",), tools_label="expected tools")
                if failing
                else None,
            ),
        ],
    )


def _stored(store: Store, minute: int, failing: bool, baseline: Run | None = None) -> Run:
    run = make_run(started_at=later(minute))
    store.create_run(run)
    found = _samples(failing)
    store.save_samples(run.id, found)
    whole = replace(run, samples=tuple(found))
    compared = None
    if baseline is not None:
        floor = NoiseFloor(control=("a", "b"), pass_rate=0.1, metrics={"contains": 0.05})
        compared = compare_runs(baseline, whole, noise_floor=floor)
    done = store.complete_run(
        run.id,
        summary=summarise(found),
        finished_at=later(minute) + timedelta(seconds=30),
        comparison=StoredComparison(compared, compare_models(whole)),
        baseline_id=None if baseline is None else baseline.id,
    )
    assert done is not None and done.status is RunStatus.COMPLETED
    return store.get_run(run.id)


def test_a_run_page_reads_what_the_whole_run_reads(store: Store) -> None:
    first = _stored(store, 0, failing=False)
    whole = _stored(store, 5, failing=True, baseline=first)

    overview = store.run_overview(whole.id)
    assert overview.facts == SampleFacts.of(whole.samples)
    assert overview.facts.pacing is not None and overview.facts.pacing.retries == 3
    assert overview.facts.checked is not None and overview.facts.estimated == {"gpt-4o"}
    assert [s.key for s in overview.faulted] == [
        s.key for s in whole.samples if s.fault is not None
    ]
    head = overview.run
    assert head.samples == () and head.summary == whole.summary
    report = Report(whole)
    items = Report(replace(head, samples=overview.faulted)).fix_items
    assert items == report.fix_items and items
    stored = head.comparison
    assert stored is not None and stored.baseline is not None and stored.models is not None
    facts = overview.facts
    quick = view_of(head, stored.baseline, stored.models, items, evidence=False, facts=facts)
    full = view_of(whole, report.comparison, report.model_comparison, items, evidence=False)
    assert quick.sections == full.sections and quick.header == full.header
    assert quick.estimated == full.estimated


def test_a_page_of_cases_counts_each_case_s_samples(store: Store) -> None:
    whole = _stored(store, 0, failing=True)
    first = store.run_overview(whole.id, offset=0, limit=1)
    second = store.run_overview(whole.id, offset=1, limit=1)
    assert first.cases.total == second.cases.total == 2
    assert [c.case_id for c in (*first.cases.cases, *second.cases.cases)] == ["refund", "cancel"]
    cancel = second.cases.cases[0]
    assert cancel.name == "Cancel a subscription"
    assert dict(cancel.statuses) == {"not_evaluated": 1, "failed": 1, "error": 1, "passed": 1}


def test_the_runs_list_says_what_each_stored_summary_and_comparison_say(store: Store) -> None:
    first = _stored(store, 0, failing=False)
    second = _stored(store, 5, failing=True, baseline=first)
    listed = {line.id: line for line in store.runs_page(RunFilter()).runs}
    for whole in (first, second):
        line = listed[whole.id]
        assert whole.summary is not None and whole.comparison is not None
        assert line.figures == LineFigures.of(whole.summary)
        assert line.handle == whole.handle
        compared = whole.comparison.baseline
        if compared is None:
            assert line.regressions is None and line.noise == {}
        else:
            assert line.regressions == compared.regression_count > 0
            floor = compared.policy.noise_floor
            assert floor is not None and line.noise == floor.metrics == {"contains": 0.05}


def test_cases_without_a_snapshot_follow_the_others(store: Store) -> None:
    # Only an open run (or a history written before plans were checked) holds such samples.
    run = make_run()
    store.create_run(run)
    found = [*_samples(failing=False), sample("extra", "gpt-4o", 0)]
    store.save_samples(run.id, found)
    every = store.run_overview(run.id, offset=0, limit=10).cases
    assert [c.case_id for c in every.cases] == ["refund", "cancel", "extra"]
    assert every.total == 3 and dict(every.cases[2].statuses) == {"passed": 1}
    last = store.run_overview(run.id, offset=2, limit=10).cases
    assert [(c.case_id, c.name) for c in last.cases] == [("extra", "extra")]
    whole = store.get_run(run.id)
    assert store.run_overview(run.id).facts == SampleFacts.of(whole.samples)


def _page_matrix(store: Store, run_id: str, per: int) -> tuple[list[str], list[list[str]]]:
    """The case × model matrix as a run page counts it, read ``per`` cases at a time."""
    tallies, columns, offset = [], None, 0
    while True:
        page = store.run_overview(run_id, offset=offset, limit=per).cases
        assert columns is None or page.models == columns  # every page has the run's columns
        columns, offset = page.models, offset + per
        tallies.extend(page.cases)
        if offset >= page.total:
            break
    assert columns is not None
    rows = []
    for tally in tallies:
        cells = [tally.models.get(model) for model in columns]
        rows.append(
            [
                tally.case_id,
                *(
                    matrix_cell(0, 0) if c is None else matrix_cell(c.passed, c.samples, c.faults)
                    for c in cells
                ),
            ]
        )
    return ["case", *(model or "result" for model in columns)], rows


def _report_matrix(whole: Run) -> tuple[list[str], list[list[str]]]:
    section = matrix_section(whole)
    assert section is not None
    table = section.table
    return list(table.headers), [[written(cell) for cell in row] for row in table.rows]


def test_a_page_of_cases_counts_the_report_s_case_by_model_matrix(store: Store) -> None:
    whole = _stored(store, 0, failing=True)
    statuses = {s.status for s in whole.samples}
    assert statuses == set(SampleStatus)  # passed, failed, errors, not evaluated
    assert _page_matrix(store, whole.id, per=1) == _report_matrix(whole)
    assert _page_matrix(store, whole.id, per=100) == _report_matrix(whole)


def test_an_open_run_s_matrix_reads_as_its_samples_show_it(store: Store) -> None:
    # The first case has no sample of the first model yet, faults tie on a cell, and a case
    # has samples but no snapshot: the columns, cells and rows follow the samples.
    run = make_run()
    store.create_run(run)
    faulty = {"status": SampleStatus.FAILED, "metrics": (metric(passed=False, score=0.0),)}
    found = [
        sample("refund", "claude", 1, fault="missing_content", **faulty),
        sample("refund", "claude", 0, fault="expected_tool_not_called", **faulty),
        sample("cancel", "gpt-4o", 0),
        sample("cancel", "claude", 0, status=SampleStatus.NOT_EVALUATED, metrics=()),
        sample("extra", "other", 0, status=SampleStatus.ERROR, error="boom", fault="run_error"),
        sample("extra", "gpt-4o", 1),
    ]
    store.save_samples(run.id, found)
    whole = store.get_run(run.id)
    headers, rows = _report_matrix(whole)
    assert headers == ["case", "claude", "gpt-4o", "other"]
    assert rows[0][1] == "fail 0/2 · expected_tool_not_called"  # the first shown of two
    assert _page_matrix(store, run.id, per=2) == (headers, rows)
