"""The history store: every run, case snapshot, sample and metric, in SQLite or PostgreSQL.

SQLAlchemy Core tables and Alembic migrations (shipped in ``migrations/``) stay inside this
package; :class:`Store` takes and returns the domain objects of :mod:`assay.results`.
The default database is the SQLite file ``.assay/assay.db``, created on first use; any other
database is selected by URL and migrated explicitly (``assay db migrate``).

Its names load on first use: :mod:`assay.store.revisions` (``assay --version``) is read
without importing SQLAlchemy.
"""

import typing

from assay.lazy import lazy_attributes as _lazy_attributes
from assay.load.history import discover as find_history

if typing.TYPE_CHECKING:
    from assay.store._urls import DEFAULT_URL, redact
    from assay.store.store import Store

__all__ = ["DEFAULT_URL", "Store", "find_history", "redact"]

__getattr__ = _lazy_attributes(
    __name__,
    {
        "DEFAULT_URL": "assay.store._urls",
        "Store": "assay.store.store",
        "redact": "assay.store._urls",
    },
)
