"""What runs on Ray's workers: one sample's agent and checks, its judging, or one judge call.

A sample crosses between processes in the stored record's form (:mod:`assay_agents.record`), with
its ``schema_version``: a worker on another version of Assay is refused by name, never read
as something else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from assay_agents.agent import ModelSpec
from assay_agents.errors import ConfigurationError
from assay_agents.judging import JudgeReply
from assay_agents.judging.cache import CallPosition, positioned
from assay_agents.judging.judge import ask
from assay_agents.record import read, read_sample, write
from assay_agents.results import SampleResult
from assay_agents.runner.engine import Execution, WorkItem
from assay_agents.runner.split import execute_unjudged, judge_deferred
from assay_agents.spec import CasePlan
from assay_agents.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION


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


_T = TypeVar("_T")

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


def call_task(
    holder: list[Any], instructions: str, prompt: str, position: CallPosition
) -> dict[str, Any]:
    """Make one call to the run's judge (at ``position``), for a driver that caches replies."""
    judging = payload(holder).execution.judging
    if judging is None:
        raise ConfigurationError("a judge call was sent for a run without a judge")
    with positioned(
        sample=position.sample, vote=position.vote, case=position.case, model=position.model
    ):
        reply = _run(ask(judging.judge, instructions, prompt))
    return {SCHEMA_KEY: SCHEMA_VERSION, "reply": write(reply)}


def reply_decoded(data: Mapping[str, Any]) -> JudgeReply:
    """The reply :func:`call_task` sent; a form of another version is refused by name."""
    _check_version(data, "judge reply")
    reply = read(JudgeReply, data.get("reply"), "reply")
    assert isinstance(reply, JudgeReply)
    return reply


def _run(step: Coroutine[Any, Any, _T]) -> _T:
    """Run ``step`` on the worker's loop (a new loop per task would start new threads too)."""
    if not _loops or _loops[0].is_closed():
        _loops[:] = [asyncio.new_event_loop()]
    return _loops[0].run_until_complete(step)


def encoded(result: SampleResult) -> dict[str, Any]:
    """A sample in the stored record's form, with the version that wrote it."""
    return {SCHEMA_KEY: SCHEMA_VERSION, "sample": write(result)}


def decoded(data: Mapping[str, Any]) -> SampleResult:
    """The sample :func:`encoded` wrote; a form of another version is refused by name."""
    _check_version(data, "sample")
    return read_sample(data.get("sample"), "sample")


def _check_version(data: Mapping[str, Any], what: str) -> None:
    version = data.get(SCHEMA_KEY)
    if version != SCHEMA_VERSION:
        raise ConfigurationError(
            f"a Ray worker sent a {what} of record version {version!r}, not {SCHEMA_VERSION}: "
            "install the same version of Assay on the driver and the workers"
        )
