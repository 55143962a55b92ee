"""The JSON report: the run's own snapshot at the top level, plus its comparison.

It is not a wrapper around the run: a consumer reads ``report["summary"]["pass_rate"]`` the
same way it reads a run snapshot, and finds the comparison beside it.
"""

from __future__ import annotations

import json
from typing import Any

from assay.compare import RunComparison
from assay.results import Run


def report_dict(run: Run, comparison: RunComparison | None) -> dict[str, Any]:
    """``run.snapshot()`` with ``"comparison"`` added (``None`` without a baseline)."""
    data = run.snapshot()
    data["comparison"] = None if comparison is None else comparison.to_json()
    return data


def render_json(run: Run, comparison: RunComparison | None) -> str:
    """Render the JSON report as indented text, non-ASCII characters kept as they are."""
    return json.dumps(report_dict(run, comparison), indent=2, ensure_ascii=False)
