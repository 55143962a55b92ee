"""Reports over a run: plain text, GitHub Markdown and JSON, in memory or written to files.

Every format carries the same reading in the same order (header, summary, comparison with the
baseline, per-case evidence), and every figure is written by :mod:`assay.report.format`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_attributes

if TYPE_CHECKING:
    from assay.report.formats import FORMATS, ReportFormat, format_for, format_named
    from assay.report.report import Report, render

# Each name loads its module on first use: the terminal summary of `assay run` reads a few
# figures from this package and needs none of the report formats.
_HOMES = {
    "FORMATS": "assay.report.formats",
    "ReportFormat": "assay.report.formats",
    "format_for": "assay.report.formats",
    "format_named": "assay.report.formats",
    "Report": "assay.report.report",
    "render": "assay.report.report",
}

__all__ = ["FORMATS", "Report", "ReportFormat", "format_for", "format_named", "render"]


if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__ = lazy_attributes(__name__, _HOMES)
