"""What runs on Ray's workers: one sample's agent and checks, or its judging.

A sample crosses between processes in the stored record's form (:mod:`assay.record`), with
its ``schema_version``: a worker on another version of Assay is refused by name, never read
as something else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any

from assay.agent import ModelSpec
from assay.errors import ConfigurationError
from assay.record import read_sample, write
from assay.results import SampleResult
from assay.runner.engine import Execution, WorkItem
from assay.runner.split import execute_unjudged, judge_deferred
from assay.spec import CasePlan
from assay.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION


@dataclass(frozen=True, slots=True)
class Payload:
    """What every task of one run reads: put in Ray's object store once, read once a worker."""

    agent: Callable[..., Any]
    plans: tuple[CasePlan, ...]
    models: tuple[ModelSpec, ...]
    execution: Execution

    def item(self, case: int, model: int, index: int) -> WorkItem:
        """The work item at these positions (``model`` -1: the run names no model)."""
        return WorkItem(self.plans[case], None if model < 0 else self.models[model], index)


#: The payload a worker last read, by its object id: the tasks of a run share one.
_read: dict[str, Payload] = {}
#: The worker's event loop, kept from task to task (with the threads that call sync agents).
_loops: list[asyncio.AbstractEventLoop] = []


def payload(holder: list[Any]) -> Payload:
    """The payload ``holder`` refers to (an object reference in a list, so Ray passes it on)."""
    import ray

    key = holder[0].hex()
    found = _read.get(key)
    if found is None:
        found = ray.get(holder[0])
        _read.clear()
        _read[key] = found
    return found


def sample_task(holder: list[Any], case: int, model: int, index: int) -> dict[str, Any]:
    """Call the agent and run the checks of one sample; its judge criteria wait."""
    work = payload(holder)
    item = work.item(case, model, index)
    return encoded(_run(execute_unjudged(work.agent, item, work.models, work.execution)))


def judge_task(holder: list[Any], case: int, sample: Mapping[str, Any]) -> dict[str, Any]:
    """Grade the judge criteria a sample left for its judge."""
    work = payload(holder)
    judging = work.execution.judging
    result = decoded(sample)
    if judging is None:
        return encoded(result)
    return encoded(_run(judge_deferred(result, work.plans[case], judging)))


def _run(step: Coroutine[Any, Any, SampleResult]) -> SampleResult:
    """Run ``step`` on the worker's loop (a new loop per task would start new threads too)."""
    if not _loops or _loops[0].is_closed():
        _loops[:] = [asyncio.new_event_loop()]
    return _loops[0].run_until_complete(step)


def encoded(result: SampleResult) -> dict[str, Any]:
    """A sample in the stored record's form, with the version that wrote it."""
    return {SCHEMA_KEY: SCHEMA_VERSION, "sample": write(result)}


def decoded(data: Mapping[str, Any]) -> SampleResult:
    """The sample :func:`encoded` wrote; a form of another version is refused by name."""
    version = data.get(SCHEMA_KEY)
    if version != SCHEMA_VERSION:
        raise ConfigurationError(
            f"a Ray worker sent a sample of record version {version!r}, not {SCHEMA_VERSION}: "
            "install the same version of Assay on the driver and the workers"
        )
    return read_sample(data.get("sample"), "sample")
