"""Reading the history a page at a time: filtered runs, one case of a run, a case's history.

The dashboard reads these through :class:`~assay.store.Store`. Each answer is built from the
stored summaries and from the one case asked about: no run is loaded whole to list it.
Every value in a query is a bound parameter; the metadata key is one too.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from typing import Any, cast

from sqlalchemy import (
    Connection,
    Float,
    RowMapping,
    String,
    and_,
    exists,
    func,
    literal,
    or_,
    select,
)

from assay.results import MetricResult, Run, SampleResult
from assay.store import _reads, _rows
from assay.store._tables import metrics, run_cases, runs, samples

#: The stored statuses a run page can be filtered by (``stale`` is a running run whose
#: owner stopped beating: the application layer tells them apart).
STORED_STATUSES = ("running", "completed", "interrupted")


@dataclass(frozen=True, kw_only=True)
class RunFilter:
    """Which runs to list: each field that is not ``None`` must match.

    ``model`` is one of the run's model labels; ``started_from`` and ``started_before``
    bound the start time (inclusive, exclusive); ``metadata`` is ``(key, value)``: a stored
    string equal to ``value``, or a stored number equal to it when ``value`` reads as one
    (``7`` matches ``7``, ``7.0`` and ``"7"``). ``beat_before`` keeps running runs whose last
    sign of life (the heartbeat, else the start) is older than it (lapsed leases: stale);
    ``beat_from`` keeps those whose last sign of life is not.
    """

    suite: str | None = None
    agent: str | None = None
    model: str | None = None
    status: str | None = None
    started_from: datetime | None = None
    started_before: datetime | None = None
    metadata: tuple[str, str] | None = None
    beat_before: datetime | None = None
    beat_from: datetime | None = None


@dataclass(frozen=True, kw_only=True)
class RunsPage:
    """Runs newest first (summaries only, no samples), and whether more follow."""

    runs: tuple[Run, ...]
    offset: int
    more: bool


@dataclass(frozen=True, kw_only=True)
class CaseRun:
    """One case in one run: the run, the case's definition fingerprint, its samples' statuses."""

    run_id: str
    number: int
    started_at: datetime
    fingerprint: str | None
    statuses: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class Names:
    """The suites, agents and models the history holds, for filter menus."""

    suites: tuple[str, ...]
    agents: tuple[str, ...]
    models: tuple[str, ...]


#: How many completed runs' heads a store keeps decoded for lists.
HEADS_KEPT = 5_000


class Heads:
    """Completed runs' heads, decoded once, by sequence (a completed run never changes).

    Safe to share between the threads of one server; the oldest are dropped past
    :data:`HEADS_KEPT`.
    """

    def __init__(self) -> None:
        self._runs: OrderedDict[int, Run] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sequence: int) -> Run | None:
        """The head kept for ``sequence``, if any."""
        with self._lock:
            found = self._runs.get(sequence)
            if found is not None:
                self._runs.move_to_end(sequence)
            return found

    def keep(self, sequence: int, run: Run) -> None:
        """Keep ``run``'s head (only a completed run's: it never changes)."""
        with self._lock:
            self._runs[sequence] = run
            while len(self._runs) > HEADS_KEPT:
                self._runs.popitem(last=False)


def runs_page(
    connection: Connection,
    where: RunFilter,
    *,
    offset: int,
    limit: int,
    heads: Heads | None = None,
) -> RunsPage:
    """The ``limit`` runs after ``offset`` matching ``where``, newest first.

    ``heads`` keeps completed runs already decoded, by sequence: a completed run never
    changes, so a list shown again decodes only the runs that are new or still open.
    """
    # First the page's sequences (and numbers), then whole rows only for runs not yet decoded.
    query = select(runs.c.sequence, runs.c.status, _number()).where(*_conditions(connection, where))
    query = query.order_by(runs.c.sequence.desc()).offset(offset).limit(limit + 1)
    listed = connection.execute(query).all()
    fetched: dict[int, Run] = {}
    for row in listed[:limit]:
        cached = None if heads is None else heads.get(int(row[0]))
        if cached is not None:
            fetched[int(row[0])] = cached
    missing = [int(row[0]) for row in listed[:limit] if int(row[0]) not in fetched]
    if missing:
        full = select(runs).where(runs.c.sequence.in_(missing))
        numbers = {int(row[0]): int(row[2]) for row in listed}
        for whole in connection.execute(full).mappings():
            numbered = dict(whole)
            numbered["number"] = numbers[whole["sequence"]]
            fetched[whole["sequence"]] = _head(numbered, heads)
    found = tuple(fetched[int(row[0])] for row in listed[:limit])
    return RunsPage(runs=found, offset=offset, more=len(listed) > limit)


@cache
def _number() -> Any:
    """The number column, built once (it is the same expression for every list)."""
    return _reads.number_column()


def _head(row: RowMapping | dict[str, Any], heads: Heads | None) -> Run:
    run = replace(_rows.run_from(cast(RowMapping, row)), number=row["number"])
    if heads is not None and row["status"] == "completed":
        heads.keep(row["sequence"], run)
    return run


def _conditions(connection: Connection, where: RunFilter) -> list[Any]:
    found: list[Any] = []
    for column, value in (
        (runs.c.suite, where.suite),
        (runs.c.agent, where.agent),
        (runs.c.status, where.status),
    ):
        if value is not None:
            found.append(column == value)
    if where.started_from is not None:
        found.append(runs.c.started_at >= where.started_from)
    if where.started_before is not None:
        found.append(runs.c.started_at < where.started_before)
    if where.metadata is not None:
        found.append(_metadata_matches(connection, *where.metadata))
    beat = func.coalesce(runs.c.heartbeat_at, runs.c.started_at)
    if where.beat_before is not None:
        found.extend((runs.c.status == "running", beat < where.beat_before))
    if where.beat_from is not None:
        found.extend((runs.c.status == "running", beat >= where.beat_from))
    if where.model is not None:
        found.append(_has_model(connection, where.model))
    return found


def _number_in(value: str) -> float | None:
    """``value`` as a finite number, if it reads as one."""
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _metadata_matches(connection: Connection, key: str, value: str) -> Any:
    """The run's metadata holds ``key``: the string ``value``, or the number it reads as."""
    number = _number_in(value)
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import JSONB

        # jsonb equality compares numbers as numbers (7 = 7.0) and strings as strings.
        stored = func.cast(runs.c.metadata, JSONB).op("->")(literal(key, String()))
        wanted = [stored == func.cast(literal(json.dumps(value)), JSONB)]
        if number is not None:
            wanted.append(stored == func.cast(literal(json.dumps(number)), JSONB))
        return or_(*wanted)
    # SQLite: json_extract gives a stored number as a number and a string as text; the
    # path quotes the key, so that dots and brackets in it are part of the name.
    path = literal("$." + json.dumps(key), String())
    kind = func.json_type(runs.c.metadata, path)
    extracted = func.json_extract(runs.c.metadata, path)
    wanted = [and_(kind == "text", extracted == literal(value, String()))]
    if number is not None:
        wanted.append(and_(kind.in_(("integer", "real")), extracted == literal(number, Float())))
    return or_(*wanted)


