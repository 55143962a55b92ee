"""Every report format of a large run with long answers: render time and size.

The run is real: a suite of N/2 cases on two models runs through the evaluation engine into
the in-memory store; every answer is about 35 KB of prose with markup in it, and every sample
fails a check, so each one is shown in full. Prints the best of three renders per format.

Run: ``python bench/report_formats.py [samples]`` (default 3,000).
"""

from __future__ import annotations

import sys
import time

import assay_agents as assay
from assay_agents import checks
from assay_agents.report import Report

FORMATS = ("text", "markdown", "json", "html", "junit")
MODELS = ["model-a", "model-b"]
ROUNDS = 3
SENTENCE = "Order {n} has <b>shipped</b> & more: see www.example.com/track_{n} or *ask* [us]. "


def agent(question: str, ctx: assay.AgentContext) -> str:
    """About 35 KB of answer, the same sentence over and over."""
    number = int(question.rsplit(" ", 1)[1])
    return SENTENCE.format(n=number) * 450


def run_of(samples: int) -> assay.Run:
    suite = assay.Suite("Formats", agent=agent, checks=[checks.contains("never said")])
    for number in range(samples // len(MODELS)):
        suite.case(f"Where is order {number}", id=f"case-{number}")
    store = assay.MemoryRunStore()
    return assay.run(suite, db=store, progress=False, models=MODELS, concurrency=64)


def timed(run: assay.Run, fmt: str) -> tuple[float, int]:
    started = time.perf_counter()
    written = Report(run).render(fmt)
    return time.perf_counter() - started, len(written.encode("utf-8"))


def main() -> None:
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 3_000
    run = run_of(samples)
    answer = len(run.samples[0].answer or "")
    print(f"{samples:,} samples, answers of {answer / 1000:.0f} KB")
    for fmt in FORMATS:
        took, size = min(timed(run, fmt) for _ in range(ROUNDS))
        print(f"  {fmt:<9} {took:6.2f} s best of {ROUNDS}, {size / 1_000_000:6.1f} MB")


if __name__ == "__main__":
    main()
