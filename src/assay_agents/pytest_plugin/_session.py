"""The plugin's state for one pytest session: the suites collected, their runs, the verdicts.

Registered as a plugin of its own once asked for (``--assay``, a marked test, the
``assay_run`` fixture). In one process each suite's run starts when its first item runs,
planned on the items pytest selected (``-k``, ``--lf``: a selection of cases is a selection
run, never a baseline). Under pytest-xdist the controller creates the run (a marked test's
suite made by importing its module, as the workers do), planned on the items the workers
collected; each worker executes its items' samples (against a store in its memory) and
sends them with the item's setup report; the controller stores each sample once (an item
run again after its worker crashed stores nothing twice), through the run's durable writer,
and completes the run, verified, when the session ends.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Generator, Iterable
from pathlib import Path
from typing import Any

import pytest

from assay_agents.errors import AssayError, IncompleteRunError
from assay_agents.evaluation import Evaluation, ExitCode, MemoryRunStore, evaluate
from assay_agents.pytest_plugin._items import (
    CaseItem,
    SuiteDirectory,
    SuiteFile,
    SuiteNode,
    item_name,
    suite_name,
)
from assay_agents.pytest_plugin._key import CONTROLLED, CONTROLLER, IDS, SESSION, STATE
from assay_agents.pytest_plugin._runs import SuiteRun
from assay_agents.record import read_sample, write
from assay_agents.results import SampleResult
from assay_agents.spec import Suite
from assay_agents.text import visible


def session_of(config: pytest.Config) -> AssaySession:
    """The session's plugin state (made on first use)."""
    found = config.stash.get(STATE, None)
    if not isinstance(found, AssaySession):
        found = config.stash[STATE] = AssaySession.start(config)
    return found


