"""The lifecycle's behaviour holds on every run store: SQLite, PostgreSQL, and in memory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assay_agents.evaluation import MemoryRunStore, RunStore
from assay_agents.store import Store

_SQL = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
#: Modules whose tests are the lifecycle's own guarantees: they run on the memory store too.
_EVERY_STORE = {"test_session", "test_lifecycle_guarantees"}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "store" in metafunc.fixturenames:
        every = metafunc.module.__name__ in _EVERY_STORE
        metafunc.parametrize("store", [*_SQL, "memory"] if every else _SQL, indirect=True)


@pytest.fixture
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunStore]:
    """A fresh store: SQL on each backend, and for the lifecycle's own tests in memory."""
    if request.param == "memory":
        yield MemoryRunStore()
        return
    # A copy of a database migrated once (tests/conftest.py): these tests are not the migrations'.
    url = (
        request.getfixturevalue("migrated_sqlite_file")(tmp_path / "assay.db")
        if request.param == "sqlite"
        else str(request.getfixturevalue("migrated_postgres_url"))
    )
    opened = Store.open(url)
    try:
        yield opened
    finally:
        opened.close()
