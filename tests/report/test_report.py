"""Report.export and render: format by extension or name, errors before writing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import assay_agents.report
from assay_agents.errors import ConfigurationError
from assay_agents.report import FORMATS, Report, render
from assay_agents.results import Run


def test_public_surface() -> None:
    assert assay_agents.report.__all__ == sorted(assay_agents.report.__all__)
    assert {"FORMATS", "Report", "render"} <= set(assay_agents.report.__all__)
    assert FORMATS == ("text", "markdown", "json", "junit", "html")


@pytest.mark.parametrize(
    ("name", "starts"),
    [
        ("report.txt", "Assay report:"),
        ("report.text", "Assay report:"),
        ("report.md", "# Assay report:"),
        ("report.markdown", "# Assay report:"),
        ("REPORT.MD", "# Assay report:"),
        ("report.json", "{"),
    ],
)
def test_export_picks_format_by_extension(
    tmp_path: Path, current_run: Run, name: str, starts: str
) -> None:
    written = Report(current_run).export(tmp_path / name)
    assert written == tmp_path / name
    content = written.read_text(encoding="utf-8")
    assert content.startswith(starts)
    assert content.endswith("\n")


def test_export_json_round_trips(tmp_path: Path, current_run: Run, baseline_run: Run) -> None:
    report = Report(current_run, baseline=baseline_run)
    written = report.export(str(tmp_path / "run.json"))
    assert isinstance(written, Path)
    assert json.loads(written.read_text(encoding="utf-8")) == json.loads(report.to_json())


@pytest.mark.parametrize("name", ["report.xhtml", "report.pdf", "report"])
def test_unknown_extension_raises_before_writing(
    tmp_path: Path, current_run: Run, name: str
) -> None:
    target = tmp_path / "out" / name
    with pytest.raises(ConfigurationError) as caught:
        Report(current_run).export(target)
    message = str(caught.value)
    assert str(target) in message
    assert ".md" in message and ".json" in message and "markdown" in message
    assert not target.exists()
    assert not target.parent.exists()


def test_unknown_format_raises_before_writing(tmp_path: Path, current_run: Run) -> None:
    target = tmp_path / "report.md"
    with pytest.raises(ConfigurationError, match=r"unknown report format 'pdf'.*text"):
        Report(current_run).export(target, format="pdf")
    assert not target.exists()


@pytest.mark.parametrize(
    ("format", "starts"),
    [
        ("json", "{"),
        ("markdown", "# Assay"),
        ("md", "# Assay"),
        ("txt", "Assay"),
        ("text", "Assay"),
        ("JSON", "{"),
    ],
)
def test_explicit_format_overrides_extension(
    tmp_path: Path, current_run: Run, format: str, starts: str
) -> None:
    written = Report(current_run).export(tmp_path / "agent-report.html", format=format)
    assert written.read_text(encoding="utf-8").startswith(starts)


def test_export_creates_no_folder(tmp_path: Path, current_run: Run) -> None:
    target = tmp_path / "a" / "b" / "report.md"
    with pytest.raises(ConfigurationError, match="does not exist"):
        Report(current_run).export(target)
    assert not (tmp_path / "a").exists()


def test_a_file_in_the_way_of_the_folder_is_named(tmp_path: Path, current_run: Run) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="is not a folder"):
        Report(current_run).export(blocker / "report.md")


def test_export_writes_utf8(tmp_path: Path, current_run: Run) -> None:
    content = Report(current_run).export(tmp_path / "r.txt").read_bytes().decode("utf-8")
    assert "tokens \N{MULTIPLICATION SIGN} model rates" in content


def test_render_matches_the_report(current_run: Run, baseline_run: Run) -> None:
    report = Report(current_run, baseline=baseline_run, tolerance=0.01)
    assert render(current_run, "text", baseline=baseline_run, tolerance=0.01) == report.to_text()
    assert render(current_run, "md", baseline=baseline_run, tolerance=0.01) == report.to_markdown()
    assert render(current_run, "json", baseline=baseline_run, tolerance=0.01) == report.to_json()
    with pytest.raises(ConfigurationError, match="accepted formats: text \\(txt\\)"):
        render(current_run, "pdf")
