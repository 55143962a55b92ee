"""The dashboard over a large history: p95 latency of its pages, on SQLite and PostgreSQL.

Seeds a history of ``--runs`` completed runs of one suite, each of ``--samples`` samples (a
case each, with an answer, an action and a check; every seventh case fails in every other
run), each run naming the one before as its baseline. The first run is real (the evaluation
engine, into the in-memory store); the others are copies of it written through the store as
a run is. Then serves the dashboard with uvicorn on a free port and times ``--requests``
requests of each page with an HTTP client (``httpx``): the runs page (filtered and not), a
run page, a case page with its history, and a trend. Each page is measured cold (``--cold``
first views of distinct paths: other runs, cases, list pages, so nothing of them is kept yet;
the server's own start is excluded) and warm (``--requests`` views of ten of those paths
again). Prints p50 and p95 of both per page, with the load average (target: p95 < 150 ms at
1,000 runs × 1,000 samples), then what one view of each page costs the database: the
queries it sends and, on PostgreSQL, the rows they read (``pg_stat_user_tables``), figures a
loaded machine does not inflate.

Run: ``python bench/dashboard.py --runs 1000 --samples 1000`` measures SQLite (in a
temporary folder) and PostgreSQL (a throwaway cluster started as the tests start theirs,
``initdb``/``pg_ctl``; or the empty database at ``--postgres URL`` or
``ASSAY_BENCH_DATABASE_URL``). ``--sqlite-file PATH`` and ``--postgres-dir PATH`` keep the
histories (measured again without seeding when they hold the runs).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import tempfile
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import sqlalchemy as sa

import assay_agents as assay
from assay_agents import checks
from assay_agents.dashboard import create_app
from assay_agents.results import SampleStatus, summarise
from assay_agents.results.baseline import RunOutcome
from assay_agents.results.sample import SampleResult
from assay_agents.store import Store

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


def _stored(first: assay.Run, number: int, ids: list[str], started: datetime) -> assay.Run:
    odd = number % 2 == 1
    samples = tuple(_flipped(s, i, odd) for i, s in enumerate(first.samples))
    return replace(
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


def seed(url: str, runs: int, first: assay.Run, batch: int = 25) -> list[str]:
    """Write ``runs`` completed runs like ``first`` to the store at ``url``; their ids.

    The first two runs (one passing, one with every seventh case failed) are written through
    the store, as a run is: every stored record is the codec's. The others are copies of
    those rows made by the database (``INSERT … SELECT``), ``batch`` runs a transaction,
    with their own id, start, revision, baseline and sample ids: writing a million samples
    through the codec one run at a time takes most of an hour on a small machine.
    """
    ids: list[str] = []
    started = datetime(2026, 1, 1, tzinfo=UTC)
    clock = time.perf_counter()
    templates: dict[bool, int] = {}
    with Store.open(url, migrate=True) as store:
        for number in range(min(2, runs)):
            stored = store.create_run(_stored(first, number, ids, started))
            assert stored.sequence is not None
            templates[number % 2 == 1] = stored.sequence
            ids.append(stored.id)
    engine = sa.create_engine(url)
    try:
        tables = sa.MetaData()
        tables.reflect(engine, only=["runs", "run_cases", "samples", "metrics"])
        naive = engine.dialect.name == "sqlite"
        for first_number in range(2, runs, batch):
            with engine.begin() as connection:
                for number in range(first_number, min(runs, first_number + batch)):
                    run = _stored(first, number, ids, started)
                    _copy(connection, tables, templates[number % 2 == 1], run, naive)
                    ids.append(run.id)
            done = min(runs, first_number + batch)
            rate = done / (time.perf_counter() - clock)
            if done % 100 < batch or done == runs:
                print(f"  seeded {done:,} runs ({rate:.1f} runs/s)", flush=True)
    finally:
        engine.dispose()
    return ids


def _copy(
    connection: sa.Connection, tables: sa.MetaData, template: int, run: assay.Run, naive: bool
) -> None:
    """Copy the rows of run ``template`` as ``run`` (its id, times, metadata and baseline)."""
    runs, cases = tables.tables["runs"], tables.tables["run_cases"]
    samples, metrics = tables.tables["samples"], tables.tables["metrics"]

    def value(column: sa.Column[object], given: object) -> object:
        if isinstance(given, datetime) and naive:
            given = given.astimezone(UTC).replace(tzinfo=None)
        return sa.literal(given, type_=column.type)

    changed = {
        "id": run.id,
        "status": "running",
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "metadata": dict(run.metadata),
        "baseline_id": run.baseline_id,
    }
    columns = [c for c in runs.columns if c.name != "sequence"]
    chosen = [value(c, changed[c.name]) if c.name in changed else c for c in columns]
    source = sa.select(*chosen).where(runs.c.sequence == template)
    connection.execute(sa.insert(runs).from_select([c.name for c in columns], source))
    sequence = connection.execute(sa.select(runs.c.sequence).where(runs.c.id == run.id)).scalar()
    suffix = f"{sequence:012d}"

    def copied(table: sa.Table, renamed: dict[str, object]) -> sa.Select[object]:
        picked = [renamed.get(c.name, c) for c in table.columns]
        return sa.select(*picked)

    new_run = sa.literal(sequence, type_=runs.c.sequence.type)
    names = [c.name for c in cases.columns]
    connection.execute(
        sa.insert(cases).from_select(
            names, copied(cases, {"run": new_run}).where(cases.c.run == template)
        )
    )
    renamed = sa.func.substr(samples.c.id, 1, 20) + sa.literal(suffix)
    names = [c.name for c in samples.columns]
    connection.execute(
        sa.insert(samples).from_select(
            names,
            copied(samples, {"run": new_run, "id": renamed}).where(samples.c.run == template),
        )
    )
    names = [c.name for c in metrics.columns]
    source = (
        copied(metrics, {"sample": renamed})
        .select_from(metrics.join(samples, metrics.c.sample == samples.c.id))
        .where(samples.c.run == template)
    )
    connection.execute(sa.insert(metrics).from_select(names, source))
    connection.execute(
        sa.update(runs).where(runs.c.sequence == sequence).values(status="completed")
    )


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


def _percentiles(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[max(0, round(0.95 * len(times)) - 1)]


def measure(client: httpx.Client, paths: list[str], requests: int) -> list[float]:
    """Milliseconds of ``requests`` GETs going round ``paths``."""
    times = []
    for index in range(requests):
        path = paths[index % len(paths)]
        started = time.perf_counter()
        answer = client.get(path)
        times.append((time.perf_counter() - started) * 1000)
        assert answer.status_code == 200, (path, answer.status_code)
    return times


def _pages(ids: list[str], runs: int, samples: int) -> dict[str, list[str]]:
    """Each page's paths: distinct ones, so that a first view of each is a cold one."""
    latest = ids[-1]
    spread = [ids[len(ids) - 1 - (i * 7) % len(ids)] for i in range(min(200, len(ids)))]
    filtered = f"/?suite={SUITE}&agent={AGENT}&status=completed&meta=revision%3Drev-"
    return {
        "runs page": [f"/?page={page}" for page in range(1, max(1, runs // 50) + 1)],
        "runs page, filtered": [f"{filtered}{(runs - 1 - i * 3) % runs}" for i in range(200)],
        "run page": [f"/runs/{run_id}" for run_id in spread],
        "case page with history": [
            f"/runs/{latest}/case?id=case-{(i * 13) % samples}" for i in range(200)
        ],
        "trend": [f"/trends?suite={SUITE}&agent={AGENT}&limit={50 + i % 50}" for i in range(200)],
    }


def bench(
    label: str,
    url: str,
    runs: int,
    first: assay.Run,
    requests: tuple[int, int],
    seeded: bool,
) -> None:
    """Seed (unless ``seeded``) and measure: ``requests`` is (cold views, warm views)."""
    cold_requests, requests = requests
    samples = len(first.samples)
    if seeded:
        with Store.open(url) as store:
            ids = [run.id for run in reversed(store.history(suite=SUITE, limit=runs))]
        print(f"{label}: {len(ids):,} runs already seeded")
    else:
        print(f"{label}: seeding {runs:,} runs × {samples:,} samples")
        ids = seed(url, runs, first)
    base, server, thread = _serve(url)
    print(f"  load average before measuring: {_load()}")
    try:
        with httpx.Client(base_url=base, timeout=120) as client:
            # The server's own start (templates, imports) is not a page's first view: the
            # oldest run and its case are in no measured path.
            for path in ("/trends", f"/runs/{ids[0]}", f"/runs/{ids[0]}/case?id=case-0"):
                assert client.get(path).status_code == 200, path
            for name, paths in _pages(ids, len(ids), samples).items():
                # Cold: the first view of each distinct path (nothing of it kept yet).
                cold = measure(client, paths, min(cold_requests, len(paths)))
                # Warm: views again of a few pages seen before (fewer than any cache keeps).
                warm = measure(client, paths[:10], requests)
                c50, c95 = _percentiles(cold)
                w50, w95 = _percentiles(warm)
                verdict = "OK" if max(c95, w95) < TARGET_MS else "MISSED"
                print(
                    f"  {name:<24} cold ({len(cold):>3}) p50 {c50:7.1f} p95 {c95:7.1f} ms"
                    f" | warm ({len(warm)}) p50 {w50:7.1f} p95 {w95:7.1f} ms  {verdict}"
                    f"  [load {_load()}]",
                    flush=True,
                )
            _costs(client, url, _pages(ids, len(ids), samples))
    finally:
        server.should_exit = True  # type: ignore[attr-defined]
        thread.join(timeout=10)


class _Queries:
    """Counts the statements every engine in this process sends (the server's, here)."""

    def __init__(self) -> None:
        self.count = 0
        sa.event.listen(sa.engine.Engine, "before_cursor_execute", self._seen)

    def _seen(self, *args: object) -> None:
        self.count += 1

    def close(self) -> None:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", self._seen)


def _rows_read(engine: sa.Engine | None) -> int | None:
    """Rows PostgreSQL's tables have returned so far (sequential and index reads)."""
    if engine is None:
        return None
    with engine.connect() as connection:
        connection.execute(sa.text("SELECT pg_stat_clear_snapshot()"))
        found = connection.execute(
            sa.text(
                "SELECT sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)) "
                "FROM pg_stat_user_tables"
            )
        ).scalar()
    return int(found or 0)


#: PostgreSQL flushes a backend's table statistics when it has been idle this long.
_STATS_FLUSH_S = 11.0


def _costs(client: httpx.Client, url: str, pages: dict[str, list[str]]) -> None:
    """One first view of each page: the statements it sends and (PostgreSQL) rows it reads."""
    postgres = url.startswith("postgresql")
    engine = sa.create_engine(url) if postgres else None
    queries = _Queries()
    print("  one first view of each page (load-independent):")
    try:
        for name, paths in pages.items():
            path = paths[-1] if len(paths) > 1 else paths[0]
            if name == "run page":
                path += "?cases=2"  # a page of this run's cases not laid out yet
            if postgres:
                time.sleep(_STATS_FLUSH_S)  # earlier reads are counted before this one
            before, sent = _rows_read(engine), queries.count
            answer = client.get(path)
            assert answer.status_code == 200, (path, answer.status_code)
            statements = queries.count - sent
            if postgres:
                time.sleep(_STATS_FLUSH_S)
            after = _rows_read(engine)
            rows = "" if before is None or after is None else f", {after - before:,} rows read"
            print(f"    {name:<24} {statements} statements{rows}", flush=True)
    finally:
        queries.close()
        if engine is not None:
            engine.dispose()


def _load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def _seeded(url: str, runs: int) -> bool:
    """Whether the database at ``url`` already holds the bench's runs."""
    with Store.open(url, migrate=True) as store:
        return len(store.history(suite=SUITE, limit=runs)) >= runs


def _measure_backend(label: str, url: str, options: argparse.Namespace, first: assay.Run) -> None:
    requests = (options.cold, options.requests)
    bench(label, url, options.runs, first, requests, _seeded(url, options.runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=1_000)
    parser.add_argument("--samples", type=int, default=1_000)
    parser.add_argument("--requests", type=int, default=200, help="warm views of each page")
    parser.add_argument(
        "--cold", type=int, default=200, help="first views of each page (distinct paths)"
    )
    parser.add_argument(
        "--postgres",
        default=os.environ.get("ASSAY_BENCH_DATABASE_URL"),
        help="URL of a PostgreSQL database to seed (default: a throwaway cluster)",
    )
    parser.add_argument("--postgres-dir", type=Path, help="keep the throwaway cluster here")
    parser.add_argument("--no-postgres", action="store_true", help="measure SQLite only")
    parser.add_argument("--no-sqlite", action="store_true", help="measure PostgreSQL only")
    parser.add_argument(
        "--sqlite-file", type=Path, help="keep the SQLite history here; measure it if it exists"
    )
    options = parser.parse_args()
    first = template(options.samples)
    if not options.no_sqlite:
        if options.sqlite_file is not None:
            _measure_backend("SQLite", f"sqlite:///{options.sqlite_file}", options, first)
        else:
            with tempfile.TemporaryDirectory() as folder:
                url = f"sqlite:///{Path(folder) / 'history.db'}"
                _measure_backend("SQLite", url, options, first)
    if options.no_postgres:
        return
    if options.postgres:
        _measure_backend("PostgreSQL", options.postgres, options, first)
        return
    from _postgres import cluster

    with cluster(options.postgres_dir) as url:
        _measure_backend("PostgreSQL", url, options, first)


if __name__ == "__main__":
    main()
