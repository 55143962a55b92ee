"""The history store: every run, case snapshot, sample and metric, in SQLite or PostgreSQL.

SQLAlchemy Core tables and Alembic migrations (shipped in ``migrations/``) stay inside this
package; :class:`Store` takes and returns the domain objects of :mod:`assay.results`.
The default database is the SQLite file ``.assay/assay.db``, created on first use; any other
database is selected by URL and migrated explicitly (``assay db migrate``).
"""

from assay.load.history import discover as find_history
from assay.store._urls import DEFAULT_URL, redact
from assay.store.store import Store

__all__ = ["DEFAULT_URL", "Store", "find_history", "redact"]
