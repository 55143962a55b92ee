"""Fixtures shared by the store tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, create_engine

from assay_agents.store import Store


@pytest.fixture
def raw_engine(store: Store) -> Iterator[Engine]:
    """A plain SQLAlchemy engine on the store's database, bypassing the store's checks.

    Tests use it to do what time or another program would: age a heartbeat, try raw SQL.
    """
    engine = create_engine(store.url)
    try:
        yield engine
    finally:
        engine.dispose()
