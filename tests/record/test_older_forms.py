"""Every history and JSON report an earlier version wrote still reads, in every command."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app

FIXTURES = Path(__file__).parents[1] / "fixtures" / "records"
VERSIONS = sorted(path.name for path in FIXTURES.iterdir() if path.is_dir())


def _assay(*args: str) -> str:
    done = CliRunner().invoke(app, list(args))
    assert done.exit_code == 0, (args, done.output)
    return done.output


@pytest.fixture(params=VERSIONS)
def older(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path, list[str]]:
    """A copy of an earlier version's history, migrated, with its runs' ids, oldest first."""
    source = FIXTURES / request.param
    path = tmp_path / "history.db"
    shutil.copy(source / "history.db", path)
    shutil.copy(source / "report.json", tmp_path / "report.json")
    url = f"sqlite:///{path}"
    _assay("db", "migrate", "--db", url)
    with sqlite3.connect(path) as connection:
        ids = [row[0] for row in connection.execute("SELECT id FROM runs ORDER BY sequence")]
    return url, tmp_path, ids


def test_the_history_reads_in_every_command(older: tuple[str, Path, list[str]]) -> None:
    url, folder, (first, second) = older
    assert second[:8] in _assay("history", "--db", url)
    assert "returns" in _assay("report", second, "--db", url)
    _assay("report", second, "--db", url, "--format", "markdown")
    _assay("compare", first, second, "--db", url)
    _assay("report", second, "--db", url, "--format", "json", "-o", str(folder / "again.json"))
    # What this version writes from the older history reads back as a run.
    fresh = f"sqlite:///{folder / 'fresh.db'}"
    _assay("db", "migrate", "--db", fresh)
    _assay("import", str(folder / "again.json"), "--db", fresh)
    assert "returns" in _assay("report", second, "--db", fresh)


def test_the_json_report_reads_in_every_command(older: tuple[str, Path, list[str]]) -> None:
    url, folder, (first, second) = older
    report = str(folder / "report.json")
    _assay("compare", report, report)
    _assay("report", first, "--db", url, "--baseline", report)
    fresh = f"sqlite:///{folder / 'fresh.db'}"
    _assay("db", "migrate", "--db", fresh)
    _assay("import", report, "--db", fresh)
    assert second[:8] in _assay("history", "--db", fresh)
    assert "returns" in _assay("report", second, "--db", fresh)


def test_a_report_missing_a_counted_name_is_refused_naming_it(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / VERSIONS[-1] / "report.json").read_text())
    del data["summary"]["failing_by_category"]["content"]
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    done = CliRunner().invoke(app, ["compare", str(path), str(path)])
    assert done.exit_code == 2, done.output
    assert "summary.failing_by_category.content: missing, but the run's samples give 0" in (
        done.output
    )
