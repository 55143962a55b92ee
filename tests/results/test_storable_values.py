"""The storable rule on every kind of value, wherever it sits in what an agent returned."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import assay_agents as assay
from assay_agents.results import SampleStatus, Traces
from assay_agents.results.storable import INT64_MAX, first_problem, storable

BAD = {
    "NUL": ("a\x00b", "contains a NUL character"),
    "surrogate": ("half \ud800 pair", "lone surrogate"),
    "big int": (INT64_MAX + 1, "beyond 64 bits"),
    "small int": (-INT64_MAX - 2, "beyond 64 bits"),
    "nan": (float("nan"), "not a finite number"),
    "inf": (float("inf"), "not a finite number"),
    "-inf": (float("-inf"), "not a finite number"),
}
GOOD = ("plain", "déjà vu ✓", "", INT64_MAX, -INT64_MAX - 1, 1.5, 0, True, None)


def places(value: Any) -> dict[str, tuple[dict[str, Any], str]]:
    """Each place a value can sit, with the path the error names."""
    calls = [{"operation": "chat", "model": "m", "latency_ms": 1.0}, {"operation": "x", "k": value}]
    return {
        "metadata value": ({"metadata": {"k": value}}, "metadata.k"),
        "metadata key": ({"metadata": {value: 1}}, "metadata key"),
        "list item": ({"metadata": {"k": [1, "x", value]}}, "metadata.k[2]"),
        "captured call": ({"metadata": {"captured_calls": calls}}, "metadata.captured_calls[1].k"),
        "tuple item": ({"metadata": {"k": ("x", value)}}, "metadata.k[1]"),
        "action result": (
            {"actions": (assay.Action("t", {"a": [value]}, result="r", result_bytes=1),)},
            "actions[0].arguments.a[0]",
        ),
    }


def sample(**fields: Any) -> assay.SampleResult:
    return assay.SampleResult("c", None, 0, SampleStatus.PASSED, answer="ok", **fields)


def pairs(values: dict[str, Any]) -> list[tuple[str, str]]:
    """Each value in each place (a key is text only)."""
    return [
        (name, place)
        for name, value in values.items()
        for place in places(0)
        if place != "metadata key" or isinstance(value, str)
    ]


@pytest.mark.parametrize(("kind", "place"), pairs({k: v for k, (v, _) in BAD.items()}))
def test_a_bad_value_anywhere_is_refused_naming_where_it_is(kind: str, place: str) -> None:
    value, problem = BAD[kind]
    fields, path = places(value)[place]
    found = first_problem(sample(**fields))
    assert found is not None and found.startswith(path) and problem in found, found
    assert storable(sample(**fields)).status is SampleStatus.ERROR


@pytest.mark.parametrize(("index", "place"), pairs({str(i): v for i, v in enumerate(GOOD)}))
def test_a_good_value_anywhere_is_kept(index: str, place: str) -> None:
    fields, _ = places(GOOD[int(index)])[place]
    kept = sample(**fields)
    assert first_problem(kept) is None and storable(kept) is kept


def test_with_traces_is_the_result_with_its_traces_and_nothing_else() -> None:
    result = sample(metadata={"k": [1]}, duration_ms=3.0, error=None)
    traces = Traces("0" * 31 + "1", ("0" * 31 + "2",))
    assert result.with_traces(traces) == dataclasses.replace(result, traces=traces)
    assert result.traces is None  # the original is left as it was
