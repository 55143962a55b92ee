"""The Ray executor: each (case, model, sample) a Ray task, the results stored by the driver.

The driver (the process running ``assay-agents run``) puts what every task needs in Ray's object
store once, keeps at most ``concurrency`` tasks in flight, and takes each result as it
lands (``ray.wait``): a sample's agent and checks run in one task, its judge criteria in
another, and the driver diagnoses it and puts it in the run's sink, the same durable path
the local executor writes through. A task whose worker died is retried by Ray up to
``max_retries`` times, then stored as an errored sample.

With the judge cache (kept in the driver's history database, which workers do not reach),
the driver grades the samples itself: each judge call is looked up in the cache there, a
miss is made by a task of its own, and its reply is kept when the task returns.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import math
import pickle
import re
import socket
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay_agents.errors import AssayError, ConfigurationError
from assay_agents.evaluation import Work
from assay_agents.judging import Judge, JudgeReply, judge_chain
from assay_agents.judging.cache import CachedJudge, call_position
from assay_agents.ray._shipping import shipped_by_value
from assay_agents.ray._tasks import (
    Payload,
    call_task,
    decoded,
    judge_task,
    reply_decoded,
    sample_task,
)
from assay_agents.results import SampleResult, decide_status
from assay_agents.results.storable import storable
from assay_agents.runner.engine import WorkItem
from assay_agents.runner.grading import Judging
from assay_agents.runner.split import awaiting_judge, concluded, judge_deferred

#: How long one wait for landed tasks lasts at most (seconds): a cancelled run stops within it.
WAIT = 0.5
#: Times Ray runs a task again after its worker died, by default.
DEFAULT_RETRIES = 3
#: How long connecting to a cluster may take, by default (seconds).
DEFAULT_CONNECT_TIMEOUT = 30.0
#: The address forms a cluster is named by.
ADDRESS_FORMS = "auto, HOST:PORT or ray://HOST:PORT"

_HOST_PORT = re.compile(
    r"(?:ray://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
    r":(?P<port>[0-9]{1,5})",
    re.ASCII,
)


def address_error(address: str) -> str | None:
    """Why ``address`` names no Ray cluster by its form, or ``None`` when it may name one.

    Accepted: ``auto`` (the cluster ``ray start`` runs on this machine), ``HOST:PORT`` (a
    cluster's GCS) and ``ray://HOST:PORT`` (Ray Client). Nothing is imported or connected.
    """
    if address == "auto":
        return None
    matched = _HOST_PORT.fullmatch(address)
    if matched is None:
        return f"not a Ray address; give {ADDRESS_FORMS}"
    port = int(matched["port"])
    if not 1 <= port <= 65535:
        return f"port {port} is not between 1 and 65535; give {ADDRESS_FORMS}"
    return None


def require_ray() -> Any:
    """The ``ray`` module; a :class:`ConfigurationError` naming the extra without it."""
    try:
        import ray
    except ImportError as error:
        raise ConfigurationError(
            f"the Ray executor needs Ray ({error}); install it with pip install 'assay-agents[ray]'"
        ) from None
    return ray


@dataclass(frozen=True, kw_only=True)
class RayExecutor:
    """Executes a run's samples as tasks on a Ray cluster.

    ``address`` is the cluster's (``auto`` for the one ``ray start`` runs on this machine,
    ``ray://host:10001`` for a remote one); ``None`` starts a local cluster for the run
    (of ``num_cpus`` CPUs) and stops it afterwards. A process that has already connected
    to Ray (``ray.init``) is used as it is, and stays connected. ``runtime_env`` is the
    job's Ray runtime environment (``pip``, ``working_dir``, ``env_vars``...), given when
    the executor connects. Each sample task asks Ray for ``task_cpus`` CPUs; a worker lost
    in the middle of one is retried ``max_retries`` times before the sample is stored as an
    error. Connecting gives up after ``connect_timeout`` seconds; :meth:`connect` connects
    before a run is created (:meth:`execute` otherwise does), so that a cluster out of reach
    leaves nothing stored.
    """

    address: str | None = None
    runtime_env: Mapping[str, Any] | None = None
    num_cpus: int | None = None
    max_retries: int = DEFAULT_RETRIES
    task_cpus: float = 1.0
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    name: str = "ray"
    #: Whether :meth:`connect` connected, for :meth:`execute` to disconnect at its end.
    _connected: list[bool] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int):
            raise ConfigurationError(f"max_retries {self.max_retries!r} is not a whole number")
        if self.max_retries < 0:
            raise ConfigurationError(f"max_retries {self.max_retries!r} is below 0")
        if self.num_cpus is not None and self.address is not None:
            raise ConfigurationError("num_cpus sizes a local cluster; an address names one")
        if self.address is not None:
            problem = address_error(self.address)
            if problem is not None:
                raise ConfigurationError(f"Ray address {self.address!r}: {problem}")
        timeout = self.connect_timeout
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise ConfigurationError(f"connect_timeout {timeout!r} is not a number of seconds > 0")

    async def connect(self) -> None:
        """Connect to the cluster (or start one) now, within ``connect_timeout`` seconds.

        A cluster out of reach is a :class:`ConfigurationError`. Cancelled meanwhile, it
        stops waiting at once (the attempt is abandoned). :meth:`execute` then uses the
        connection and closes it at its end.
        """
        ray = require_ray()
        if ray.is_initialized():
            return
        await self._reachable()
        self._connected[:] = [await self._bounded_connect(ray)]

    async def execute(self, work: Work) -> Sequence[SampleResult]:
        """Fan the work's items out as tasks; each result reaches the sink as it lands."""
        ray = require_ray()
        if work.execution.capture is not None:
            raise ConfigurationError(
                "a suite with capture='spans' reads its agent's spans in-process; "
                "run it with the local executor"
            )
        if work.execution.wrapper is not None:
            raise ConfigurationError(
                "around_sample wraps a sample's agent, checks and judging in one scope, which "
                "Ray runs in tasks of their own: run it with the local executor"
            )
        judging = work.execution.judging
        if judging is not None and any(
            isinstance(each, CachedJudge) for each in judge_chain(judging.judge)[1:]
        ):
            raise ConfigurationError(
                "the judge cache is kept in this machine's history database, which Ray workers "
                "do not reach, and this judge wraps it: run with --no-cache, or with the local "
                "executor"
            )
        if self._connected:
            connected = self._connected.pop()
        else:
            connected = await self._bounded_connect(ray)
        try:
            return await _Fanout(ray, work, self).run()
        finally:
            if connected:
                await asyncio.shield(asyncio.to_thread(ray.shutdown))

    async def _reachable(self) -> None:
        """Refuse at once a HOST:PORT where nothing listens (Ray would retry for minutes)."""
        if self.address is None or self.address == "auto":
            return
        matched = _HOST_PORT.fullmatch(self.address)
        assert matched is not None
        host, port = matched["host"].strip("[]"), int(matched["port"])

        def probe() -> None:
            with socket.create_connection((host, port), timeout=self.connect_timeout):
                pass

        try:
            await _abandonable(probe)
        except OSError as error:
            raise ConfigurationError(
                f"cannot connect to Ray at {self.address!r}: {_one_line(error)}; "
                "is the cluster running there?"
            ) from None

    async def _bounded_connect(self, ray: Any) -> bool:
        """:meth:`_connect`, given up after ``connect_timeout`` seconds or when cancelled."""
        try:
            return await asyncio.wait_for(
                _abandonable(lambda: self._connect(ray)), self.connect_timeout
            )
        except TimeoutError:
            raise ConfigurationError(
                f"cannot connect to Ray at {self.address!r}: no answer within "
                f"{self.connect_timeout:g}s; is the cluster running there?"
            ) from None

    def _connect(self, ray: Any) -> bool:
        """Connect to the cluster (or start one) unless the process already has; say if so."""
        if ray.is_initialized():
            return False
        options: dict[str, Any] = {"log_to_driver": False}
        if self.address is None:
            options.update(num_cpus=self.num_cpus, include_dashboard=False)
        if self.runtime_env is not None:
            options["runtime_env"] = dict(self.runtime_env)
        try:
            ray.init(address=self.address, **options)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise ConfigurationError(
                f"cannot connect to Ray at {self.address!r}: {_one_line(error)}"
            ) from None
        return True


async def _abandonable(step: Any) -> Any:
    """``step()`` in a daemon thread: a cancelled or timed-out wait leaves it behind.

    Ray's connection attempts block in its native client; a thread of the default executor
    would keep the process from ending until they give up.
    """
    done: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def run() -> None:
        # A wait given up has cancelled ``done``: the outcome is then nobody's.
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            try:
                result = step()
            except BaseException as error:  # handed over to the waiting coroutine
                done.set_exception(error)
            else:
                done.set_result(result)

    threading.Thread(target=run, name="assay-ray-connect", daemon=True).start()
    return await asyncio.wrap_future(done)


def _one_line(error: BaseException) -> str:
    """The error's message on one line (Ray's span several)."""
    return " ".join(str(error).split()) or type(error).__name__


@dataclass(slots=True)
class _Flying:
    """A task in flight: what it computes, for which item, and the sample it judges."""

    kind: str
    item: WorkItem
    unjudged: SampleResult | None = None


class _Fanout:
    """One run's tasks: submitted within the limits, taken as they land, cancelled on a stop."""

    def __init__(self, ray: Any, work: Work, executor: RayExecutor) -> None:
        self.ray = ray
        self.work = work
        self.retries = executor.max_retries
        self.cpus = executor.task_cpus
        self.pending = list(work.items)
        self.flying: dict[Any, _Flying] = {}
        self.landed: list[SampleResult] = []
        self.cases = {plan.case.id: position for position, plan in enumerate(work.plan.cases)}
        self.models = {model.label: position for position, model in enumerate(work.models)}
        judging = work.execution.judging
        #: The judge cache, when the run has one: the driver grades, calling out per miss.
        self.cache = None
        if judging is not None and isinstance(judging.judge, CachedJudge):
            self.cache = judging.judge
        self.grading: set[asyncio.Task[None]] = set()

    async def run(self) -> list[SampleResult]:
        try:
            self.holder = [await asyncio.to_thread(self._put)]
            self.sample = self.ray.remote(sample_task).options(
                max_retries=self.retries, retry_exceptions=False, num_cpus=self.cpus
            )
            self.judge = self.ray.remote(judge_task).options(
                max_retries=self.retries, retry_exceptions=False, num_cpus=self.cpus
            )
            self.call = self.ray.remote(call_task).options(
                max_retries=self.retries, retry_exceptions=False, num_cpus=self.cpus
            )
            while self.pending or self.flying or self.grading:
                self._submit()
                self._graded()
                if not self.flying:
                    if self.grading:
                        await asyncio.wait(self.grading, return_when=asyncio.FIRST_COMPLETED)
                    continue
                # Whatever landed already is taken without a thread; otherwise one waits.
                landed = self._wait(0) or await asyncio.to_thread(self._wait, WAIT)
                taken = [(self.flying.pop(ref), value) for ref, value in landed]
                self._submit()  # the freed workers start on the next samples at once
                for flying, value in taken:
                    await self._take(flying, value)
            return self.landed
        finally:
            self._cancel()
            await asyncio.shield(self.work.sink.close())

    def _put(self) -> Any:
        execution = dataclasses.replace(
            self.work.execution, diagnosing=None, around_sample=None, capture=None
        )
        if self.cache is not None and execution.judging is not None:
            # The workers call the judge the cache wraps; the cache stays with the driver.
            judging = dataclasses.replace(execution.judging, judge=self.cache.__wrapped__)
            execution = dataclasses.replace(execution, judging=judging)
        payload = Payload(self.work.agent, self.work.plan.cases, self.work.models, execution)
        with shipped_by_value(self.ray.cloudpickle):
            try:
                return self.ray.put(payload)
            except (TypeError, AttributeError, pickle.PicklingError) as error:
                raise ConfigurationError(
                    f"the agent, the cases or the judge cannot be sent to Ray workers ({error}); "
                    "run with the local executor"
                ) from None

    def _submit(self) -> None:
        """Start what the limits allow, in the items' order (a blocked item is passed over)."""
        execution = self.work.execution
        room = execution.concurrency - len(self.flying) - len(self.grading)
        position = 0
        while room > 0 and position < len(self.pending):
            item = self.pending[position]
            if not self._allowed(item):
                position += 1
                continue
            del self.pending[position]
            model = -1 if item.model is None else self.models[item.model.label]
            ref = self.sample.remote(self.holder, self.cases[item.key[0]], model, item.index)
            self.flying[ref] = _Flying("sample", item)
            room -= 1

    def _allowed(self, item: WorkItem) -> bool:
        execution = self.work.execution
        per_model, per_item = execution.model_concurrency, execution.sample_concurrency
        if per_model is None and per_item is None:
            return True
        keys = [each.item.key for each in self.flying.values()]
        if per_model is not None and sum(key[1] == item.key[1] for key in keys) >= per_model:
            return False
        return per_item is None or sum(key[:2] == item.key[:2] for key in keys) < per_item

    def _wait(self, timeout: float) -> list[tuple[Any, Any]]:
        """The tasks that landed (waiting up to ``timeout`` for one), each with its value."""
        ray = self.ray
        refs = list(self.flying)
        if not refs:
            return []
        done, rest = ray.wait(refs, num_returns=1, timeout=timeout)
        if done and rest:
            more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
            done += more
        landed: list[tuple[Any, Any]] = []
        for ref in done:
            try:
                landed.append((ref, ray.get(ref)))
            except ray.exceptions.RayTaskError as error:
                # The task's own code failed (a sample's failures are results): the harness.
                raise AssayError(f"a Ray task failed: {_first_line(error)}") from None
            except ray.exceptions.RayError as error:
                landed.append((ref, error))
        return landed

    async def _take(self, flying: _Flying, value: Any) -> None:
        item = flying.item
        if isinstance(value, BaseException):
            lost = f"the Ray task was lost after {self.retries} retries: {_first_line(value)}"
            if flying.unjudged is not None:
                await self._finish(item, flying.unjudged)  # its criteria say it was not judged
            else:
                await self._finish(item, _lost(item, lost))
            return
        result = decoded(value)
        judging = self.work.execution.judging
        if flying.kind == "sample" and judging and awaiting_judge(result):
            if self.cache is not None:
                grading = self._grade_here(item, result, judging)
                self.grading.add(asyncio.ensure_future(grading))
                return
            ref = self.judge.remote(self.holder, self.cases[item.key[0]], value)
            self.flying[ref] = _Flying("judge", item, result)
            return
        await self._finish(item, result)

    async def _grade_here(self, item: WorkItem, result: SampleResult, judging: Judging) -> None:
        """Grade ``result`` on the driver through the cache; its misses are calls on workers."""
        assert self.cache is not None
        remote = _RemoteJudge(self.cache.__wrapped__, self)
        here = dataclasses.replace(judging, judge=CachedJudge(remote, self.cache.cache))
        await self._finish(item, await judge_deferred(result, item.plan, here))

    def _graded(self) -> None:
        """Forget the gradings that ended; one that failed stops the run, as a task would."""
        for ended in [task for task in self.grading if task.done()]:
            self.grading.discard(ended)
            ended.result()

    async def remote_call(self, instructions: str, prompt: str) -> JudgeReply:
        """One call to the judge, made by a task on a worker; a lost task raises."""
        ref = self.call.remote(self.holder, instructions, prompt, call_position())
        try:
            value = await asyncio.wrap_future(ref.future())
        except self.ray.exceptions.RayTaskError as error:
            raise AssayError(f"a Ray task failed: {_first_line(error)}") from None
        return reply_decoded(value)

    async def _finish(self, item: WorkItem, result: SampleResult) -> None:
        result = await concluded(result, item.plan, self.work.execution)
        self.landed.append(result)
        await self.work.sink.put(result)

    def _cancel(self) -> None:
        for ref in self.flying:
            with contextlib.suppress(Exception):
                self.ray.cancel(ref, force=True)
        self.flying.clear()
        for task in self.grading:
            task.cancel()


class _RemoteJudge:
    """The judge a cache wraps, called through Ray: the driver keys the call, a worker makes it.

    It has the wrapped judge's label, identity and parameters (``__wrapped__``), so that the
    cache keys its calls as it would the wrapped judge's.
    """

    def __init__(self, judge: Judge, fanout: _Fanout) -> None:
        self.__wrapped__ = judge
        self.label = judge.label
        self._fanout = fanout

    async def complete(self, instructions: str, prompt: str) -> JudgeReply:
        """The wrapped judge's reply, made on a worker."""
        return await self._fanout.remote_call(instructions, prompt)


def _lost(item: WorkItem, message: str) -> SampleResult:
    case, model, index = item.key
    status = decide_status(message, ())
    return storable(
        SampleResult(case_id=case, model=model, sample=index, status=status, error=message)
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")
