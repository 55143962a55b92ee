"""How long failure reasons and reports get when a check reads a long list.

One sample records N events (9,001 by default) on a channel the case expects three items on
and forbids one item of; its reasons quote a few items and count the rest, so the stored
reasons and the reports stay small however long the list. Prints each reason's length and
each report's size.

Run: ``python bench/reason_sizes.py [events]``.
"""

from __future__ import annotations

import sys

import assay_agents as assay
from assay_agents.report import Report


def main(events: int) -> None:
    observed = [f"order.event_{number:05d}" for number in range(events)]

    def agent(question: str, ctx: assay.AgentContext) -> assay.Outcome:
        return assay.Outcome(answer="Done.", observation={"events": list(observed)})

    suite = assay.Suite("Reasons", agent=agent)
    suite.case(
        "Ship the order",
        id="ship",
        observation={"events": ["order.created", "order.paid", "order.shipped"]},
        forbid={"events": [observed[min(7, events - 1)]]},
    )
    run = assay.run(suite, db=assay.MemoryRunStore(), progress=False)
    for metric in run.samples[0].metrics:
        print(f"reason of {metric.name}: {len(metric.reason or ''):,} characters")
    report = Report(run)
    for name, text in (("text", report.to_text()), ("markdown", report.to_markdown())):
        print(f"{name} report: {len(text.encode()):,} bytes")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9_001)