def _has_model(connection: Connection, model: str) -> Any:
    """The run names ``model`` among its models (``settings.models``)."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import JSONB

        listed = func.cast(runs.c.settings, JSONB)["models"]
        return listed.op("?")(literal(model))
    each = func.json_each(runs.c.settings, "$.models").table_valued("value")
    return exists(select(literal(1)).select_from(each).where(each.c.value == model))


def progress(connection: Connection, row: RowMapping) -> tuple[int, int]:
    """How many samples a run has stored, and how many it plans (cases × models × samples)."""
    sequence = row["sequence"]
    stored = select(func.count()).select_from(samples).where(samples.c.run == sequence)
    cases = select(func.count()).select_from(run_cases).where(run_cases.c.run == sequence)
    settings = _rows.settings_of(row)
    planned = int(connection.execute(cases).scalar_one()) * max(1, len(settings.models))
    return int(connection.execute(stored).scalar_one()), planned * settings.samples


def run_head(connection: Connection, row: RowMapping, heads: Heads | None = None) -> Run:
    """The run of ``row`` with its summary, numbered, without cases or samples."""
    cached = None if heads is None else heads.get(row["sequence"])
    if cached is not None:
        return cached
    numbered = dict(row)
    numbered["number"] = _reads.number_of(connection, row)
    return _head(numbered, heads)


def run_case(
    connection: Connection,
    row: RowMapping,
    case_id: str,
    heads: Heads | None = None,
) -> Run | None:
    """The run of ``row`` holding one case's snapshot and samples; ``None`` when it has none."""
    sequence = row["sequence"]
    case_rows = connection.execute(
        select(run_cases).where(run_cases.c.run == sequence, run_cases.c.case_id == case_id)
    ).mappings()
    cases = tuple(_rows.case_from(r) for r in case_rows)
    found = _case_samples(connection, sequence, case_id)
    if not cases and not found:
        return None
    head = run_head(connection, row, heads)
    models = {label: rank for rank, label in enumerate(head.settings.models)}
    found.sort(key=lambda s: (models.get(s.model or "", -1), s.model or "", s.sample))
    return replace(head, cases=cases, samples=tuple(found))


