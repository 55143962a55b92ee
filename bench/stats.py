"""Model intervals at scale: 10 models × 10,000 cases × 5,000 resamples (target: under 2 s).

Times :func:`assay_agents.compare.compare_models` on 100,000 stored-shape sample results (reading
the results included) and prints the best of three, with how much of it is the resampling.

Run: ``python bench/stats.py``.
"""

from __future__ import annotations

import random
import time

from assay_agents.compare import ModelComparison, compare_models
from assay_agents.compare.models import case_pass_rates
from assay_agents.results import SampleResult, SampleStatus

MODELS = 10
CASES = 10_000
RESAMPLES = 5_000
ROUNDS = 3


def samples() -> list[SampleResult]:
    rng = random.Random(0)
    rates = [0.9 - 0.04 * index for index in range(MODELS)]
    return [
        SampleResult(
            f"case-{case}",
            f"model-{model}",
            0,
            SampleStatus.PASSED if rng.random() < rates[model] else SampleStatus.FAILED,
        )
        for case in range(CASES)
        for model in range(MODELS)
    ]


def timed(results: list[SampleResult]) -> tuple[float, float, ModelComparison]:
    started = time.perf_counter()
    case_pass_rates(results)
    reading = time.perf_counter() - started
    started = time.perf_counter()
    comparison = compare_models(results, resamples=RESAMPLES)
    return time.perf_counter() - started, reading, comparison


def main() -> None:
    results = samples()
    runs = sorted((timed(results) for _ in range(ROUNDS)), key=lambda run: run[0])
    total, reading, comparison = runs[0]
    verdict = "OK" if total < 2.0 else "MISSED"
    print(
        f"{MODELS} models × {CASES:,} cases × {RESAMPLES:,} resamples: "
        f"{total:.2f} s best of {ROUNDS} ({reading:.2f} s reading results, "
        f"{len(comparison.pairs)} pairs) (target < 2 s) {verdict}"
    )
    print(comparison.conclusion[:160] + "…")


if __name__ == "__main__":
    main()
