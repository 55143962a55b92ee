"""The JSON report: the run's own snapshot at the top level, plus its comparisons.

It is not a wrapper around the run: a consumer reads ``report["summary"]["pass_rate"]`` the
same way it reads a run snapshot, and finds ``comparison`` (against the baseline) and
``model_comparison`` (the intervals) beside it. A withheld headline carries its reason and no
pass-rate figure at all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from assay.compare import Comparison, ModelComparison
from assay.record import snapshot
from assay.report.prose import comparison_json, model_comparison_json
from assay.results import Run
from assay.results.fixes import FixItem, fix_items
from assay.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION
from assay.text import json_visible


def report_dict(
    run: Run,
    comparison: Comparison | None,
    models: ModelComparison | None = None,
    items: Sequence[FixItem] | None = None,
) -> dict[str, Any]:
    """The run's snapshot with ``"schema_version"``, the comparisons and ``"fix_items"``."""
    data = {SCHEMA_KEY: SCHEMA_VERSION, **snapshot(run)}  # read back by assay.report.archive
    data["comparison"] = None if comparison is None else comparison_json(comparison)
    data["model_comparison"] = None if models is None else model_comparison_json(models)
    shown = fix_items(run.samples) if items is None else items
    data["fix_items"] = [item.to_json() for item in shown]
    return data


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
