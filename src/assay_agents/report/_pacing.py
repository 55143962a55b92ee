"""The lines a report gives rate limits: the retries and waits, then each adjustment."""

from __future__ import annotations

from typing import Any

from assay_agents.record import write
from assay_agents.report import format as fmt
from assay_agents.report._reading import plural
from assay_agents.results import Run
from assay_agents.results.pacing import Adjustment, RunPacing

#: Adjustments listed at most; the rest are counted.
SHOWN_ADJUSTMENTS = 20


def rate_limit_lines(run: Run) -> tuple[str, ...]:
    """``3 retries in 2 samples after rate limits · 1.5 s waited``, then each adjustment."""
    return pacing_lines(RunPacing.of(sample.pacing for sample in run.samples))


def pacing_lines(pacing: RunPacing | None) -> tuple[str, ...]:
    """The lines of :func:`rate_limit_lines`, from the run's gathered pacing."""
    if pacing is None:
        return ()
    lines = [
        f"{pacing.retries} {'retry' if pacing.retries == 1 else 'retries'} in "
        f"{plural(pacing.retried_samples, 'sample')} after rate limits or transient failures"
        f" · {fmt.duration_ms(pacing.waited_s * 1000)} waited"
    ]
    lines += [adjustment_line(a) for a in pacing.adjustments[:SHOWN_ADJUSTMENTS]]
    hidden = len(pacing.adjustments) - SHOWN_ADJUSTMENTS
    if hidden > 0:
        lines.append(f"… {plural(hidden, 'more adjustment')} (the JSON report lists every one)")
    return tuple(lines)


def adjustment_line(adjustment: Adjustment) -> str:
    """``03:51:02 openai/gpt-4.1-mini: 8 → 4 (rate limited)`` (UTC)."""
    return (
        f"{adjustment.at:%H:%M:%S} {adjustment.model}: concurrency "
        f"{adjustment.before} → {adjustment.after} ({adjustment.reason})"
    )


def rate_limits_json(run: Run) -> dict[str, Any] | None:
    """The run's retries, waits and every adjustment, as the JSON report gives them."""
    pacing = RunPacing.of(sample.pacing for sample in run.samples)
    if pacing is None:
        return None
    written = write(pacing)
    assert isinstance(written, dict)
    return written
