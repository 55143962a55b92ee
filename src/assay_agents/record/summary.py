"""A completed run's summary in its stored form.

Version 1 (no ``schema_version``, the first release) and version 2 hold the same kinds of
figures; versions before this one lack the figures added since. Read with the run's samples,
a figure a stored summary lacks is counted from them (never defaulted to a value the run
did not have); read without them (a history listing), it takes its default.

Summaries stored before ``run_judge_usage`` left the run's own judge calls (the model
verdict) out of the judge totals and ``total_cost_usd``; read with the run's judge usage,
they are counted in, as this version counts them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from assay_agents.record._typed import read, write
from assay_agents.record._version import SCHEMA_KEY, SCHEMA_VERSION, version_of
from assay_agents.results import JudgeUsage, RunSummary, SampleResult, summarise
from assay_agents.results.summary import with_run_judge_usage


def write_summary(summary: RunSummary) -> dict[str, Any]:
    """The stored form of a summary, with its ``schema_version``."""
    return {SCHEMA_KEY: SCHEMA_VERSION, **cast(dict[str, Any], write(summary))}


def read_summary(
    data: object,
    path: str = "summary",
    samples: Sequence[SampleResult] | None = None,
    run_judge_usage: JudgeUsage | None = None,
) -> RunSummary:
    """The summary a stored form holds (any version); :class:`RecordError` when damaged.

    With ``samples`` (the run's, all of them), figures the stored form lacks are counted;
    with ``run_judge_usage`` (the run's own judge calls), a form that left them out of its
    totals has them counted in.
    """
    version_of(data, path)
    older = isinstance(data, Mapping) and _RUN_USAGE not in data
    if samples is not None and isinstance(data, Mapping):
        data = _filled(data, write_summary(summarise(samples)))
        if older:
            data = {key: value for key, value in data.items() if key != _RUN_USAGE}
    summary = cast(RunSummary, read(RunSummary, data, path))
    return with_run_judge_usage(summary, run_judge_usage) if older else summary


#: The key whose absence marks a summary whose totals left the run's judge calls out.
_RUN_USAGE = "run_judge_usage"


def _filled(stored: Mapping[str, Any], counted: Mapping[str, Any]) -> dict[str, Any]:
    """``stored`` with the figures it lacks taken from ``counted``, per model too."""
    filled = {**{k: v for k, v in counted.items() if k != "by_model"}, **stored}
    models = stored.get("by_model")
    if isinstance(models, Mapping):
        ours = counted.get("by_model") or {}
        filled["by_model"] = {
            label: {**ours.get(label, {}), **tally} if isinstance(tally, Mapping) else tally
            for label, tally in models.items()
        }
    return filled
