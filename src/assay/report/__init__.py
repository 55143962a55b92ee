"""Reports over a run: plain text, GitHub Markdown and JSON, in memory or written to files.

Every format carries the same reading in the same order (header, summary, comparison with the
baseline, per-case evidence), and every figure is written by :mod:`assay.report.format`.
"""

from assay.report.formats import FORMATS, ReportFormat, format_for, format_named
from assay.report.report import Report, render

__all__ = ["FORMATS", "Report", "ReportFormat", "format_for", "format_named", "render"]
