"""Rows go in through one compiled statement, stored as SQLAlchemy's insert stores it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import Connection, insert, select
from store_builders import T0, make_run, varied_samples

from assay_agents.errors import StoreError
from assay_agents.store import Store
from assay_agents.store._bulk import BulkInserts
from assay_agents.store._rows import sample_rows
from assay_agents.store._tables import metrics, run_cases, samples

#: What the driver gives back for every stored column but the generated keys.
_SAMPLE_COLUMNS = [column.name for column in samples.c if column.name not in ("id", "run")]
_METRIC_COLUMNS = [column.name for column in metrics.c if column.name != "sample"]


def _stored(connection: Connection, sequence: int) -> tuple[list[Any], list[Any]]:
    """The raw values the driver reads back (text for SQLite's JSON and timestamps)."""
    sample_rows_read = connection.exec_driver_sql(
        f"SELECT {', '.join(_SAMPLE_COLUMNS)}, id FROM samples WHERE run = {sequence} "
        "ORDER BY case_id, model, sample"
    ).all()
    metric_rows_read = []
    for row in sample_rows_read:
        metric_rows_read.append(
            connection.exec_driver_sql(
                f"SELECT {', '.join(_METRIC_COLUMNS)} FROM metrics "
                f"WHERE sample = '{row[-1]}' ORDER BY position"
            ).all()
        )
    return [tuple(row[:-1]) for row in sample_rows_read], metric_rows_read


def test_rows_stored_through_the_bulk_path_equal_those_of_sqlalchemys_insert(
    store: Store,
) -> None:
    # Two runs take the same samples: one through each path; every stored value must match,
    # byte for byte as the driver reads it (JSON text, timestamps, booleans, NULLs).
    bulk_run = store.create_run(make_run())
    plain_run = store.create_run(make_run())
    assert bulk_run.sequence is not None and plain_run.sequence is not None
    batch = varied_samples()
    engine = store._engine
    with engine.begin() as connection:
        bulk_samples, bulk_metrics = sample_rows(bulk_run.sequence, batch, T0)
        inserts = BulkInserts()
        inserts.insert(connection, samples, bulk_samples)
        inserts.insert(connection, metrics, bulk_metrics)
        plain_samples, plain_metrics = sample_rows(plain_run.sequence, batch, T0)
        connection.execute(insert(samples), plain_samples)
        connection.execute(insert(metrics), plain_metrics)
    with engine.connect() as connection:
        bulk = _stored(connection, bulk_run.sequence)
        plain = _stored(connection, plain_run.sequence)
    assert len(bulk[0]) == len(batch)
    assert sum(len(rows) for rows in bulk[1]) == sum(len(each.metrics) for each in batch)
    assert bulk == plain


def test_the_run_reads_back_what_the_bulk_path_stored(store: Store) -> None:
    run = store.create_run(make_run())
    batch = varied_samples()
    store.save_samples(run.id, batch)
    stored = store.get_run(run.id).samples
    assert sorted(stored, key=_key) == sorted(batch, key=_key)


def test_case_snapshots_go_in_through_the_bulk_path(store: Store) -> None:
    run = store.create_run(make_run())
    with store._engine.connect() as connection:
        names = connection.execute(
            select(run_cases.c.case_id).where(run_cases.c.run == run.sequence)
        ).scalars()
        assert sorted(names) == sorted(case.case_id for case in run.cases)
    assert store.get_run(run.id).cases == run.cases


def _key(sample: Any) -> tuple[str, str, int]:
    return (sample.case_id, sample.model or "", sample.sample)


def test_a_value_its_column_cannot_store_is_a_store_error_and_nothing_is_stored(
    store: Store,
) -> None:
    run = store.create_run(make_run())
    unstorable = varied_samples()[:1]
    unstorable = [replace(unstorable[0], metadata={"seen": {1, 2}})]  # a set is not JSON
    with pytest.raises(StoreError, match="save samples") as refused:
        store.save_samples(run.id, unstorable)
    assert not refused.value.transient
    assert store.get_run(run.id).samples == ()
