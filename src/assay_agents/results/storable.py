"""What every store can hold: a sample carrying a value no database keeps becomes an error.

An agent or a judge may hand back text with a NUL character (PostgreSQL refuses it), a lone
surrogate (not UTF-8), an integer beyond 64 bits or a non-finite float. Such a value must
cost its own sample, never the batch it would have been written with: the sample is kept
as an error that names the field, and nothing of the offending value is repeated.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, fields, is_dataclass, replace
from typing import Any

from assay_agents.results.fault import Fault
from assay_agents.results.judge_usage import JudgeUsage
from assay_agents.results.metric import MetricResult, errored
from assay_agents.results.sample import SampleResult, SampleStatus, decide_status

#: The widest integer a BIGINT column (and a portable JSON reader) holds.
INT64_MAX = 2**63 - 1
#: Bounds past which a finite figure is not a measurement: summing a few of them would
#: overflow a summary (a cost per 1,000 samples, a mean latency) to infinity.
MAX_COST_USD = 1e9
MAX_DURATION_MS = 1e12


def problem_with(value: Any) -> str | None:
    """Why ``value`` (text, a number, or JSON made of them) cannot be stored, or ``None``."""
    if isinstance(value, str):
        return _text_problem(value)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return None if -INT64_MAX - 1 <= value <= INT64_MAX else "is an integer beyond 64 bits"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"is {value!r}, not a finite number"
    return None


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character"
    if text.isascii():
        return None  # no surrogate: skips encoding a copy of every clean text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (not valid UTF-8)"
    return None


def first_problem(sample: SampleResult) -> str | None:
    """The first field the agent supplied that no store can hold, as ``field problem``."""
    try:
        if _clean(_agent_values(sample)):
            # The common case, checked without naming a path for every value: paths are
            # named only to say where a problem is.
            return _implausible(sample)
        for path, value in _agent_fields(sample):
            problem = problem_with(value)
            if problem is not None:
                return f"{path} {problem}"
        return _implausible(sample)
    except RecursionError:
        return "a value nests too deeply to be stored"


def storable(sample: SampleResult) -> SampleResult:
    """``sample`` itself, or a sample the store can hold, naming what could not be.

    A value the agent supplied makes the sample an error naming the field. A value a judge
    supplied (a reason, its usage) costs only that judge metric or that usage figure: the
    agent's answer and its checks stand.
    """
    problem = first_problem(sample)
    if problem is not None:
        duration = sample.duration_ms
        kept = duration if duration is not None and 0 <= duration <= MAX_DURATION_MS else None
        return SampleResult(
            case_id=sample.case_id,
            model=sample.model,
            sample=sample.sample,
            status=SampleStatus.ERROR,
            duration_ms=kept,
            error=f"a value could not be stored: {problem}",
            fault=Fault.RUN_ERROR,
            recommendation=f"The agent produced a value no database can hold "
            f"({problem}): clean it before returning it.",
        )
    metrics = tuple(_storable_metric(metric) for metric in sample.metrics)
    usage = _storable_usage(sample.judge_usage)
    if metrics == sample.metrics and usage is sample.judge_usage:
        return sample
    return replace(
        sample, metrics=metrics, judge_usage=usage, status=decide_status(sample.error, metrics)
    )


def _implausible(sample: SampleResult) -> str | None:
    duration = sample.duration_ms
    if duration is not None and not 0 <= duration <= MAX_DURATION_MS:
        return f"duration_ms is {duration:.3g}, outside 0–{MAX_DURATION_MS:.0e} ms"
    cost = None if sample.usage is None else sample.usage.cost_usd
    if cost is not None and not 0 <= cost <= MAX_COST_USD:
        return f"usage.cost_usd is {cost:.3g}, beyond any plausible cost ({MAX_COST_USD:.0e} USD)"
    return None


def _storable_metric(metric: MetricResult) -> MetricResult:
    try:
        problem = _metric_problem(metric)
    except RecursionError:
        problem = "a value nests too deeply"
    if problem is None:
        return metric
    return errored(
        metric.name,
        metric.kind,
        metric.category,
        metric.threshold,
        f"the {metric.kind} returned a value that cannot be stored: {problem}",
    )


def _metric_problem(metric: MetricResult) -> str | None:
    # Field by field rather than through the stored form: this runs for every metric of every
    # sample, on the event loop. The name, category and threshold come from the spec, which
    # was checked when it was defined; a check or a judge supplies the rest.
    for name in ("reason", "error", "score"):
        value = getattr(metric, name)
        found = None if value is None else problem_with(value)
        if found is not None:
            return f"{name} {found}"
    if metric.votes:
        for path, value in _walk("votes", [asdict(vote) for vote in metric.votes]):
            found = problem_with(value)
            if found is not None:
                return f"{path} {found}"
    return None


def _storable_usage(usage: JudgeUsage | None) -> JudgeUsage | None:
    """Judge usage without the figures no store can hold: a count is 0, a cost unknown."""
    if usage is None:
        return None
    counts = [usage.calls, usage.attempts, usage.input_tokens, usage.output_tokens]
    kept = [0 if problem_with(count) else count for count in counts]
    cost = usage.cost_usd
    unpriced = cost is not None and not (problem_with(cost) is None and 0 <= cost <= MAX_COST_USD)
    model = usage.model
    unnamed = model is not None and problem_with(model) is not None
    kinds = {kind: 0 if problem_with(count) else count for kind, count in usage.by_kind.items()}
    if kept == counts and not unpriced and not unnamed and kinds == usage.by_kind:
        return usage
    return replace(
        usage,
        calls=kept[0],
        attempts=kept[1],
        input_tokens=kept[2],
        output_tokens=kept[3],
        cost_usd=None if unpriced else cost,
        model=None if unnamed else model,
        by_kind=kinds,
    )


def with_store_refusal(sample: SampleResult, reason: str) -> SampleResult:
    """An error sample in place of one the database refused (``reason`` is the store's)."""
    cleaned = "".join(char if problem_with(char) is None else "?" for char in reason)
    return replace(
        storable(sample),
        status=SampleStatus.ERROR,
        answer=None,
        actions=None,
        observation=None,
        usage=None,
        metadata={},
        metrics=(),
        judge_usage=None,
        error=f"the store refused this sample: {cleaned[:500]}",
        fault=Fault.RUN_ERROR,
        recommendation="The store refused what the agent produced: see the error.",
        diagnosis=None,
    )


def _agent_fields(sample: SampleResult) -> Iterator[tuple[str, Any]]:
    yield "answer", sample.answer
    yield "error", sample.error
    yield "duration_ms", sample.duration_ms
    if sample.usage is not None:
        for name in ("input_tokens", "output_tokens", "cost_usd", "cost_source"):
            yield f"usage.{name}", getattr(sample.usage, name)
    yield from _walk("metadata", sample.metadata)
    if sample.actions is not None:
        for index, action in enumerate(sample.actions):
            yield from _walk(f"actions[{index}]", asdict(action))
    if sample.observation is not None:
        yield from _walk("observation", asdict(sample.observation))
    yield "recommendation", sample.recommendation
    if sample.diagnosis is not None:
        yield from _walk("diagnosis", asdict(sample.diagnosis))


def _agent_values(sample: SampleResult) -> tuple[Any, ...]:
    """What :func:`_agent_fields` walks, unnamed (dataclasses are read field by field)."""
    usage = sample.usage
    figures = () if usage is None else (usage.input_tokens, usage.output_tokens)
    costs = () if usage is None else (usage.cost_usd, usage.cost_source)
    return (
        sample.answer,
        sample.error,
        sample.duration_ms,
        *figures,
        *costs,
        sample.metadata,
        sample.actions,
        sample.observation,
        sample.recommendation,
        sample.diagnosis,
    )


def _clean(value: Any) -> bool:
    """Whether ``value`` and everything in it can be stored (see :func:`problem_with`).

    Exact types first: this reads every value of every sample, on the event loop.
    """
    kind = type(value)
    if kind is str:
        return "\x00" not in value and (value.isascii() or _text_problem(value) is None)
    if value is None or kind is bool:
        return True
    if kind is int:
        whole: int = value
        return -INT64_MAX - 1 <= whole <= INT64_MAX
    if kind is float:
        return math.isfinite(value)
    if kind is dict:
        return _clean_items(value) and _clean_items(value.values())
    if kind is list or kind is tuple:
        return _clean_items(value)
    names = _field_names(kind)
    if names:
        return _clean_items([getattr(value, name) for name in names])
    # Anything else (a str or dict subclass...) the slow way, as the named walk reads it.
    return all(problem_with(found) is None for _, found in _walk("", value))


def _clean_items(values: Iterable[Any]) -> bool:
    """Whether every value (a dict's keys, its values, a list's items) can be stored.

    The plain JSON scalars are decided here, without a call each: most values are those.
    """
    for value in values:
        kind = type(value)
        if kind is str:
            if "\x00" in value or not (value.isascii() or _text_problem(value) is None):
                return False
        elif kind is int:
            if not -INT64_MAX - 1 <= value <= INT64_MAX:
                return False
        elif kind is float:
            if not math.isfinite(value):
                return False
        elif not (value is None or kind is bool or _clean(value)):
            return False
    return True


#: Each dataclass's field names, read once per type.
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    """A dataclass's field names (what ``asdict`` reads), or none for any other type."""
    found = _FIELD_NAMES.get(kind)
    if found is None:
        found = tuple(each.name for each in fields(kind)) if is_dataclass(kind) else ()
        _FIELD_NAMES[kind] = found
    return found


def _walk(path: str, value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield f"{path} key", key
            yield from _walk(f"{path}.{key}" if problem_with(key) is None else f"{path}.?", item)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _walk(f"{path}[{index}]", item)
    else:
        yield path, value
