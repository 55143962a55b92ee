"""Piped progress (a CI log): lines as the run goes, on standard error, reusable run after run."""

import time

from assay_agents.results import SampleResult, SampleStatus
from assay_agents.runner.progress import LogProgress


def _until(capsys, text: str) -> str:
    """What standard error received until ``text`` appeared (a tick is due, not timed)."""
    seen = ""
    deadline = time.monotonic() + 30
    while text not in seen:
        assert time.monotonic() < deadline, seen
        seen += capsys.readouterr().err
        time.sleep(0.001)
    return seen


def test_a_display_reused_for_a_second_run_counts_afresh_and_keeps_ticking(capsys):
    progress = LogProgress(interval=0.001)
    for run in ("first", "second"):
        progress.start(2, run)
        progress.advance(SampleResult("q0", None, 0, SampleStatus.PASSED))
        progress.advance(SampleResult("q1\x1b[2J", "m", 0, SampleStatus.ERROR, error="boom\nhere"))
        seen = _until(capsys, "progress: 2/2 samples · 1 passed · 0 failed · 1 errors")
        progress.stop()
        seen += capsys.readouterr().err  # nothing of this run is left for the next to read
        assert f"running {run}: 2 sample(s)" in seen
        assert "error q1\\x1b[2J · m #0: agent error: boom here\n" in seen
