"""Where the embedded history lives: the nearest ``.assay/`` upwards, like git's ``.git``.

A project keeps one history however deep in it a command runs. Only a run creates a new
``.assay/`` (in the working directory, when none exists above); reading commands never
create a database.
"""

from __future__ import annotations

from pathlib import Path

from assay.errors import ConfigurationError

FOLDER = ".assay"
FILE = "assay.db"


def discover(start: Path | None = None) -> Path | None:
    """The database file of the nearest ``.assay/`` folder from ``start`` upwards, if any."""
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / FOLDER).is_dir():
            return candidate / FOLDER / FILE
    return None


def embedded_url(*, create: bool, start: Path | None = None) -> str:
    """The URL of the embedded SQLite history; with ``create``, a new one here when none exists.

    Without ``create`` and with no ``.assay/`` found, :class:`ConfigurationError` says where
    it looked and how a history is started.
    """
    found = discover(start)
    if found is None:
        here = (start or Path.cwd()).resolve()
        if not create:
            raise ConfigurationError(
                f"no Assay history here: no {FOLDER}/ folder in {here} or above; `assay run` "
                "starts one, or give --db / ASSAY_DATABASE_URL")
        found = here / FOLDER / FILE
    return f"sqlite:///{found}"
