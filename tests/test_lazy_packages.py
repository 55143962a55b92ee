"""Packages that load their parts on first use still offer every name, and load no more."""

import dataclasses
import importlib
import subprocess
import sys

import pytest

from assay_agents.results import Run


@pytest.mark.parametrize(
    "package",
    ["assay_agents", "assay_agents.evaluation", "assay_agents.load", "assay_agents.report"],
)
def test_every_public_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        module.nonexistent  # noqa: B018


def test_submodules_resolve_as_attributes() -> None:
    import assay_agents.load
    import assay_agents.report

    assert assay_agents.load.paths.__name__ == "assay_agents.load.paths"
    assert assay_agents.report.text.__name__ == "assay_agents.report.text"
    assert (
        assay_agents.load.schema is assay_agents.load.schemas.schema
    )  # the function, not a module


def _loaded_after(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint(*sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stdout.split())


@pytest.mark.process  # what a fresh interpreter imports
def test_running_a_python_suite_loads_no_file_loader() -> None:
    loaded = _loaded_after(
        "from assay_agents.load.selection import select\nfrom assay_agents.load.source import "
        "Source"
    )
    assert not {"assay_agents.load.catalog", "assay_agents.load.items", "yaml"} & loaded


@pytest.mark.process  # what a fresh interpreter imports
def test_reading_the_history_loads_no_runner() -> None:
    # assay-agents history, report and compare start without the engine a run needs.
    loaded = _loaded_after(
        "from assay_agents.evaluation.queries import history\n"
        "from assay_agents.evaluation.comparing import compare"
    )
    assert (
        not {"assay_agents.runner", "assay_agents.evaluation.lifecycle", "assay_agents.judging"}
        & loaded
    )


def test_an_sqlite_store_loads_no_postgresql_dialect() -> None:
    loaded = _loaded_after("import assay_agents.store")
    assert "sqlalchemy.dialects.postgresql" not in loaded


def test_a_run_is_its_fields_and_nothing_else() -> None:
    names = [field.name for field in dataclasses.fields(Run)]
    assert not [name for name in names if name.startswith("_")]


@pytest.mark.process  # what a fresh interpreter imports
def test_the_report_formats_load_no_template_engine_until_html_is_rendered() -> None:
    loaded = _loaded_after(
        "import assay_agents as assay\nfrom assay_agents.report import Report, format_for, "
        "format_named\n"
        "format_named('html')"
    )
    assert "assay_agents.report.html" in loaded
    assert not {"jinja2", "markupsafe"} & loaded


@pytest.mark.process  # what a fresh interpreter imports
def test_running_a_suite_loads_no_ray_until_it_is_asked_for() -> None:
    loaded = _loaded_after(
        "import assay_agents as assay\nimport assay_agents.evaluation.lifecycle\nimport "
        "assay_agents.cli.run\nimport assay_agents.ray"
    )
    assert "assay_agents.ray" in loaded and "ray" not in loaded
