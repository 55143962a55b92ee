"""The collected nodes: a suite (from ``--assay PATH`` or a marked test) and its case items.

An item is one case on one model; its samples run in its setup, through the suite's run.
An agent error is the item's error (with the agent's traceback), a failed sample its
failure (each failed metric with its reason, and the diagnosed fault), and a case no metric
could evaluate is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from assay_agents.results import SampleResult, SampleStatus
from assay_agents.results.tracebacks import traceback_of
from assay_agents.text import visible

if TYPE_CHECKING:
    from assay_agents.pytest_plugin._runs import SuiteRun


class AssaySession(Protocol):
    """What the nodes ask of the session's state."""

    def open_path(self, path: Path) -> SuiteRun:
        """The suite at ``path``, with its run to come."""
        ...

    def execute(self, item: CaseItem) -> list[SampleResult]:
        """The samples of ``item``, executed now."""
        ...


def item_name(case_id: str, model: str | None) -> str:
    """``case[model]``, or the case alone when the run names no model.

    Case ids and models come from suite files and options: their control and bidirectional
    characters are written as escapes (as ``assay-agents run`` shows them), so that a node id, a
    failure's header and the short summary show what the name holds. A plain name is kept.
    """
    name = case_id if model is None else f"{case_id}[{model}]"
    return visible(name)


def suite_name(name: str) -> str:
    """The node name of a suite called ``name``, escaped as :func:`item_name` escapes."""
    return visible(name)


class SuiteNode(pytest.Collector):
    """One suite: its items are its cases on each model."""

    def __init__(self, *, run: SuiteRun, plugin: AssaySession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.plugin = plugin

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        """A case item per case and model, in the suite's order."""
        for case_id, model in self.run.cells():
            yield CaseItem.from_parent(
                self, name=item_name(case_id, model), case_id=case_id, model=model
            )


class SuiteFile(pytest.File):
    """A suite file (Python, YAML, pasted text) given to ``--assay``."""

    def __init__(self, *, plugin: AssaySession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.plugin = plugin

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        """The suite the file holds, opened as ``assay-agents run`` opens it."""
        yield _suite_node(self, self.path, self.plugin)


class SuiteDirectory(pytest.Directory):
    """A folder of item files (or a catalog's) given to ``--assay``."""

    def __init__(self, *, plugin: AssaySession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.plugin = plugin

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        """The suite the folder holds."""
        yield _suite_node(self, self.path, self.plugin)


def _suite_node(parent: pytest.Collector, path: Path, plugin: AssaySession) -> SuiteNode:
    from assay_agents.errors import AssayError

    try:
        run = plugin.open_path(path)
    except AssayError as error:
        text = visible(str(error))
        shown = text if str(path) in text else f"{visible(str(path))}: {text}"
        raise parent.CollectError(shown) from None
    return SuiteNode.from_parent(parent, name=suite_name(run.suite.name), run=run, plugin=plugin)


class CaseItem(pytest.Item):
    """One case on one model: its samples run in its setup."""

    def __init__(self, *, case_id: str, model: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case_id = case_id
        self.model = model
        self.results: tuple[SampleResult, ...] | None = None

    @property
    def run(self) -> SuiteRun:
        """The run this item's samples belong to."""
        parent = self.parent
        assert isinstance(parent, SuiteNode)
        return parent.run

    def setup(self) -> None:
        """Run the samples; an agent error is an error, nothing evaluated a skip."""
        parent = self.parent
        assert isinstance(parent, SuiteNode)
        self.results = tuple(parent.plugin.execute(self))
        errored = [r for r in self.results if r.status is SampleStatus.ERROR]
        if errored:
            pytest.fail(_describe(self.results, errored, "errored"), pytrace=False)
        if all(r.status is SampleStatus.NOT_EVALUATED for r in self.results):
            pytest.skip("not evaluated: no check or judge criterion could be calculated")

    def runtest(self) -> None:
        """Fail when a sample failed, naming its failed metrics and fault."""
        failed = [r for r in self.results or () if r.status is SampleStatus.FAILED]
        if failed:
            pytest.fail(_describe(self.results or (), failed, "failed"), pytrace=False)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the item comes from: the suite's file, and ``suite::case[model]``."""
        parent = self.parent
        return self.path, None, self.name if parent is None else f"{parent.name}::{self.name}"


def _describe(results: Sequence[SampleResult], shown: Sequence[SampleResult], how: str) -> str:
    lines = [f"{len(shown)} of {len(results)} sample(s) {how}"]
    for result in shown:
        lines.extend(_sample_lines(result))
    return visible("\n".join(lines), lines=True)


def _sample_lines(result: SampleResult) -> Iterator[str]:
    fault = "" if result.fault is None else f" (fault: {result.fault.value})"
    yield f"sample {result.sample}: {result.status.value}{fault}"
    if result.error is not None:
        yield f"  error: {result.error}"
        trace = traceback_of(result)
        if trace:
            yield "  " + trace.rstrip().replace("\n", "\n  ")
    for metric in result.metrics:
        if metric.error is not None:
            yield f"  {metric.name} ({metric.kind}) could not be calculated: {metric.error}"
        elif metric.passed is False:
            yield f"  {metric.name} ({metric.kind}) failed: {metric.reason or 'no reason given'}"
    if result.recommendation:
        yield f"  what to fix: {result.recommendation}"
