"""Reports over a run: text, GitHub Markdown, JSON, JUnit XML and an HTML page, in memory or files.

Every format renders the same typed reading, :class:`ReportView` (header, summary, comparison
with the baseline, per-case evidence), built once by :func:`build_view`; every figure in it is
written by :mod:`assay_agents.report.format`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay_agents.lazy import lazy_attributes

if TYPE_CHECKING:
    from assay_agents.report.formats import FORMATS, ReportFormat, format_for, format_named
    from assay_agents.report.report import Report, render
    from assay_agents.report.view import ReportView, build_view

# Each name loads its module on first use: the terminal summary of `assay-agents run` reads a few
# figures from this package and needs none of the report formats.
_HOMES = {
    "FORMATS": "assay_agents.report.formats",
    "ReportFormat": "assay_agents.report.formats",
    "format_for": "assay_agents.report.formats",
    "format_named": "assay_agents.report.formats",
    "Report": "assay_agents.report.report",
    "render": "assay_agents.report.report",
    "ReportView": "assay_agents.report.view",
    "build_view": "assay_agents.report.view",
}

__all__ = [
    "FORMATS",
    "Report",
    "ReportFormat",
    "ReportView",
    "build_view",
    "format_for",
    "format_named",
    "render",
]


if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__ = lazy_attributes(__name__, _HOMES)
