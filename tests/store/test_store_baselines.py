"""Baselines in the store: only passing runs are automatic, metadata restricts them, pins win.

On both backends; the upgrade from 0003 (the revision before baselines) keeps every run and
judges the runs stored before outcomes were kept by their summaries.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from alembic import command
from sqlalchemy import JSON, DateTime, Engine, String, column, create_engine, insert, table, text
from sqlalchemy import update as sql_update
from sqlalchemy.dialects import postgresql
from store_builders import (
    T0,
    complete_plan,
    later,
    make_run,
    metric,
    planned,
    sample,
    varied_samples,
)

from assay_agents.compare.pooling import pool_run
from assay_agents.errors import BaselineError, StoreError
from assay_agents.record import write_summary
from assay_agents.results import (
    GradedSample,
    Run,
    RunSettings,
    RunStatus,
    SampleStatus,
    summarise,
)
from assay_agents.results.baseline import BaselineChoice, BaselineReason, RunOutcome
from assay_agents.results.settings import Selection
from assay_agents.store import Store, _migrate


def _completed(store: Store, outcome: RunOutcome | None = RunOutcome.PASSED, **changes: Any) -> Run:
    run = store.create_run(make_run(**changes))
    return complete_plan(store, run.id, outcome=outcome)


def test_a_baseline_read_for_comparing_has_its_cases_and_its_samples_as_graded(
    store: Store,
) -> None:
    run = store.create_run(make_run())
    # Stored out of report order: reading puts them in it, graded or whole.
    store.save_samples(run.id, list(reversed(planned(run, varied_samples()))))
    whole = complete_plan(store, run.id, outcome=RunOutcome.PASSED)
    whole = store.get_run(whole.id)
    found = store.find_baseline(make_run(), samples=False)
    assert found is not None and found.id == whole.id
    assert found.cases == whole.cases and found.samples == ()
    assert found.summary == whole.summary and found.settings == whole.settings
    graded = list(store.graded_samples(whole.id))
    assert graded == [GradedSample.of(each) for each in whole.samples]
    assert pool_run(graded) == pool_run(whole.samples)
    assert list(pool_run(graded)) == list(pool_run(whole.samples))  # first-seen order too
    store.pin_baseline(whole.id)
    pinned = store.pinned_baseline("support", "bot", samples=False)
    assert pinned is not None and pinned.id == whole.id and pinned.samples == ()
    assert pinned.cases == whole.cases


def test_metrics_stored_alike_read_as_one_value_and_graded_pages_add_up_to_the_run(
    store: Store,
) -> None:
    run = store.create_run(make_run())
    saved = planned(run, varied_samples())
    store.save_samples(run.id, list(reversed(saved)))
    whole = store.get_run(complete_plan(store, run.id, outcome=RunOutcome.PASSED).id)
    assert list(whole.samples) == saved  # each read as stored, shared or not
    alike = [each.metrics[0] for each in whole.samples if each.metrics[:1] == (metric(),)]
    assert len(alike) == 5 and all(each is alike[0] for each in alike)
    graded = list(store.graded_samples(whole.id))
    assert graded == [GradedSample.of(each) for each in saved]
    for size in (1, 2, 3, 5):  # pages of whole cases, never split
        assert list(store.graded_samples(whole.id, size=size)) == graded
    with pytest.raises(StoreError, match="no run 'no-such-run'"):
        store.graded_samples("no-such-run")  # refused when asked, not when first read
    named = store.baseline_run(whole.id)
    assert named.cases == whole.cases and named.samples == () and named.number == whole.number
    with pytest.raises(StoreError, match="no run 'no-such-run'"):
        store.baseline_run("no-such-run")


def test_a_baseline_read_for_comparing_shares_only_the_definitions_defined_exactly_alike(
    store: Store,
) -> None:
    stored = _completed(store)
    refund, cancel = stored.cases
    # As a run about to start would hold them: equal definitions, built anew.
    alike_refund = replace(refund, definition=copy.deepcopy(refund.definition))
    # Same fingerprint, another provenance (stored, never fingerprinted): not shared.
    declared = {**cancel.definition, "provenance": {"input": "recorded"}}
    current = make_run(cases=(alike_refund, replace(cancel, definition=declared)))
    for found in (
        store.find_baseline(current, samples=False, alike=current),
        _pinned(store, stored.id, current),
        store.baseline_run(stored.id[:8], alike=current.cases),  # named by the run
    ):
        assert found is not None and found.cases == stored.cases  # as stored, either way
        by_id = found.cases_by_id()
        assert by_id["refund"].definition is alike_refund.definition
        assert by_id["cancel"].definition == cancel.definition
        assert by_id["cancel"].definition is not declared
    # A definition that reads alike under another fingerprint is not shared either.
    moved = make_run(cases=(replace(alike_refund, fingerprint="fp-other"), cancel))
    found = store.find_baseline(moved, samples=False, alike=moved)
    assert found is not None
    assert found.cases_by_id()["refund"].definition is not alike_refund.definition


def _pinned(store: Store, run_id: str, current: Run) -> Run | None:
    store.pin_baseline(run_id)
    try:
        return store.pinned_baseline("support", "bot", samples=False, alike=current)
    finally:
        store.clear_pin("support", "bot")


@pytest.mark.parametrize("outcome", [RunOutcome.FAILED, RunOutcome.REGRESSED, RunOutcome.ERRORED])
def test_a_run_that_did_not_pass_is_never_the_automatic_baseline(
    store: Store, outcome: RunOutcome
) -> None:
    passing = _completed(store)
    _completed(store, outcome)
    _completed(store, outcome)
    found = store.find_baseline(make_run())
    assert found is not None and found.id == passing.id
    assert found.outcome is RunOutcome.PASSED


def test_a_run_stored_without_an_outcome_passes_when_no_sample_failed_or_errored(
    store: Store,
) -> None:
    passing = _completed(store, None)
    failing = store.create_run(make_run())
    store.save_samples(
        failing.id, planned(failing, [sample("refund", "gpt-4o", 0, status=SampleStatus.FAILED)])
    )
    done = store.complete_run(
        failing.id,
        summary=summarise(
            planned(failing, [sample("refund", "gpt-4o", 0, status=SampleStatus.FAILED)])
        ),
        finished_at=later(1),
    )
    assert done is not None and done.outcome is None
    found = store.find_baseline(make_run())
    assert found is not None and found.id == passing.id


def test_the_outcome_and_the_baseline_choice_are_stored_with_the_run(store: Store) -> None:
    choice = BaselineChoice(BaselineReason.LATEST_PASSING, "run-0", {"branch": "main"})
    run = store.create_run(make_run())
    done = complete_plan(store, run.id, outcome=RunOutcome.REGRESSED, baseline_choice=choice)
    assert done.outcome is RunOutcome.REGRESSED and done.baseline_choice == choice
    assert store.history()[0].baseline_choice == choice


def test_metadata_restricts_the_automatic_baseline(store: Store) -> None:
    on_main = _completed(store, metadata={"branch": "main", "pr": 42, "draft": True})
    _completed(store, metadata={"branch": "feature", "pr": 43})
    _completed(store, metadata={"branch": ["main"]})
    probe = make_run()
    assert store.find_baseline(probe, where={"branch": "main"}).id == on_main.id  # type: ignore[union-attr]
    assert store.find_baseline(probe, where={"pr": "42"}).id == on_main.id  # type: ignore[union-attr]
    assert store.find_baseline(probe, where={"branch": "main", "pr": "43"}) is None
    # A boolean is not text: it matches on neither backend.
    assert store.find_baseline(probe, where={"draft": "true"}) is None
    assert store.find_baseline(probe, where={"missing": "x"}) is None


def test_the_latest_passing_run_is_found_past_many_that_did_not_pass(store: Store) -> None:
    passing = _completed(store, None)
    failed = [sample("refund", "gpt-4o", 0, status=SampleStatus.ERROR, metrics=())]
    for _ in range(60):  # legacy runs: only their summaries say they did not pass
        run = store.create_run(make_run())
        store.save_samples(run.id, planned(run, failed))
        store.complete_run(run.id, summary=summarise(planned(run, failed)), finished_at=later(1))
    found = store.find_baseline(make_run())
    assert found is not None and found.id == passing.id


def test_a_pin_is_kept_per_suite_and_agent_and_can_be_replaced_and_cleared(store: Store) -> None:
    first = _completed(store, RunOutcome.REGRESSED)
    second = _completed(store)
    other = _completed(store, agent="other-bot")
    assert store.pinned_baseline("support", "bot") is None

    pinned, replaced = store.pin_baseline(first.id[:8])
    assert (pinned.id, replaced) == (first.id, None)
    held = store.pinned_baseline("support", "bot")
    assert held is not None and held.id == first.id and held.samples == first.samples
    assert store.pin_baseline(second.id)[1] == first.id
    store.pin_baseline(other.id)
    assert [(pin.suite, pin.agent, pin.run_id) for pin in store.pins()] == [
        ("support", "bot", second.id),
        ("support", "other-bot", other.id),
    ]

    assert store.clear_pin("support", "bot") is True
    assert store.clear_pin("support", "bot") is False
    assert store.pinned_baseline("support", "bot") is None
    assert [pin.agent for pin in store.pins()] == ["other-bot"]


def test_only_a_completed_run_of_a_whole_suite_can_be_pinned(store: Store) -> None:
    running = store.create_run(make_run())
    interrupted = store.create_run(make_run())
    store.mark_interrupted(interrupted.id, finished_at=later(1))
    selection = _completed(
        store,
        settings=RunSettings(
            samples=2, models=("gpt-4o", "claude"), selection=Selection(cases=2, of=3)
        ),
    )
    with pytest.raises(BaselineError, match="is running, not completed"):
        store.pin_baseline(running.id)
    with pytest.raises(BaselineError, match="is interrupted, not completed"):
        store.pin_baseline(interrupted.id)
    with pytest.raises(BaselineError, match="ran a selection"):
        store.pin_baseline(selection.id)
    with pytest.raises(BaselineError, match="cannot pin 'feedbeef': no run"):
        store.pin_baseline("feedbeef")
    assert store.pins() == []


# -- upgrading from 0003 ------------------------------------------------------------------

_JSON = JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")
RUNS_0003 = table(
    "runs",
    column("sequence"),
    column("id", String),
    column("suite", String),
    column("agent", String),
    column("fingerprint", String),
    column("status", String),
    column("started_at", DateTime(timezone=True)),
    column("settings", _JSON),
    column("metadata", _JSON),
    column("summary", _JSON),
    column("links", _JSON),
)


@pytest.fixture
def engine_at_0003(store_url: str) -> Iterator[Engine]:
    engine = create_engine(store_url)
    try:
        with engine.begin() as connection:
            command.upgrade(_migrate._config(connection), "0003")
        yield engine
    finally:
        engine.dispose()


def _old_run(engine: Engine, run_id: str, samples: list[Any]) -> None:
    """A completed run as 0003 stored it: no outcome, no baseline choice (no samples kept)."""
    with engine.begin() as connection:
        connection.execute(
            insert(RUNS_0003).values(
                id=run_id,
                suite="support",
                agent="bot",
                fingerprint="suite-fp-1",
                status="running",
                started_at=T0,
                settings={"samples": 1},
                metadata={},
                links={},
            )
        )
        connection.execute(
            sql_update(RUNS_0003)
            .where(RUNS_0003.c.id == run_id)
            .values(status="completed", summary=write_summary(summarise(samples)))
        )


def test_upgrading_from_0003_keeps_runs_and_judges_old_ones_by_their_summaries(
    store_url: str, engine_at_0003: Engine
) -> None:
    _old_run(engine_at_0003, "old-passed", [sample()])
    _old_run(engine_at_0003, "old-failed", [sample(status=SampleStatus.FAILED)])
    with engine_at_0003.connect() as connection:
        before = connection.execute(text("SELECT id, summary FROM runs ORDER BY sequence")).all()

    with Store.open(store_url, migrate=True) as store:
        with engine_at_0003.connect() as connection:
            after = connection.execute(
                text("SELECT id, summary, outcome, baseline_choice FROM runs ORDER BY sequence")
            ).all()
        assert [tuple(row[:2]) for row in after] == [tuple(row) for row in before]
        assert all(row[2] is None and row[3] is None for row in after)
        found = store.find_baseline(make_run())
        assert found is not None and found.id == "old-passed" and found.outcome is None
        assert store.get_run("old-failed").status is RunStatus.COMPLETED
        store.pin_baseline("old-failed")
        pinned = store.pinned_baseline("support", "bot")
        assert pinned is not None and pinned.id == "old-failed"

    with engine_at_0003.begin() as connection:
        command.downgrade(_migrate._config(connection), "0003")
    with engine_at_0003.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM runs")).scalar_one() == 2
    with Store.open(store_url, migrate=True) as store:
        assert store.pins() == []
        assert store.find_baseline(make_run()).id == "old-passed"  # type: ignore[union-attr]
