"""The stored record of a run, and the one codec that writes and reads it.

What a run stores (its settings, summary, comparison, judge usage, ...) is a set of frozen
types in :mod:`assay_agents.results`; this package is the only way the store,
the archive reader and the JSON report turn them into JSON and back. Reading checks every
field against its type and reports the first that does not fit with its path
(:class:`RecordError`), reads ``schema_version`` and upgrades the forms older versions wrote,
and ignores keys a newer version added.
"""

from assay_agents.record._typed import RecordError, read, write
from assay_agents.record.comparison import read_comparison, write_comparison
from assay_agents.record.rebuild import rebuilt_cases, rebuilt_judge
from assay_agents.record.run import (
    RunRecord,
    read_run_record,
    read_sample,
    read_settings,
    snapshot,
    write_settings,
)
from assay_agents.record.summary import read_summary, write_summary

__all__ = [
    "RecordError",
    "RunRecord",
    "read",
    "read_comparison",
    "read_run_record",
    "read_sample",
    "read_settings",
    "read_summary",
    "rebuilt_cases",
    "rebuilt_judge",
    "snapshot",
    "write",
    "write_comparison",
    "write_settings",
    "write_summary",
]
