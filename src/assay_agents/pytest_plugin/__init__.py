"""Assay as a pytest plugin: ``pytest --assay PATH`` runs a suite's cases as test items.

Registered through the ``pytest11`` entry point and inert unless asked: without ``--assay``,
a ``pytest.mark.assay`` test or the ``assay_run`` fixture, pytest loads this module only (no
engine, no store). Each case on each model is an item (``suite::case[model]``) whose samples
run inside it; the run is stored in the history like one of ``assay-agents run``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from assay_agents.pytest_plugin import _key

if TYPE_CHECKING:
    from assay_agents.pytest_plugin._session import AssaySession

#: The marker of a test function that returns the suite to run.
MARKER = "assay"


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's options, in a group of their own."""
    group = parser.getgroup("assay", "Assay: evaluate LLM agents")
    group.addoption(
        "--assay",
        action="append",
        default=[],
        metavar="PATH",
        dest="assay_paths",
        help="Run this suite's cases as tests: a Python suite file, a YAML suite or catalog, "
        "a folder of item files or pasted scenarios (repeatable).",
    )
    group.addoption(
        "--assay-model",
        action="append",
        default=[],
        metavar="MODEL",
        dest="assay_models",
        help="Run every case on this model (repeatable); an item per case and model.",
    )
    group.addoption(
        "--assay-samples",
        default=None,
        type=int,
        metavar="N",
        dest="assay_samples",
        help="Run every case N times (the suite's own number otherwise).",
    )
    group.addoption(
        "--assay-baseline",
        default=None,
        metavar="RUN",
        dest="assay_baseline",
        help="Compare with this run (an id or suite#N) instead of the automatic baseline; "
        "one that is missing stops the session with exit code 2.",
    )
    group.addoption(
        "--assay-db",
        default=None,
        metavar="URL",
        dest="assay_db",
        help="The history database (default: ASSAY_DATABASE_URL, the configuration's, else "
        ".assay/ found upwards).",
    )
    group.addoption(
        "--assay-fail-on-regression",
        action="store_true",
        default=False,
        dest="assay_fail_on_regression",
        help="Fail the session on a signal regression against the run's baseline.",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Declare the marker; with ``--assay``, collect the suites too."""
    config.addinivalue_line(
        "markers", f"{MARKER}: the test returns an assay.Suite whose cases run as test items"
    )
    paths = config.getoption("assay_paths")
    if paths:
        # The suites are what is collected: beside the paths given, else instead of the
        # default ones (testpaths, the current folder).
        if config.args_source is not pytest.Config.ArgsSource.ARGS:
            config.args[:] = []
        config.args.extend(str(path) for path in paths)
        _state(config)


def _found(config: pytest.Config) -> AssaySession | None:
    """The plugin's state, if the session has asked for it."""
    return cast("AssaySession | None", config.stash.get(_key.STATE, None))


def _state(config: pytest.Config) -> AssaySession:
    """The plugin's state, made on first use (a marked test without ``--assay``)."""
    from assay_agents.pytest_plugin._session import session_of

    return session_of(config)


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A folder given to ``--assay`` (item files, a catalog folder) is a suite."""
    found = _found(parent.config)
    return None if found is None else found.collect_directory(path, parent)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A suite file given to ``--assay`` that is not Python (YAML, pasted text)."""
    found = _found(parent.config)
    if found is None or file_path.suffix == ".py":
        return None
    return found.collect_file(file_path, parent)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> Any:
    """A Python suite given to ``--assay`` is a suite, not a test module."""
    found = _found(parent.config)
    return None if found is None else found.collect_file(module_path, parent)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> Any:
    """A test function marked ``assay`` is its suite's items."""
    marks = getattr(obj, "pytestmark", ())
    if not callable(obj) or not any(getattr(m, "name", None) == MARKER for m in marks):
        return None
    return _state(collector.config).collect_marked(collector, name, obj)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Kept: on pytest-xdist's controller, a marked test's module is imported through it."""
    session.config.stash[_key.SESSION] = session


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """On pytest-xdist's controller: the workers send their samples back with the reports."""
    config = node.config
    node.workerinput[_key.CONTROLLED] = "1"
    if not config.stash.get(_key.CONTROLLER, False):
        config.stash[_key.CONTROLLER] = True
        config.pluginmanager.register(_Controller(config), "assay-controller")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """On pytest-xdist's controller: each ``--assay`` suite's run, planned on what was collected.

    Every worker collects the same items: the first says what they are.
    """
    config = node.config
    if _key.IDS in config.stash:
        return
    config.stash[_key.IDS] = list(ids)
    found = _found(config)
    if found is not None:
        found.plan(list(ids))


class _Controller:
    """pytest-xdist's controller: it hears the workers' reports."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """What a worker's item executed (its samples, its fixture's runs) is stored here."""
        if hasattr(report, "assay_samples") or hasattr(report, "assay_lines"):
            _state(self.config).receive(report)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Complete each suite's run; a gated regression fails the session."""
    found = _found(session.config)
    if found is not None:
        found.finish(session, exitstatus)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Each run: where it is stored, what it was compared with, the verdict."""
    found = _found(terminalreporter.config)
    lines = [] if found is None else found.summary_lines()
    if lines:
        terminalreporter.section("assay")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.fixture
def assay_run(pytestconfig: pytest.Config) -> Callable[..., Any]:
    """Run a suite (or a suite's path) from a test; returns the :class:`assay.Evaluation`.

    The run is stored in the session's history database (``--assay-db``, else as
    ``assay-agents run`` finds it), compared with its baseline and decided; assert on what it
    returns::

        def test_support(assay_run):
            evaluation = assay_run(suite, models=["gpt-5-mini"])
            assert evaluation.verdict.passed
    """
    return _state(pytestconfig).run_directly
