"""The JSON report: the run's own snapshot at the top level, plus its comparisons.

It is not a wrapper around the run: a consumer reads ``report["summary"]["pass_rate"]`` the
same way it reads a run snapshot, and finds ``comparison`` (against the baseline) and
``model_comparison`` (the intervals) beside it. A withheld headline carries its reason and no
pass-rate figure at all. The numbers stay as stored (0..1, USD, milliseconds); ``display``
holds the same figures as every other report writes them (``"42%"``, ``"~$0.0246"``), and the
legend a ``~`` figure calls for.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from assay_agents.compare import Comparison, ModelComparison
from assay_agents.record import snapshot, write
from assay_agents.report import _reading as reading
from assay_agents.report import format as fmt
from assay_agents.report._pacing import rate_limits_json
from assay_agents.report.prose import comparison_json, model_comparison_json
from assay_agents.report.view import (
    CriterionFigures,
    Figures,
    Limits,
    criteria_of,
    figures_of,
    limits_of,
)
from assay_agents.results import Run, SampleResult, Tally
from assay_agents.results.fixes import FixItem, fix_items
from assay_agents.results.reliability import item_rates
from assay_agents.results.summary import check_counts
from assay_agents.text import json_visible


def report_dict(
    run: Run,
    comparison: Comparison | None,
    models: ModelComparison | None = None,
    items: Sequence[FixItem] | None = None,
) -> dict[str, Any]:
    """The run's snapshot (``"schema_version"`` first), the comparisons and ``"fix_items"``."""
    data = snapshot(run)  # read back by assay_agents.report.archive
    data["comparison"] = None if comparison is None else comparison_json(comparison)
    data["model_comparison"] = None if models is None else model_comparison_json(models)
    shown = fix_items(run.samples) if items is None else items
    data["fix_items"] = [write(item) for item in shown]
    data["behaviours"] = behaviours_json(run.samples)
    data["display"] = display_json(run)
    data["rate_limits"] = rate_limits_json(run)
    return data


def behaviours_json(samples: Sequence[SampleResult]) -> list[dict[str, Any]]:
    """Distinct behaviours per case and model, where the text and Markdown reports show them.

    One entry per case on a model with two or more evaluated samples: ``case_id``,
    ``model``, ``samples``, ``behaviours`` (distinct deterministic signatures: calls,
    observation channels, check verdicts) and ``checks_passed`` (samples whose checks all
    passed).
    """
    return [
        {
            "case_id": rate.case_id,
            "model": rate.model,
            "samples": rate.samples,
            "behaviours": rate.behaviours,
            "checks_passed": rate.passed,
        }
        for rate in item_rates(samples)
        if rate.samples >= 2
    ]


def display_json(run: Run) -> dict[str, Any]:
    """The run's figures as the reports write them: the summary's, each model's, the legend."""
    summary, _ = reading.summary_of(run)
    limits = limits_of(run)
    return {
        "summary": _figures(summary, limits, run.samples),
        "models": {
            label: _figures(tally, limits, [s for s in run.samples if s.model == label])
            for label, tally in summary.by_model.items()
        },
        "legend": fmt.ESTIMATED_LEGEND if reading.marked(summary, run.samples) else None,
    }


_FIGURES = (
    "pass_rate",
    "check_pass_rate",
    "check_score",
    "latency_avg",
    "latency_p50",
    "latency_p95",
    "input_tokens",
    "output_tokens",
    "cost",
    "cost_per_1000",
    "judge_cost",
)


def _figures(tally: Tally, limits: Limits, samples: Sequence[SampleResult]) -> dict[str, Any]:
    figures: Figures = figures_of(
        tally, estimated=tally.estimated > 0, limits=limits, checked=check_counts(samples)
    )
    shown: dict[str, Any] = {name: getattr(figures, name).text for name in _FIGURES}
    shown["criteria"] = {c.name: _criterion(c) for c in criteria_of(tally, limits)}
    return shown


def _criterion(criterion: CriterionFigures) -> dict[str, str]:
    return {
        "mean": criterion.mean.text,
        "passed": criterion.passed.text,
        "vote_spread": criterion.vote_spread.text,
    }


def render_json(
    run: Run,
    comparison: Comparison | None,
    models: ModelComparison | None = None,
    items: Sequence[FixItem] | None = None,
) -> str:
    r"""Render the JSON report as indented text, non-ASCII characters kept as they are.

    Controls a terminal would act on are ``\u`` escapes, as JSON escapes C0 controls.
    """
    text = json.dumps(report_dict(run, comparison, models, items), indent=2, ensure_ascii=False)
    return json_visible(text)
