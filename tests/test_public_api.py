import subprocess
import sys

import assay

PUBLIC = {
    "Action", "AgentContext", "AssayError", "BaselineError", "Case", "ConfigurationError",
    "Criterion", "agents", "criterion", "judges",
    "MetricResult", "ModelSpec", "Observation", "Outcome", "ReadOnlyRunError", "Report", "Run",
    "RunStatus", "SampleResult", "SampleStatus", "SpecError", "Store",
    "Comparison", "ModelComparison", "NoiseFloor",
    "StoreError", "Suite", "Usage", "__version__", "checks", "run", "run_async",
    "ApiFixtures", "ReplayError", "api",
    "Catalog", "Gate", "Harness", "Reply", "ScenarioParser", "harness_agent", "load_suite",
    "evaluate", "evaluate_async", "Evaluation", "EvaluationOptions", "ExitCode", "Verdict",
    "IncompleteRunError", "StoreUnavailableError", "Terminated",
    "Fault", "FixItem", "ModelVerdict",
}


def test_all_is_the_public_surface_and_sorted():
    assert set(assay.__all__) == PUBLIC
    assert assay.__all__ == sorted(assay.__all__)


def test_every_exported_name_resolves():
    for name in assay.__all__:
        assert getattr(assay, name) is not None, name


def test_importing_assay_does_not_load_the_store_or_the_cli():
    code = ("import sys, assay; heavy = [m for m in ('sqlalchemy', 'typer', 'rich', 'alembic')"
            " if m in sys.modules]; print(','.join(heavy))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == ""


def test_run_stays_the_function_after_the_runner_and_evaluation_packages_are_imported():
    import importlib
    import inspect
    import pkgutil

    import assay.evaluation
    import assay.runner

    # Importing every submodule must not shadow the lazily exported functions.
    for package in (assay.runner, assay.evaluation):
        for module in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)

    assert inspect.isfunction(assay.run) and inspect.iscoroutinefunction(assay.run_async)
    assert inspect.isfunction(assay.evaluate)
    assert inspect.iscoroutinefunction(assay.evaluate_async)
    assert assay.run is assay.evaluation.run and assay.run_async is assay.evaluation.run_async


def test_the_runner_is_the_engine_only():
    import assay.runner

    for moved in ("run", "run_async", "BatchingSink", "session"):
        assert not hasattr(assay.runner, moved), moved
