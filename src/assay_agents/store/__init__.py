"""The history store: every run, case snapshot, sample and metric, in SQLite or PostgreSQL.

SQLAlchemy Core tables and Alembic migrations (shipped in ``migrations/``) stay inside this
package; :class:`Store` takes and returns the domain objects of :mod:`assay_agents.results`.
The default database is the SQLite file ``.assay/assay.db``, created on first use; any other
database is selected by URL and migrated explicitly (``assay-agents db migrate``).

Its names load on first use: :mod:`assay_agents.store.revisions` (``assay-agents --version``) is
read without importing SQLAlchemy.
"""

import typing

from assay_agents.lazy import lazy_attributes as _lazy_attributes
from assay_agents.load.history import discover as find_history

if typing.TYPE_CHECKING:
    from assay_agents.store._urls import DEFAULT_URL, redact
    from assay_agents.store.store import Store

__all__ = ["DEFAULT_URL", "Store", "find_history", "redact"]

__getattr__ = _lazy_attributes(
    __name__,
    {
        "DEFAULT_URL": "assay_agents.store._urls",
        "Store": "assay_agents.store.store",
        "redact": "assay_agents.store._urls",
    },
)