def _case_samples(connection: Connection, sequence: int, case_id: str) -> list[SampleResult]:
    rows = (
        connection.execute(
            select(samples).where(samples.c.run == sequence, samples.c.case_id == case_id)
        )
        .mappings()
        .all()
    )
    by_sample: dict[str, list[MetricResult]] = defaultdict(list)
    if rows:
        query = (
            select(metrics)
            .where(metrics.c.sample.in_([r["id"] for r in rows]))
            .order_by(metrics.c.sample, metrics.c.position)
        )
        for metric in connection.execute(query).mappings():
            by_sample[metric["sample"]].append(_rows.metric_from(metric))
    return [_rows.sample_from(r, by_sample.get(r["id"], ())) for r in rows]


def case_history(
    connection: Connection, *, suite: str, agent: str, case_id: str, before: int, limit: int
) -> list[CaseRun]:
    """The case's sample statuses in the latest ``limit`` runs of ``suite`` and ``agent``.

    Only runs up to sequence ``before`` (included) count; newest first.
    """
    recent = (
        select(runs.c.sequence)
        .where(runs.c.suite == suite, runs.c.agent == agent, runs.c.sequence <= before)
        .order_by(runs.c.sequence.desc())
        .limit(limit)
        .subquery()
    )
    query = (
        select(
            runs.c.sequence,
            runs.c.id,
            runs.c.suite,
            runs.c.started_at,
            run_cases.c.fingerprint,
            samples.c.status,
            func.count().label("count"),
        )
        .select_from(runs)
        .join(recent, recent.c.sequence == runs.c.sequence)
        .join(samples, and_(samples.c.run == runs.c.sequence, samples.c.case_id == case_id))
        .outerjoin(
            run_cases,
            and_(run_cases.c.run == runs.c.sequence, run_cases.c.case_id == case_id),
        )
        .group_by(
            runs.c.sequence,
            runs.c.id,
            runs.c.suite,
            runs.c.started_at,
            run_cases.c.fingerprint,
            samples.c.status,
        )
        .order_by(runs.c.sequence.desc())
    )
    found = connection.execute(query).mappings().all()
    sequences = {row["sequence"] for row in found}
    counted = select(runs.c.sequence, _reads.number_column()).where(runs.c.sequence.in_(sequences))
    numbers: dict[int, int] = {int(s): int(n) for s, n in connection.execute(counted).all()}
    grouped: dict[int, CaseRun] = {}
    for row in found:
        entry = grouped.get(row["sequence"])
        if entry is None:
            entry = grouped[row["sequence"]] = CaseRun(
                run_id=row["id"],
                number=int(numbers[row["sequence"]]),
                started_at=row["started_at"],
                fingerprint=row["fingerprint"],
                statuses={},
            )
        entry.statuses[row["status"]] = int(row["count"])
    return list(grouped.values())


def names(connection: Connection, known: dict[int, Names] | None = None) -> Names:
    """Every suite, agent and model label with a stored run, sorted.

    ``known`` keeps the last answer by the latest run's sequence: until a run is added, the
    names are the same.
    """
    latest = int(connection.execute(select(func.max(runs.c.sequence))).scalar() or 0)
    if known is not None and latest in known:
        return known[latest]
    pairs = connection.execute(select(runs.c.suite, runs.c.agent).distinct()).all()
    labels: set[str] = set()
    settings = connection.execute(
        select(runs.c.settings).order_by(runs.c.sequence.desc()).limit(500)
    ).scalars()
    for value in settings:
        listed = (value or {}).get("models") or []
        labels.update(str(label) for label in listed if isinstance(label, str))
    found = Names(
        suites=tuple(sorted({p[0] for p in pairs})),
        agents=tuple(sorted({p[1] for p in pairs})),
        models=tuple(sorted(labels)),
    )
    if known is not None:
        known.clear()
        known[latest] = found
    return found
