"""Alembic environment for the Assay history schema.

Run programmatically (see ``assay_agents.store._migrate``): the caller opens the connection and
hands it over in ``config.attributes["connection"]``; there is no ``alembic.ini`` and no offline
mode.
"""

from __future__ import annotations

from alembic import context

from assay_agents.store._tables import VERSION_TABLE, metadata


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("assay migrations need a connection in config.attributes")
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        # SQLite alters tables by copying them; batch mode makes later migrations portable.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise RuntimeError("assay migrations run online only: use `assay-agents db migrate`")
run_migrations_online()
