"""Where the embedded history lives: the nearest ``.assay/`` upwards, like git's ``.git``.

A project keeps one history however deep in it a command runs. Only a run creates a new
``.assay/`` (when none exists above: at the project root, the folder of the project
configuration, else in the working directory); reading commands never create a database.
Neither finds nor creates one in or above a folder that another user could have written into
(see :mod:`assay_agents.trust`): a planted history would decide the baselines. The same holds for
the ``.assay/`` folder found and its database file: if another user could replace either,
the history is refused rather than read.
"""

from __future__ import annotations

from pathlib import Path

from assay_agents.errors import ConfigurationError

FOLDER = ".assay"
FILE = "assay.db"


def discover(start: Path | None = None) -> Path | None:
    """The database file of the nearest ``.assay/`` folder from ``start`` upwards, if any."""
    from assay_agents.trust import trusted_folders

    for candidate in trusted_folders((start or Path.cwd()).resolve(), _history_in):
        if (candidate / FOLDER).is_dir():
            _refuse_replaceable(candidate / FOLDER)
            return candidate / FOLDER / FILE
    return None


def _refuse_replaceable(history: Path) -> None:
    """A history whose folder or file another user could swap is not trusted to decide."""
    from assay_agents.trust import distrust

    for path in (history, history / FILE):
        reason = distrust(path)
        if reason is not None:
            raise ConfigurationError(
                f"refusing the Assay history {path}: it {reason}, so another user could "
                "have replaced it; make it yours and not writable by others (chmod go-w), "
                "or give --db / ASSAY_DATABASE_URL"
            )


def _history_in(folder: Path) -> Path | None:
    history = folder / FOLDER
    return history if history.is_dir() else None


def embedded_url(*, create: bool, start: Path | None = None, root: Path | None = None) -> str:
    """The URL of the embedded SQLite history; with ``create``, a new one when none exists.

    The new one is made at ``root`` (the project's, where its configuration is) when given,
    else here: a run from a subfolder must not start a second history beside the project's.
    Without ``create`` and with no ``.assay/`` found, :class:`ConfigurationError` says where
    it looked and how a history is started.
    """
    found = discover(start)
    if found is None:
        here = (start or Path.cwd()).resolve()
        if not create:
            raise ConfigurationError(
                f"no Assay history here: no {FOLDER}/ folder in {here} or above; `assay-agents "
                "run` "
                "starts one, or give --db / ASSAY_DATABASE_URL"
            )
        home = here if root is None else root.resolve()
        _refuse_shared(home)
        found = home / FOLDER / FILE
    return f"sqlite:///{found}"


def _refuse_shared(here: Path) -> None:
    """A new history is never started where another user could replace or read it."""
    from assay_agents.trust import distrust

    reason = distrust(here)
    if reason is not None:
        raise ConfigurationError(
            f"no Assay history is kept in {here}: it {reason}, so another user could plant "
            "or replace one; run from a folder of your own, or give --db / ASSAY_DATABASE_URL"
        )
