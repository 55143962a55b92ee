"""Reading history: newest first, filters, latest run, baselines and run references."""

from __future__ import annotations

from dataclasses import replace

import pytest
from store_builders import complete_plan, later, make_run, planned, planned_keys, sample

from assay_agents.errors import StoreError
from assay_agents.results import Run, RunSettings, RunStatus, summarise
from assay_agents.store import Store


def _completed(store: Store, **changes: object) -> Run:
    run = store.create_run(make_run(**changes))
    store.save_samples(run.id, [sample()])
    return complete_plan(store, run.id, finished_at=later(1))


def test_history_is_newest_first_with_summaries_but_no_samples(store: Store) -> None:
    first = _completed(store)
    second = store.create_run(make_run())
    third = _completed(store)

    history = store.history()
    assert [run.id for run in history] == [third.id, second.id, first.id]
    assert history[0].summary == summarise(planned(make_run()))
    assert history[1].summary is None
    assert all(run.samples == () and run.cases == () for run in history)
    assert history[0].settings == third.settings


def test_history_filters_and_limits(store: Store) -> None:
    ids: dict[tuple[str, str], list[str]] = {}
    for suite, agent in [
        ("support", "bot"),
        ("billing", "bot"),
        ("support", "other"),
        ("support", "bot"),
        ("support", "bot"),
    ]:
        ids.setdefault((suite, agent), []).append(
            store.create_run(make_run(suite=suite, agent=agent)).id
        )

    assert [r.id for r in store.history(suite="billing")] == ids["billing", "bot"]
    assert [r.id for r in store.history(agent="other")] == ids["support", "other"]
    both = store.history(suite="support", agent="bot")
    assert [r.id for r in both] == ids["support", "bot"][::-1]
    assert [r.id for r in store.history(suite="support", agent="bot", limit=2)] == ids[
        "support", "bot"
    ][:0:-1]
    assert len(store.history(limit=3)) == 3
    assert store.history(suite="nothing") == []


def test_latest_run_is_the_highest_sequence_of_any_status(store: Store) -> None:
    assert store.latest_run() is None
    _completed(store)
    other = _completed(store, suite="billing")
    running = store.create_run(make_run())
    store.save_samples(running.id, [sample()])

    latest = store.latest_run()
    assert latest is not None
    assert latest.id == running.id
    assert latest.status is RunStatus.RUNNING
    assert [s.key for s in latest.samples] == [sample().key]
    latest_billing = store.latest_run(suite="billing")
    assert latest_billing is not None and latest_billing.id == other.id
    assert store.latest_run(suite="nothing") is None


def test_find_baseline_picks_the_latest_earlier_completed_run_of_suite_and_agent(
    store: Store,
) -> None:
    _completed(store)  # older: superseded by the next ones
    _completed(store)
    # Another definition of the same suite and agent is a baseline: items pair by their
    # own fingerprints, so a grown suite keeps its gate.
    expected = _completed(store, fingerprint="suite-fp-2")
    _completed(store, agent="other-bot")  # another agent
    _completed(store, suite="billing")  # another suite
    store.mark_interrupted(store.create_run(make_run()).id, finished_at=later(1))
    store.create_run(make_run())  # still running
    current = store.create_run(make_run())
    _completed(store)  # completed later: from the future, never a baseline

    baseline = store.find_baseline(current)
    assert baseline is not None
    assert baseline.id == expected.id
    assert [s.key for s in baseline.samples] == planned_keys(make_run())
    assert len(baseline.cases) == 2


def test_find_baseline_is_none_without_a_run_of_the_suite_and_agent(store: Store) -> None:
    _completed(store, agent="other-bot")
    _completed(store, suite="billing")
    current = store.create_run(make_run())
    assert store.find_baseline(current) is None


JUDGED = RunSettings(samples=2, models=("gpt-4o", "claude"))


def test_find_baseline_with_the_same_judge_skips_runs_graded_elsewhere(store: Store) -> None:
    graded = _completed(store, settings=replace(JUDGED, judge="j @ a.example"))
    _completed(store, settings=replace(JUDGED, judge="j @ b.example"))
    _completed(store, settings=replace(JUDGED, judge=None))
    current = store.create_run(
        make_run(settings=RunSettings(samples=1, models=(), judge="j @ a.example"))
    )
    found = store.find_baseline(current, same_judge=True)
    assert found is not None and found.id == graded.id
    unjudged = store.create_run(make_run(settings=replace(JUDGED, judge=None)))
    found = store.find_baseline(unjudged, same_judge=True)
    assert found is not None and found.settings.judge is None
    assert store.find_baseline(current).id != graded.id  # without the rule: the latest


def test_find_baseline_of_an_unsaved_run_looks_at_all_completed_runs(store: Store) -> None:
    store.create_run(make_run())
    expected = _completed(store)
    baseline = store.find_baseline(make_run())
    assert baseline is not None and baseline.id == expected.id


def test_get_run_by_unique_prefix(store: Store) -> None:
    run = store.create_run(make_run(id="5f2a9c1e-aaaa-4000-8000-000000000001"))
    store.create_run(make_run(id="5f2b0000-aaaa-4000-8000-000000000002"))
    assert store.get_run("5f2a").id == run.id
    assert store.get_run(run.id).id == run.id


def test_get_run_with_an_ambiguous_prefix_lists_candidates(store: Store) -> None:
    first = store.create_run(make_run(id="abcd1111-0000-4000-8000-000000000001"))
    second = store.create_run(make_run(id="abcd2222-0000-4000-8000-000000000002"))
    with pytest.raises(StoreError, match="ambiguous") as raised:
        store.get_run("abcd")
    assert first.id in str(raised.value) and second.id in str(raised.value)


def test_get_run_refuses_short_and_unknown_references(store: Store) -> None:
    store.create_run(make_run(id="abcd1111-0000-4000-8000-000000000001"))
    with pytest.raises(StoreError, match="at least 4"):
        store.get_run("abc")
    with pytest.raises(StoreError, match="no run"):
        store.get_run("ffff")
    with pytest.raises(StoreError, match="no run"):
        store.get_run("abc%")  # LIKE wildcards are matched literally
