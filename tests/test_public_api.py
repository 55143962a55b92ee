import subprocess
import sys

import pytest

import assay_agents as assay


def _namespace() -> set[str]:
    """The names ``assay-agents`` defines for users: bound at import or loaded on first use."""
    import inspect

    fresh = subprocess.run(
        [
            sys.executable,
            "-c",
            "import assay_agents as assay, inspect; print(' '.join(n for n, v in "
            "vars(assay).items() if not n.startswith('_') and not inspect.ismodule(v)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    lazy = set(vars(assay)["_LAZY"])
    modules = {name for name in assay.__all__ if inspect.ismodule(getattr(assay, name))}
    return set(fresh) | lazy | modules | {"__version__"}


@pytest.mark.process  # what a fresh interpreter imports
def test_all_is_the_public_surface_and_sorted():
    # Derived from the namespace, like httpx's own test: a name made public without being
    # exported (or exported without existing) fails here.
    assert set(assay.__all__) == _namespace()
    assert assay.__all__ == sorted(assay.__all__)
    assert {"Suite", "run", "evaluate", "checks", "Report", "Store"} <= set(assay.__all__)


def test_every_public_name_has_a_docstring():
    import inspect

    for name in assay.__all__:
        value = getattr(assay, name)
        if inspect.isclass(value) or inspect.isfunction(value) or inspect.ismodule(value):
            assert (value.__doc__ or "").strip(), name


def test_every_exported_name_resolves():
    for name in assay.__all__:
        assert getattr(assay, name) is not None, name


@pytest.mark.process  # what a fresh interpreter imports
def test_importing_assay_does_not_load_the_store_or_the_cli():
    code = (
        "import sys, assay_agents as assay; heavy = [m for m in ('sqlalchemy', 'typer', 'rich', "
        "'alembic')"
        " if m in sys.modules]; print(','.join(heavy))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == ""


def test_run_stays_the_function_after_the_runner_and_evaluation_packages_are_imported():
    import importlib
    import inspect
    import pkgutil

    import assay_agents.evaluation
    import assay_agents.runner

    # Importing every submodule must not shadow the lazily exported functions.
    for package in (assay_agents.runner, assay_agents.evaluation):
        for module in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)

    assert inspect.isfunction(assay_agents.run) and inspect.iscoroutinefunction(
        assay_agents.run_async
    )
    assert inspect.isfunction(assay_agents.evaluate)
    assert inspect.iscoroutinefunction(assay_agents.evaluate_async)
    assert (
        assay_agents.run is assay_agents.evaluation.run
        and assay_agents.run_async is assay_agents.evaluation.run_async
    )


def test_the_runner_is_the_engine_only():
    import assay_agents.runner

    for moved in ("run", "run_async", "BatchingSink", "session"):
        assert not hasattr(assay_agents.runner, moved), moved
