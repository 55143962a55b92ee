"""Packages that load their parts on first use still offer every name, and load no more."""

import dataclasses
import importlib
import subprocess
import sys

import pytest

from assay.results import Run


@pytest.mark.parametrize("package", ["assay", "assay.evaluation", "assay.load", "assay.report"])
def test_every_public_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        module.nonexistent  # noqa: B018


def test_submodules_resolve_as_attributes() -> None:
    import assay.load
    import assay.report

    assert assay.load.paths.__name__ == "assay.load.paths"
    assert assay.report.text.__name__ == "assay.report.text"
    assert assay.load.schema is assay.load.schemas.schema  # the function, not a module


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
        "from assay.load.selection import select\nfrom assay.load.source import Source"
    )
    assert not {"assay.load.catalog", "assay.load.items", "yaml"} & loaded


@pytest.mark.process  # what a fresh interpreter imports
def test_reading_the_history_loads_no_runner() -> None:
    # assay history, report and compare start without the engine a run needs.
    loaded = _loaded_after(
        "from assay.evaluation.queries import history\n"
        "from assay.evaluation.comparing import compare"
    )
    assert not {"assay.runner", "assay.evaluation.lifecycle", "assay.judging"} & loaded


def test_an_sqlite_store_loads_no_postgresql_dialect() -> None:
    loaded = _loaded_after("import assay.store")
    assert "sqlalchemy.dialects.postgresql" not in loaded


def test_a_run_is_its_fields_and_nothing_else() -> None:
    names = [field.name for field in dataclasses.fields(Run)]
    assert not [name for name in names if name.startswith("_")]


@pytest.mark.process  # what a fresh interpreter imports
def test_the_report_formats_load_no_template_engine_until_html_is_rendered() -> None:
    loaded = _loaded_after(
        "import assay\nfrom assay.report import Report, format_for, format_named\n"
        "format_named('html')"
    )
    assert "assay.report.html" in loaded
    assert not {"jinja2", "markupsafe"} & loaded


@pytest.mark.process  # what a fresh interpreter imports
def test_running_a_suite_loads_no_ray_until_it_is_asked_for() -> None:
    loaded = _loaded_after(
        "import assay\nimport assay.evaluation.lifecycle\nimport assay.cli.run\nimport assay.ray"
    )
    assert "assay.ray" in loaded and "ray" not in loaded
