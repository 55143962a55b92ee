"""Figures at the edges of their rules, in the text and Markdown reports (snapshots).

A judge mean just below its minimum, a check score that rounds half up, a sample that cost
nothing, one that cost less than a tenth of a cent and one that was never priced: each is
written by the one formatting module, and the legend for ``~`` comes once, at the end, because
the cost covers only some of the samples although none of it was estimated.

Regenerate after a deliberate change with ``ASSAY_UPDATE_SNAPSHOTS=1`` and review the diff.
"""

from __future__ import annotations

from collections.abc import Callable

from assay_agents.agent import Usage
from assay_agents.report import Report
from assay_agents.report.format import ESTIMATED_LEGEND
from assay_agents.results import errored, scored

from .conftest import make_run, sample


def _run():
    return make_run(
        [
            sample(
                "order-status",
                (
                    scored("exact_match", "check", "content", 1.0, 1.0, "matches"),
                    scored("semantic_accuracy", "judge", "quality", 0.7, 0.695, "nearly"),
                ),
                answer="Order 42 has shipped.",
                duration_ms=999.6,
                usage=Usage(120, 18, 0.0, "reported"),
            ),
            sample(
                "refund",
                (
                    scored("actions", "check", "actions", 1.0, 0.125, "one call of eight"),
                    scored("semantic_accuracy", "judge", "quality", 0.7, 0.7004, "just"),
                ),
                answer="Refund issued.",
                duration_ms=1235.0,
                usage=Usage(300, 25, 0.000512, "reported"),
            ),
            sample(
                "escalation",
                (errored("contains", "check", "content", 1.0, "the agent gave no answer"),),
                error="TimeoutError: no answer within 30 s",
                duration_ms=30000.0,
            ),
        ],
        run_id="run-0009",
        sequence=9,
    )


def test_figures_at_their_edges_text(snapshot: Callable[[str, str], None]) -> None:
    text = Report(_run()).to_text()
    snapshot("figures_at_the_edges.txt", text)
    # Never "70% ≥ 70%" for a mean that missed, nor for one just above.
    assert "judge  69.5%  ≥ 70%      failed" in text
    assert "judge  70.04%  ≥ 70%      passed" in text
    assert "$0.00" in text and "$0.000512" in text
    assert text.count(ESTIMATED_LEGEND) == 1 and text.rstrip().endswith(ESTIMATED_LEGEND)


def test_figures_at_their_edges_markdown(snapshot: Callable[[str, str], None]) -> None:
    markdown = Report(_run()).to_markdown()
    snapshot("figures_at_the_edges.md", markdown)
    assert "| semantic_accuracy | judge | 69.5% | ≥ 70% | failed | nearly |" in markdown
    assert markdown.count("estimated from tokens") == 1
