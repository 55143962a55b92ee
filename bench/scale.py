"""Memory and throughput at scale: N samples of an in-process agent, three checks each,
persisted to a fresh SQLite file, each N in its own Python process so that its peak RSS
(``VmHWM``, read by the child at exit) is that run's own.

Targets: at N = 100,000 peak RSS < 400 MB (results stream to the database; nothing grows with
N but the summary) and throughput within 20% of the N = 10,000 figure. The largest N then runs
again on the same file, as a suite run every day does: compared with the first run, its
baseline, whose peak RSS and throughput are printed against the same targets.
Run: ``python bench/scale.py [N ...]`` (default: 10000 100000).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

BASE = 10_000
LIMIT_MB = 400.0

CHILD = """
import asyncio
import itertools
import json
import sys
import time

import assay_agents as assay
from assay_agents import checks
from assay_agents.results import summarise

samples = int(sys.argv[1])
database = sys.argv[2]


async def agent(text, ctx):
    return f"answer to {text}"


def peak_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


suite = assay.Suite(
    "scale bench",
    agent=agent,
    checks=[checks.contains("answer"), checks.not_contains("error"), checks.min_length(5)],
)
for index in range(samples):
    suite.case(f"question {index}")
before = peak_mb()
store = assay.Store.open(f"sqlite:///{database}", migrate=True)
started = time.perf_counter()
evaluation = asyncio.run(assay.evaluate_async(suite, db=store, concurrency=64, progress=False))
elapsed = time.perf_counter() - started
peak = peak_mb()  # the run's own: what follows only checks it
run = evaluation.run
stored = len(store.sample_keys(run.id))
# The stored summary is the one counted again from the stored samples, read in pages.
recounted = summarise(itertools.chain.from_iterable(store.sample_pages(run.id)))
summary = store.run_head(run.id).summary
store.close()
assert run.summary is not None and run.summary.passed == samples, run.summary
assert stored == samples, stored
assert summary == run.summary == recounted, (summary, recounted)
assert len(run.samples) == samples and run.samples[-1].case_id == f"question {samples - 1}"
compared = evaluation.comparison
paired = 0 if compared is None else compared.paired
print(json.dumps({"n": samples, "wall": elapsed, "peak_mb": peak, "suite_mb": before,
                  "paired": paired}))
"""


def measure(samples: int, database: Path) -> dict[str, float]:
    """One run of ``samples`` samples in a process of its own, stored in ``database``."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD), str(samples), str(database)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"N={samples} exited {done.returncode}:\n{done.stderr}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    sizes = [int(value) for value in sys.argv[1:]] or [BASE, 100_000]
    with tempfile.TemporaryDirectory() as scratch:
        files = {samples: Path(scratch) / f"scale_{samples}.db" for samples in sizes}
        results = [measure(samples, files[samples]) for samples in sizes]
        largest = max(sizes)
        again = measure(largest, files[largest])
    if again["paired"] != largest:
        raise SystemExit(f"the second run compared {again['paired']} items, not {largest:,}")
    base = next((r for r in results if r["n"] == BASE), results[0])
    base_rate = base["n"] / base["wall"]
    print(
        f"{'N':>8} {'wall s':>8} {'samples/s':>10} {'peak RSS MB':>12} {'cases built MB':>15} "
        f"{'run KB/sample':>14}"
    )
    for r in results:
        # What the run added to the process, per sample: the suite's own cases set aside.
        per_sample = (r["peak_mb"] - r["suite_mb"]) * 1024 / r["n"]
        print(
            f"{int(r['n']):>8,} {r['wall']:>8.2f} {r['n'] / r['wall']:>10,.0f} "
            f"{r['peak_mb']:>12.0f} {r['suite_mb']:>15.0f} {per_sample:>14.2f}"
        )
    for r in results:
        if r is base:
            continue
        rate = r["n"] / r["wall"]
        ratio = rate / base_rate
        rss_ratio = r["peak_mb"] / base["peak_mb"]
        grown = (r["peak_mb"] - base["peak_mb"]) * 1024 / (r["n"] - base["n"])
        print(
            f"N={int(r['n']):,} vs N={int(base['n']):,}: throughput x{ratio:.2f} "
            f"(target >= 0.80) {'OK' if ratio >= 0.8 else 'MISSED'}; peak RSS x{rss_ratio:.2f}, "
            f"{grown:.2f} KB per added sample"
        )
        if r["n"] >= 100_000:
            ok = r["peak_mb"] < LIMIT_MB
            print(
                f"peak RSS at N={int(r['n']):,}: {r['peak_mb']:.0f} MB "
                f"(target < {LIMIT_MB:.0f}) {'OK' if ok else 'MISSED'}"
            )
    _again(again, base)


def _again(again: dict[str, float], base: dict[str, float]) -> None:
    """The largest N run again, compared with the first run: its figures and verdicts."""
    ratio = (again["n"] / again["wall"]) / (base["n"] / base["wall"])
    ok = again["peak_mb"] < LIMIT_MB
    print(
        f"N={int(again['n']):,} again, compared with its baseline ({int(again['paired']):,} "
        f"items): {again['wall']:.2f} s, throughput x{ratio:.3f} of N={int(base['n']):,} "
        f"(target >= 0.80) {'OK' if ratio >= 0.8 else 'MISSED'}; "
        f"peak RSS {again['peak_mb']:.0f} MB (target < {LIMIT_MB:.0f}) {'OK' if ok else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
