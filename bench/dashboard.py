"""The dashboard over a large history: p95 latency of its pages, on SQLite and PostgreSQL.

Seeds a history of ``--runs`` completed runs of one suite, each of ``--samples`` samples (a
case each, with an answer, an action and a check; every seventh case fails in every other
run), each run naming the one before as its baseline. The first run is real (the evaluation
engine, into the in-memory store); the others are copies of it written through the store as
a run is. Then serves the dashboard with uvicorn on a free port and times ``--requests``
requests of each page with an HTTP client (``httpx``): the runs page (filtered and not), a
run page, a case page with its history, and a trend. Prints p50 and p95 per page (target:
p95 < 150 ms at 1,000 runs × 1,000 samples).

Run: ``python bench/dashboard.py --runs 1000 --samples 1000`` (SQLite in a temporary folder);
add ``--postgres URL`` (an empty database) to measure PostgreSQL too.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import tempfile
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

import assay
from assay import checks
from assay.dashboard import create_app
from assay.results import SampleStatus, summarise
from assay.results.baseline import RunOutcome
from assay.results.sample import SampleResult
from assay.store import Store

TARGET_MS = 150.0
SUITE = "Bench dashboard"
AGENT = "BenchAgent"


def _agent(question: str, ctx: assay.AgentContext) -> assay.Outcome:
    number = int(question.rsplit(" ", 1)[1])
    call = assay.Action("lookup_order", {"id": number}, group="orders", result={"n": number})
    return assay.Outcome(answer=f"Order {number} has shipped.", actions=[call])


def template(samples: int) -> assay.Run:
    """One real run of ``samples`` cases, executed by the engine into memory."""
    suite = assay.Suite(SUITE, agent=_agent, agent_name=AGENT, checks=[checks.exact_match()])
    for number in range(samples):
        suite.case(
            f"Where is order {number}", id=f"case-{number}", expected=f"Order {number} has shipped."
        )
    return assay.run(suite, db=assay.MemoryRunStore(), progress=False, concurrency=64)


def _flipped(sample: SampleResult, index: int, odd: bool) -> SampleResult:
    if not odd or index % 7:
        return sample
    metrics = tuple(replace(m, passed=False, score=0.0) for m in sample.metrics)
    return replace(sample, status=SampleStatus.FAILED, metrics=metrics, answer="Not shipped.")


def seed(url: str, runs: int, first: assay.Run) -> list[str]:
    """Write ``runs`` completed runs like ``first`` to the store at ``url``; their ids."""
    ids: list[str] = []
    started = datetime(2026, 1, 1, tzinfo=UTC)
    clock = time.perf_counter()
    with Store.open(url, migrate=True) as store:
        for number in range(runs):
            odd = number % 2 == 1
            samples = tuple(_flipped(s, i, odd) for i, s in enumerate(first.samples))
            run = replace(
                first,
                id=f"bench-{number:06d}-{first.id[:8]}",
                sequence=None,
                number=None,
                started_at=started + timedelta(minutes=number),
                finished_at=started + timedelta(minutes=number, seconds=30),
                samples=samples,
                summary=summarise(samples),
                metadata={"revision": f"rev-{number}"},
                baseline_id=ids[-1] if ids else None,
                comparison=None,
                outcome=RunOutcome.FAILED if odd else RunOutcome.PASSED,
                lease=None,
            )
            store.create_run(run)
            ids.append(run.id)
            if (number + 1) % 50 == 0:
                rate = (number + 1) / (time.perf_counter() - clock)
                print(f"  seeded {number + 1:,} runs ({rate:.1f} runs/s)", flush=True)
    return ids


def _serve(url: str) -> tuple[str, object, threading.Thread]:
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    config = uvicorn.Config(
        create_app(url), host="127.0.0.1", port=port, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, thread


def measure(base: str, path: str, requests: int) -> tuple[float, float]:
    """p50 and p95 in milliseconds of ``requests`` GETs of ``path`` (after one warm-up)."""
    times = []
    with httpx.Client(base_url=base, timeout=60) as client:
        assert client.get(path).status_code == 200, path
        for _ in range(requests):
            started = time.perf_counter()
            answer = client.get(path)
            times.append((time.perf_counter() - started) * 1000)
            assert answer.status_code == 200, (path, answer.status_code)
    times.sort()
    p95 = times[max(0, round(0.95 * len(times)) - 1)]
    return statistics.median(times), p95


def bench(label: str, url: str, runs: int, first: assay.Run, requests: int) -> None:
    print(f"{label}: seeding {runs:,} runs × {len(first.samples):,} samples")
    ids = seed(url, runs, first)
    base, server, thread = _serve(url)
    latest, middle = ids[-1], ids[len(ids) // 2]
    pages = {
        "runs page": "/",
        "runs page, filtered": f"/?suite={SUITE}&agent={AGENT}&status=completed"
        f"&meta=revision%3Drev-{runs // 2}",
        "run page": f"/runs/{middle}",
        "case page with history": f"/runs/{latest}/case?id=case-7",
        "trend": f"/trends?suite={SUITE}&agent={AGENT}",
    }
    try:
        for name, path in pages.items():
            p50, p95 = measure(base, path, requests)
            verdict = "OK" if p95 < TARGET_MS else "MISSED"
            print(
                f"  {name:<24} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms "
                f"(target p95 < {TARGET_MS:.0f} ms) {verdict}"
            )
    finally:
        server.should_exit = True  # type: ignore[attr-defined]
        thread.join(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=1_000)
    parser.add_argument("--samples", type=int, default=1_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--postgres", help="URL of an empty PostgreSQL database to seed too")
    parser.add_argument("--no-sqlite", action="store_true", help="measure PostgreSQL only")
    options = parser.parse_args()
    first = template(options.samples)
    if not options.no_sqlite:
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite:///{Path(folder) / 'history.db'}"
            bench("SQLite", url, options.runs, first, options.requests)
    if options.postgres:
        bench("PostgreSQL", options.postgres, options.runs, first, options.requests)


if __name__ == "__main__":
    main()
