"""Runs are numbered within their suite's history, oldest first, and named by ``suite#n``."""

import pytest

import assay_agents as assay
from assay_agents.errors import StoreError


def answer(text, ctx):
    return "ok"


def suite(name):
    made = assay.Suite(name, agent=answer)
    made.case("q", checks=[assay.checks.contains("ok")])
    return made


def interleaved(db):
    """Runs of two suites, taken in turns: desk, desk, trip, desk, trip."""
    runs = [
        assay.run(suite(name), db=db, progress=False)
        for name in ("desk", "desk", "trip", "desk", "trip")
    ]
    # A run knows its number as soon as it is stored.
    assert [run.handle for run in runs] == ["desk#1", "desk#2", "trip#1", "desk#3", "trip#2"]
    return [run.id for run in runs]


@pytest.fixture(params=["sql", "memory"])
def db(request, store):
    return store if request.param == "sql" else assay.MemoryRunStore()


def test_numbers_count_each_suites_runs_oldest_first(db):
    ids = interleaved(db)
    assert [run.number for run in db.history(suite="desk")] == [3, 2, 1]
    assert [(run.suite, run.number) for run in db.history(limit=5)] == [
        ("trip", 2),
        ("desk", 3),
        ("trip", 1),
        ("desk", 2),
        ("desk", 1),
    ]
    second = db.get_run("desk#2")
    assert second.id == ids[1] and second.number == 2 and second.handle == "desk#2"
    assert db.get_run(ids[4]).handle == "trip#2"


def test_a_number_past_the_history_names_what_there_is(db):
    interleaved(db)
    with pytest.raises(StoreError, match=r"no run desk#4: suite 'desk' has runs #1 to #3"):
        db.get_run("desk#4")
    with pytest.raises(StoreError, match="no runs of suite 'nosuch' are stored"):
        db.get_run("nosuch#1")
    with pytest.raises(StoreError, match="desk#0"):
        db.get_run("desk#0")
    huge = "desk#" + "9" * 23  # past any integer column: not found, never a driver's error
    with pytest.raises(StoreError, match=f"no run {huge}: suite 'desk' has runs #1 to #3"):
        db.get_run(huge)