class AssaySession:
    """Suites, runs and verdicts of one pytest session."""

    NAME = "assay-session"

    def __init__(self, config: pytest.Config) -> None:
        from assay_agents.agent import parse_models

        self.config = config
        self.paths = {Path(p).resolve() for p in config.getoption("assay_paths") or ()}
        self.models = tuple(spec.label for spec in parse_models(config.getoption("assay_models")))
        given = config.getoption("assay_db")
        self.db: str | None = given or os.environ.get("ASSAY_DATABASE_URL") or None
        self.fail_on_regression = bool(config.getoption("assay_fail_on_regression"))
        self.samples: int | None = config.getoption("assay_samples")
        self.baseline: str | None = config.getoption("assay_baseline")
        workerinput = getattr(config, "workerinput", None)
        self.worker = bool(workerinput and workerinput.get(CONTROLLED))
        self.runs: list[SuiteRun] = []
        self.remote: dict[str, SuiteRun | None] = {}
        self.planned = False
        self.session: pytest.Session | None = None
        self.direct: list[Evaluation] = []
        self.forwarded: list[str] = []
        self.lost: list[str] = []

    @classmethod
    def start(cls, config: pytest.Config) -> AssaySession:
        """Make the state and register its hooks."""
        made = cls(config)
        config.pluginmanager.register(made, cls.NAME)
        return made

    @property
    def controller(self) -> bool:
        """Whether this is pytest-xdist's controller (its workers run the items)."""
        return self.config.stash.get(CONTROLLER, False)

    # Collection

    def collect_file(self, path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        """A suite file given to ``--assay``."""
        if path.resolve() not in self.paths:
            return None
        return SuiteFile.from_parent(parent, path=path, plugin=self)

    def collect_directory(self, path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        """A suite folder given to ``--assay``."""
        if path.resolve() not in self.paths:
            return None
        return SuiteDirectory.from_parent(parent, path=path, plugin=self)

    def open_path(self, path: Path) -> SuiteRun:
        """The suite at ``path``, opened as ``assay-agents run`` opens it, with its run to come."""
        from assay_agents.load import open_suite
        from assay_agents.load.opening import require_agent
        from assay_agents.load.project import project_config

        suite = open_suite(path, config=project_config())
        require_agent(suite)
        return self._run_of(suite, path.resolve())

    def collect_marked(
        self, collector: pytest.Collector, name: str, function: Callable[[], Any]
    ) -> SuiteNode:
        """The suite a marked test function returns, as a node of its items."""
        from assay_agents.load.project import configured

        made = function()
        if not isinstance(made, Suite):
            raise collector.CollectError(
                f"{name}: a test marked assay returns an assay.Suite, "
                f"not {visible(type(made).__name__)}"
            )
        run = self._run_of(configured(made))
        return SuiteNode.from_parent(collector, name=name, run=run, plugin=self)

    def _run_of(self, suite: Suite, path: Path | None = None) -> SuiteRun:
        # The plan's options (what each worker executes) and the run's (the controller's).
        options: dict[str, Any] = {} if self.samples is None else {"samples": self.samples}
        db: Any = MemoryRunStore()  # on a worker: the controller stores the run
        if not self.worker:
            db = self.db
            options.update(fail_on_regression=self.fail_on_regression, baseline=self.baseline)
        run = SuiteRun(suite=suite, models=self.models, db=db, options=options, path=path)
        self.runs.append(run)
        return run

    # Running

    def execute(self, item: CaseItem) -> list[SampleResult]:
        """The samples of ``item``, executed in its run (started on first use)."""
        run = item.run
        if not run.started:
            chosen = [
                (each.case_id, each.model)
                for each in item.session.items
                if isinstance(each, CaseItem) and each.parent is item.parent
            ]
            run.start(chosen)
        if run.error is not None and not run.running:
            # Bad input (a store, a baseline, an option): nothing ran, as `assay-agents run` exits
            # 2.
            pytest.exit(f"assay: {visible(str(run.error))}", returncode=2)
        try:
            return run.execute((item.case_id, item.model))
        except AssayError as error:
            message = visible(str(error))
        pytest.fail(message, pytrace=False)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: Any
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """On an xdist worker: the item's samples go to the controller with its setup report."""
        report = yield
        if isinstance(item, CaseItem) and report.skipped and isinstance(report.longrepr, tuple):
            # Skipped for the case's sake: shown at the suite's file, not the plugin's line.
            where: Any = (str(item.path), None, report.longrepr[2])
            report.longrepr = where
        if (
            self.worker
            and isinstance(item, CaseItem)
            and call.when == "setup"
            and item.results is not None
            and item.parent is not None
        ):
            # Plain strings: xdist carries a report's own attributes to the controller.
            setattr(report, "assay_suite", item.parent.nodeid)  # noqa: B010
            samples = [json.dumps(write(r)) for r in item.results]
            setattr(report, "assay_samples", samples)  # noqa: B010
        if self.worker and call.when == "call" and self.direct:
            # What the assay_run fixture ran here, for the controller's summary.
            lines = [line for each in self.direct for line in _evaluation_lines(each)]
            setattr(report, "assay_lines", lines)  # noqa: B010
            self.direct.clear()
        return report

    def plan(self, ids: list[str]) -> None:
        """On the xdist controller: create each ``--assay`` suite's run, planned on ``ids``."""
        for path in sorted(self.paths):
            try:
                run = self.open_path(path)
            except AssayError:
                continue  # the workers report it as a collection error, naming the file
            prefix = f"{_node_path(self.config, path)}::{suite_name(run.suite.name)}"
            names = {f"{prefix}::{item_name(*cell)}": cell for cell in run.cells()}
            chosen = [names[nodeid] for nodeid in ids if nodeid in names]
            if chosen:
                run.start(chosen)
                self.remote[prefix] = run

    def receive(self, report: pytest.TestReport) -> None:
        """On the xdist controller: store the samples a worker executed, each once."""
        self.forwarded.extend(getattr(report, "assay_lines", None) or ())
        samples = getattr(report, "assay_samples", None)
        prefix = getattr(report, "assay_suite", None)
        if samples is None or not isinstance(prefix, str):
            return
        run = self.remote.get(prefix)
        if run is None and prefix not in self.remote:
            run = self.remote[prefix] = self._marked_run(prefix)
        if run is None:
            return
        results = [read_sample(json.loads(text), "sample") for text in samples]
        run.land(results)

    def _marked_run(self, prefix: str) -> SuiteRun | None:
        """The run of the marked test ``file.py::test``, started on its collected items.

        The controller collects nothing: it imports the test's module as pytest does and
        calls the test, as each worker did.
        """
        from assay_agents.load.project import configured

        where, _, name = prefix.partition("::")
        path = self.config.rootpath / where
        session, ids = self.config.stash.get(SESSION, None), self.config.stash.get(IDS, [])
        if session is None or path.suffix != ".py" or not path.is_file():
            return None
        try:
            function = getattr(pytest.Module.from_parent(session, path=path).obj, name, None)
            made = function() if callable(function) else None
        except Exception as error:  # the test's own code, on the controller
            made = error
        if not isinstance(made, Suite):
            self.lost.append(f"assay: {prefix}: its samples are not stored: {made!r}")
            return None
        run = self._run_of(configured(made))
        cells = {f"{prefix}::{item_name(*cell)}": cell for cell in run.cells()}
        run.start(cells[nodeid] for nodeid in ids if nodeid in cells)
        return run

    def finish(self, session: pytest.Session, exitstatus: int) -> None:
        """End every run; a run whose verdict fails, or that could not complete, fails.

        The verdict is ``assay-agents run``'s, with its exit code: failed or errored samples
        (already failing items), a failed gate, a run that checked nothing, and with
        ``--assay-fail-on-regression`` a signal regression.
        """
        stopped = bool(session.shouldfail or session.shouldstop) or exitstatus in (
            pytest.ExitCode.INTERRUPTED,
            pytest.ExitCode.INTERNAL_ERROR,
        )
        for run in self.runs:
            run.finish(complete=not (stopped or self.worker or self.controller))
        if self.worker:
            return
        failing = any(
            (run.evaluation is not None and run.evaluation.verdict.exit_code != ExitCode.OK)
            or (run.error is not None and run.started and not stopped)
            for run in self.runs
        )
        if (failing or self.lost) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if any(run.refused for run in self.runs):
            # Bad input (a store, a baseline, an option): no run, as `assay-agents run` exits 2. In
            # one process the first item stops the session; on xdist's controller, here.
            session.exitstatus = pytest.ExitCode.INTERRUPTED  # 2, as for a collection error

    def summary_lines(self) -> list[str]:
        """What the terminal summary says about each run."""
        if self.worker:
            return []
        lines: list[str] = []
        for run in self.runs:
            if run.started:
                lines.extend(_run_lines(run))
                if run.evaluation is not None and not run.evaluation.verdict.passed:
                    lines.append(f"{_result(run.evaluation)}: the session fails")
        for evaluation in self.direct:
            lines.extend(_evaluation_lines(evaluation))
        lines.extend(self.forwarded)
        lines.extend(self.lost)
        return [visible(line) for line in lines]

    def run_directly(self, suite: Suite | str | os.PathLike[str], **options: Any) -> Evaluation:
        """What the ``assay_run`` fixture calls: one whole run, stored and decided."""
        options.setdefault("fail_on_regression", self.fail_on_regression)
        evaluation = evaluate(suite, db=self.db, progress=False, **options)
        self.direct.append(evaluation)
        return evaluation


def _node_path(config: pytest.Config, path: Path) -> str:
    """The node id pytest gives the file or folder at ``path``."""
    try:
        relative = str(path.relative_to(config.rootpath))
    except ValueError:
        relative = os.path.relpath(path, config.rootpath)
    return relative.replace(os.sep, "/")


def _run_lines(run: SuiteRun) -> Iterable[str]:
    if run.evaluation is not None:
        yield from _evaluation_lines(run.evaluation)
        return
    error = run.error
    if isinstance(error, IncompleteRunError) and error.resumable:
        where = "" if run.path is None else f"{run.path} "
        yield (
            f"assay: run {run.run_id} of {run.suite.name!r} stopped before every sample ran; "
            f"kept interrupted: finish it with assay-agents run {where}--resume {run.run_id}"
        )
    elif error is not None:
        yield f"assay: run {run.run_id} of {run.suite.name!r}: {error}"


def _evaluation_lines(evaluation: Evaluation) -> Iterable[str]:
    from assay_agents.report.prose import verdict_lines

    run = evaluation.run
    summary = run.summary
    counts = (
        ""
        if summary is None
        else f": {summary.passed} passed, {summary.failed} failed, {summary.errors} errored, "
        f"{summary.not_evaluated} not evaluated"
    )
    selected = " (a selection of its cases)" if run.settings.selection else ""
    yield f"assay: run {run.id} of {run.suite!r}{selected} stored in {evaluation.database}{counts}"
    if evaluation.comparison is not None and evaluation.baseline is not None:
        yield f"assay: compared with run {evaluation.comparison.baseline_id}"
        yield from (f"assay:   {line}" for line in _changes(evaluation))
    elif evaluation.baseline_note:
        yield f"assay: no baseline: {evaluation.baseline_note}"
    findings = evaluation.verdict.findings
    lines = verdict_lines(findings, regression_flag="--assay-fail-on-regression")
    yield from (f"assay: {line}" for line in lines)


def _result(evaluation: Evaluation) -> str:
    """Why a run failed, as ``assay-agents run``'s closing line says it."""
    verdict = evaluation.verdict
    why = f" ({', '.join(verdict.reasons)})" if verdict.reasons else ""
    return f"assay: run {evaluation.run.id} of {evaluation.run.suite!r}: FAILED{why}"


def _changes(evaluation: Evaluation) -> Iterable[str]:
    comparison = evaluation.comparison
    if comparison is None:
        return
    from assay_agents.report.prose import change_detail

    for change in comparison.signal_regressions:
        where = item_name(change.case_id, change.model)
        yield f"regression: {where} {change.metric} ({change.kind}): {change_detail(change)}"
