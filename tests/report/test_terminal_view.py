"""The terminal summary renders the report view: the same figures, no reading of its own."""

from __future__ import annotations

import ast
from pathlib import Path

from rich.console import Console

from assay_agents.cli._render import render_view
from assay_agents.report import Report
from assay_agents.report.view import ComparisonSection, SummarySection
from assay_agents.results import Run

RENDER = Path(__file__).resolve().parents[2] / "src" / "assay_agents" / "cli" / "_render.py"


def test_the_terminal_imports_no_private_report_module() -> None:
    tree = ast.parse(RENDER.read_text(encoding="utf-8"))
    imported = {
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("assay_agents.report")
        for alias in node.names
    }
    assert imported and not [name for name in imported if "._" in name]


def test_the_terminal_prints_the_view_figures(baseline_run: Run, current_run: Run) -> None:
    view = Report(current_run, baseline=baseline_run).view()
    console = Console(record=True, width=200, color_system=None)
    render_view(console, view)
    printed = console.export_text()
    summary = view.section(SummarySection)
    compared = view.section(ComparisonSection)
    assert summary is not None and compared is not None
    figures = summary.figures
    assert f"Passed {figures.pass_rate.text} of evaluated samples" in printed
    assert f"check score {figures.check_score.text}" in printed
    assert f"p95 {figures.latency_p95.text}" in printed
    assert compared.pairing in printed
