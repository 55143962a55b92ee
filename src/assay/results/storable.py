"""What every store can hold: a sample carrying a value no database keeps becomes an error.

An agent or a judge may hand back text with a NUL character (PostgreSQL refuses it), a lone
surrogate (not UTF-8), an integer beyond 64 bits or a non-finite float. Such a value must
cost its own sample, never the batch it would have been written with: the sample is kept
as an error that names the field, and nothing of the offending value is repeated.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from assay.results.sample import SampleResult, SampleStatus

#: The widest integer a BIGINT column (and a portable JSON reader) holds.
INT64_MAX = 2**63 - 1


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
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (not valid UTF-8)"
    return None


def first_problem(sample: SampleResult) -> str | None:
    """The first field of ``sample`` that no store can hold, as ``field problem``."""
    for path, value in _fields(sample):
        problem = problem_with(value)
        if problem is not None:
            return f"{path} {problem}"
    return None


def storable(sample: SampleResult) -> SampleResult:
    """``sample`` itself, or an error sample naming the field that cannot be stored."""
    problem = first_problem(sample)
    if problem is None:
        return sample
    duration = sample.duration_ms
    kept = duration if duration is not None and math.isfinite(duration) else None
    return SampleResult(case_id=sample.case_id, model=sample.model, sample=sample.sample,
                        status=SampleStatus.ERROR, duration_ms=kept,
                        error=f"a value could not be stored: {problem}", fault="run_error",
                        recommendation=f"The agent produced a value no database can hold "
                                       f"({problem}): clean it before returning it.")


def with_store_refusal(sample: SampleResult, reason: str) -> SampleResult:
    """An error sample in place of one the database refused (``reason`` is the store's)."""
    cleaned = "".join(char if problem_with(char) is None else "?" for char in reason)
    return replace(storable(sample), status=SampleStatus.ERROR, answer=None, actions=None,
                   observation=None, usage=None, metadata={}, metrics=(), judge_usage=None,
                   error=f"the store refused this sample: {cleaned[:500]}", fault="run_error",
                   recommendation="The store refused what the agent produced: see the error.",
                   fault_tools=(), fault_tools_label=None, refinement=None)


def _fields(sample: SampleResult) -> Iterator[tuple[str, Any]]:
    yield "answer", sample.answer
    yield "error", sample.error
    yield "duration_ms", sample.duration_ms
    if sample.usage is not None:
        for name in ("input_tokens", "output_tokens", "cost_usd", "cost_source"):
            yield f"usage.{name}", getattr(sample.usage, name)
    yield from _walk("metadata", sample.metadata)
    if sample.actions is not None:
        for index, action in enumerate(sample.actions):
            yield from _walk(f"actions[{index}]", action.to_json())
    if sample.observation is not None:
        yield from _walk("observation", sample.observation.to_json())
    for index, metric in enumerate(sample.metrics):
        yield from _walk(f"metrics[{index}]", metric.to_json())
    yield from _walk("judge_usage", sample.judge_usage)
    yield "recommendation", sample.recommendation
    yield from _walk("diagnosis", sample.diagnosis_json())


def _walk(path: str, value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield f"{path} key", key
            yield from _walk(f"{path}.{key}" if problem_with(key) is None else f"{path}.?",
                             item)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _walk(f"{path}[{index}]", item)
    else:
        yield path, value
