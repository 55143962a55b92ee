"""Report formats other packages install through the ``assay.report_formats`` entry points.

A real distribution is laid out on ``sys.path`` (a package and its ``.dist-info`` with an
``entry_points.txt``), exactly what an installer leaves behind, and found by
``importlib.metadata`` as any installed package is.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.errors import ConfigurationError
from assay_agents.report import Report, format_named
from assay_agents.report.formats import format_names
from assay_agents.results import Run

PLUGIN = """
from assay_agents.report import ReportFormat

IMPORTS = []


def render(view):
    IMPORTS.append("render")
    return f"SHOUT {view.header.title.upper()}\\n"


def raw(view):
    return view.header.title + "\\n"


def crash(view):
    raise ValueError("the template is missing")


def comparison(section):
    return f"LOUD {section.pairing}\\n"


LOUD = ReportFormat("loud", render, (".loud",), (), comparison)
"""

ENTRY_POINTS = """
[assay.report_formats]
shout = assay_shout:render
loud = assay_shout:LOUD
crashing = assay_shout:crash
raw = assay_shout:raw
broken = assay_shout_missing:render
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A directory holding the package ``assay_shout`` 1.0, as an installer leaves it."""
    root = tmp_path / "site"
    (root / "assay_shout").mkdir(parents=True)
    (root / "assay_shout" / "__init__.py").write_text(PLUGIN, encoding="utf-8")
    info = root / "assay_shout-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: assay-shout\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return root


@pytest.fixture
def installed(site: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(site))
    return site


def test_an_installed_format_is_listed_without_being_imported(installed: Path) -> None:
    sys.modules.pop("assay_shout", None)
    assert {"shout", "loud", "crashing", "broken"} <= set(format_names())
    assert "assay_shout" not in sys.modules


def test_a_report_renders_in_an_installed_format(installed: Path, current_run: Run) -> None:
    assert Report(current_run).render("shout") == "SHOUT CUSTOMER SUPPORT · SUPPORTAGENT\n"
    assert format_named("loud").origin == "assay-shout 1.0, assay_shout:LOUD"


def test_what_an_installed_format_writes_is_neutralised(installed: Path, current_run: Run) -> None:
    hostile = replace(current_run, suite="Support\x1b]0;pwned\x07\u202e")
    assert Report(hostile).render("raw") == "Support\\x1b]0;pwned\\x07\\u202e · SupportAgent\n"


def test_an_unknown_format_names_the_installed_ones(installed: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"accepted formats: .*json, .*shout"):
        format_named("pdf")


def test_a_format_that_cannot_be_imported_is_named(installed: Path) -> None:
    with pytest.raises(ConfigurationError) as raised:
        format_named("broken")
    message = str(raised.value)
    assert "report format 'broken' (from assay-shout 1.0, assay_shout_missing:render)" in message
    assert "could not be loaded: ModuleNotFoundError" in message


def test_a_format_whose_renderer_fails_is_named(installed: Path, current_run: Run) -> None:
    with pytest.raises(ConfigurationError, match=r"'crashing' .*failed: ValueError: the template"):
        Report(current_run).render("crashing")


def test_a_renderer_that_fails_leaves_an_existing_report_as_it_was(
    installed: Path, current_run: Run, tmp_path: Path
) -> None:
    target = tmp_path / "report.md"
    target.write_text("the last good report\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="the template is missing"):
        Report(current_run).export(target, format="crashing")
    assert target.read_text(encoding="utf-8") == "the last good report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md", "site"]


def test_a_function_format_cannot_render_a_comparison_on_its_own(installed: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"'shout' .*cannot render a comparison"):
        format_named("shout").comparison(None)  # type: ignore[arg-type]


def _stored_runs(tmp_path: Path) -> tuple[str, Run, Run]:
    from assay_agents.store import Store

    suite = assay.Suite("Support", agent=lambda text, ctx: "30 days", checks=[checks.exact_match()])
    suite.case("How long?", id="returns", expected="30 days")
    url = f"sqlite:///{tmp_path / 'history.db'}"
    with Store.open(url, migrate=True) as store:
        first = assay.run(suite, db=store, progress=False)
        second = assay.run(suite, db=store, progress=False)
    return url, first, second


def _assay(*args: str, site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    paths = [str(site), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    return subprocess.run(
        [str(Path(sys.executable).parent / "assay-agents"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_assay_report_and_compare_use_installed_formats(tmp_path: Path, site: Path) -> None:
    url, first, second = _stored_runs(tmp_path)
    shouted = _assay("report", "--format", "shout", "--db", url, site=site, cwd=tmp_path)
    assert shouted.returncode == 0, shouted.stderr
    assert shouted.stdout == f"SHOUT SUPPORT · {second.agent.upper()}\n"

    compared = _assay(
        "compare", first.id, second.id, "--format", "loud", "--db", url, site=site, cwd=tmp_path
    )
    assert compared.returncode == 0, compared.stderr
    assert compared.stdout == (
        "LOUD 1 of 1 paired item(s) compared, 0 excluded (0% of the paired corpus)\n"
    )

    broken = _assay("report", "--format", "broken", "--db", url, site=site, cwd=tmp_path)
    assert broken.returncode == 2
    assert "report format 'broken' (from assay-shout 1.0" in broken.stderr
    assert "Traceback" not in broken.stderr
