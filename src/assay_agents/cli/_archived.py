"""A run named on the command line: a stored run's id, or a JSON report file archived by CI."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay_agents.results import Run


def is_report_file(ref: str) -> bool:
    """Whether ``ref`` names a JSON report file rather than a run: it ends in ``.json``.

    Run ids never do, so ``old.json`` that does not exist is a missing file, not a run.
    """
    return ref.lower().endswith(".json")


def read_reports(*refs: str) -> dict[str, Run]:
    """The runs of those ``refs`` that are report files, read and checked, by reference."""
    from assay_agents.report.archive import read_report

    return {ref: read_report(ref) for ref in refs if is_report_file(ref)}


def needs_store(refs: Sequence[str], files: dict[str, Run], db: str | None) -> bool:
    """Whether a database must be opened: a run is named by id, or one was asked for.

    Files alone need none, so a CI job compares two archived reports with no history; a
    database given by ``--db`` or ``ASSAY_DATABASE_URL`` still supplies the noise floor.
    """
    named_by_id = any(ref not in files for ref in refs)
    return named_by_id or bool(db or os.environ.get("ASSAY_DATABASE_URL"))
