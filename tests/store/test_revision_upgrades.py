"""Every schema revision upgrades a history that holds runs, on SQLite and PostgreSQL.

One table names each revision the package ships and what a run stored before it lacks
(the columns it adds). For each revision N, a history is written by today's store and taken
back to N-1 with the migrations' own downgrades, as a history at N-1 holds it; upgrading to N
keeps every row as it was, and upgrading on to the head (``assay-agents db migrate``) reads each run
back equal to what was stored, less what N-1 could not hold. A revision file without a row in
the table fails :func:`test_every_revision_has_an_upgrade_case`.

The first revision has nothing before it: a history written at 0001 with the first
release's own rows is upgraded in ``test_store_upgrade.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, inspect, text
from store_builders import CASES, complete_plan, later, make_run, sample, varied_samples

from assay_agents.results import JudgeUsage, Run, Traces
from assay_agents.results.baseline import BaselineChoice, BaselineReason, RunOutcome
from assay_agents.results.run import Lease, ModelVerdict
from assay_agents.store import Store, _migrate, revisions
from assay_agents.store.revisions import VERSION_TABLE
from commandline import run_in_process

VERSIONS = revisions.MIGRATIONS / "versions"
TRACE = "0af7651916cd43dd8448eb211c80319c"


def _no_lease_or_error(run: Run) -> Run:
    return replace(run, lease=None, error=None)


def _no_verdict(run: Run) -> Run:
    return replace(run, verdict=None, judge_usage=None)


def _no_outcome(run: Run) -> Run:
    return replace(run, outcome=None, baseline_choice=None)


def _no_owner_start(run: Run) -> Run:
    return run if run.lease is None else replace(run, lease=replace(run.lease, started=None))


def _no_traces(run: Run) -> Run:
    return replace(
        run, traces=None, samples=tuple(value.with_traces(None) for value in run.samples)
    )


def _same(run: Run) -> Run:
    return run


@dataclass(frozen=True)
class Step:
    """What one revision adds: a run stored before it, read today, lacks ``lacks``."""

    lacks: Callable[[Run], Run] = _same
    #: Tables it adds (empty in a history upgraded to it).
    tables: tuple[str, ...] = ()


#: Every revision in migrations/versions, in order. Add a row with each new revision.
STEPS: dict[str, Step | None] = {
    "0001": None,  # the first: see test_store_upgrade.py
    "0002": Step(_no_lease_or_error),
    "0003": Step(_no_verdict),
    "0004": Step(_no_outcome, tables=("baseline_pins",)),
    "0005": Step(),  # triggers only
    "0006": Step(_no_owner_start),
    "0007": Step(_no_traces),
    "0008": Step(tables=("call_cache",)),
    "0009": Step(),  # indexes only
    "0010": Step(),  # an index only (faulted samples)
}
UPGRADES = [revision for revision, step in STEPS.items() if step is not None]


def test_every_revision_has_an_upgrade_case() -> None:
    scripts = ScriptDirectory.from_config(_migrate._config())
    files = sorted(path.name for path in VERSIONS.glob("*.py"))
    shipped = {
        re.search(r'^revision(?:: *str)? *= *"([^"]+)"', (VERSIONS / name).read_text(), re.M)
        for name in files
    }
    ids = sorted(match.group(1) for match in shipped if match is not None)
    assert len(ids) == len(files), files
    missing = sorted(set(ids) - set(STEPS))
    assert not missing, f"revision(s) {missing} have no row in STEPS (test_revision_upgrades.py)"
    assert list(STEPS) == ids  # no row for a revision that is not shipped, and in order
    walked = [script.revision for script in scripts.walk_revisions()][::-1]
    assert [revision.id for revision in revisions.shipped()] == walked == ids


def _previous(revision: str) -> str:
    ids = list(STEPS)
    return ids[ids.index(revision) - 1]


def _lacking_from(revision: str) -> Callable[[Run], Run]:
    """What a run stored before ``revision`` lacks at the head: that and every later step."""
    ids = list(STEPS)
    later_steps = [STEPS[each] for each in ids[ids.index(revision) :]]

    def lacking(run: Run) -> Run:
        for step in later_steps:
            assert step is not None
            run = step.lacks(run)
        return run

    return lacking


def _write_history(store: Store) -> list[Run]:
    """Runs using every column: completed, interrupted with its error, running with a lease."""
    owner = Lease("host-a", 4242, "token-a", started="boot-1:12345")
    first = store.create_run(make_run(lease=owner))
    store.save_samples(first.id, varied_samples(), token=owner.token)
    first_done = complete_plan(
        store,
        first.id,
        token=owner.token,
        verdict=ModelVerdict("gpt-4o", "fewer errors", "judge-1"),
        judge_usage=JudgeUsage(calls=1, attempts=2, input_tokens=30, model="judge-1"),
        outcome=RunOutcome.PASSED,
        baseline_choice=BaselineChoice(BaselineReason.NONE, note="the first run"),
        traces=Traces(TRACE),
    )
    store.pin_baseline(first_done.id)
    second = store.create_run(make_run(started_at=later(10), lease=owner))
    store.save_samples(
        second.id, [sample().with_traces(Traces(TRACE, (TRACE,)))], token=owner.token
    )
    store.mark_interrupted(
        second.id, finished_at=later(11), error="store unavailable", token=owner.token
    )
    running = store.create_run(
        make_run(started_at=datetime.now(UTC) - timedelta(minutes=1), cases=CASES[:1], lease=owner)
    )
    store.save_samples(running.id, [sample()], token=owner.token)
    return [store.get_run(run.id) for run in (first_done, second, running)]


def _dump(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    with engine.connect() as connection:
        names = [name for name in inspect(connection).get_table_names() if name != VERSION_TABLE]
        found: dict[str, list[dict[str, Any]]] = {}
        for name in names:
            rows = connection.execute(text(f"SELECT * FROM {name}")).mappings()
            found[name] = sorted((dict(row) for row in rows), key=repr)
        return found


def _projected(after: dict[str, list[dict[str, Any]]], before: dict[str, Any]) -> dict[str, Any]:
    """``after``'s rows of ``before``'s tables, with only the columns those tables had."""
    return {
        name: sorted(({column: row[column] for column in rows[0]} for row in after[name]), key=repr)
        if rows
        else after[name]
        for name, rows in before.items()
    }


@pytest.fixture
def history(store_url: str) -> Iterator[tuple[Engine, list[Run]]]:
    """A history at the head holding runs, on a plain engine the test migrates."""
    engine = create_engine(store_url)
    try:
        with engine.begin() as connection:
            command.upgrade(_migrate._config(connection), "head")
        yield engine, _write_history(Store(store_url, engine))
    finally:
        engine.dispose()


@pytest.mark.parametrize("revision", UPGRADES)
def test_runs_stored_before_a_revision_read_back_equal_after_it(
    revision: str, store_url: str, history: tuple[Engine, list[Run]], tmp_path: Path
) -> None:
    engine, stored = history
    step = STEPS[revision]
    assert step is not None
    with engine.begin() as connection:
        command.downgrade(_migrate._config(connection), _previous(revision))
    before = _dump(engine)
    assert before["runs"] and before["samples"] and before["metrics"]

    with engine.begin() as connection:
        command.upgrade(_migrate._config(connection), revision)
    after = _dump(engine)
    assert _projected(after, before) == before  # every row kept, every value as it was
    for name in step.tables:
        assert after[name] == [], name

    migrated = run_in_process(["db", "migrate", "--db", store_url], tmp_path)
    assert migrated.returncode == 0, migrated.output
    head = revisions.shipped()[-1].id
    if revision != head:
        assert f"from schema revision {revision} to {head}" in migrated.stdout
    lacking = _lacking_from(revision)
    with Store.open(store_url) as store:
        for run in stored:
            assert replace(store.get_run(run.id), number=None) == replace(
                lacking(run), number=None
            ), run.status
        pins = [pin.run_id for pin in store.pins()]
        assert pins == ([] if _previous(revision) < "0004" else [stored[0].id])
